package config

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// piAIDist is where the tests find pi-ai's dist (the npm cache scripts/install-pi.sh fills).
const piAIDist = "/root/go/pkg/mod/cache/pigo-npm/node_modules/@earendil-works/pi-ai/dist"

// TestCatalogueFresh regenerates models_catalogue.json from pi-ai's generated model list and
// fails when the embedded file has drifted. It skips when node or pi-ai is not installed.
func TestCatalogueFresh(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(piAIDist, "models.generated.js")); err != nil {
		t.Skip("pi-ai is not installed (scripts/install-pi.sh)")
	}
	out, err := exec.Command(node, "../scripts/gen-models-catalogue.mjs", piAIDist).Output()
	if err != nil {
		t.Fatalf("gen-models-catalogue.mjs: %v", err)
	}
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile("models_catalogue.json", out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(out, modelsCatalogue) {
		t.Fatal("models_catalogue.json differs from pi-ai's model list: run UPDATE_GOLDEN=1 go test ./config -run TestCatalogueFresh")
	}
}

// TestCatalogueFacts checks facts the runtime relies on, read from pi-ai's list.
func TestCatalogueFacts(t *testing.T) {
	m, ok := LookupCatalogue("ANTHROPIC", "Claude-Sonnet-4-5")
	if !ok {
		t.Fatal("anthropic/claude-sonnet-4-5 is not in the catalogue")
	}
	if m.API != "anthropic-messages" || m.BaseURL != "https://api.anthropic.com" || m.Cost.Input <= 0 || m.Provider != "anthropic" {
		t.Fatalf("anthropic/claude-sonnet-4-5 = %+v", m)
	}
	provs := BuiltinProviders()
	if len(provs) < 30 || !isBuiltinProvider("zai") || !isBuiltinProvider("OpenRouter") || isBuiltinProvider("zhipu") {
		t.Fatalf("built-in providers = %v", provs)
	}
	info, err := (&Config{effective: map[Kind]*Effective{Settings: {}, Models: {}}}).SessionModel("gpt-5")
	if err != nil {
		t.Fatal(err)
	}
	if info.Provider != "" || info.Source != "catalogue" || !info.Reasoning {
		t.Fatalf("bare gpt-5 (listed by several providers) = %+v", info)
	}
}
