package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/cuehelper"
	"github.com/pigo-agent/pigo/internal/diag"
)

// TestEmbeddedClean validates the shipped toolsets/ and commands/ fully (schema, conditions,
// patterns): `pigo check` no longer does at run time, so this test is what fails when a
// declaration drifts from the schema. (TestCatalogFresh keeps the catalogue in step with them.)
func TestEmbeddedClean(t *testing.T) {
	cfg, err := config.Load(config.Options{Home: t.TempDir(), ProjectDir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	list := cfg.CheckEmbedded()
	if len(list) > 0 {
		var b strings.Builder
		diag.WriteText(&b, list, diag.Style{})
		t.Fatalf("the shipped declarations have problems:\n%s", b.String())
	}
	// The check is real: a declaration with a bad condition is reported.
	if !strings.Contains(checkOneCUE(t, `tools: [{name: "x", description: "d", parameters: {type: "object"}, when: "os =="}]`), "bad-expr") {
		t.Error("a bad condition in a CUE declaration is not reported")
	}
}

func checkOneCUE(t *testing.T, src string) string {
	root := writeTree(t, map[string]string{"home/.pi/agent/extensions/x.cue": src})
	var b strings.Builder
	for _, d := range loadTree(t, root, nil).Check() {
		b.WriteString(d.Code + " ")
	}
	return b.String()
}

// TestCUEHelperMissing: without the pigo-cue helper a CUE extension file is reported (how to
// install the helper) and not applied; the JSON files around it are checked as ever.
func TestCUEHelperMissing(t *testing.T) {
	t.Setenv(cuehelper.EnvPath, "")
	t.Setenv("PATH", t.TempDir())
	root := writeTree(t, map[string]string{
		"home/.pi/agent/extensions/x.cue": `tools: [{name: "x", description: "d", parameters: {type: "object"}}]`,
		"home/.pi/agent/settings.json":    `{"quietStartup": "yes"}`,
	})
	cfg := loadTree(t, root, nil)
	var codes []string
	for _, d := range cfg.Check() {
		codes = append(codes, filepath.Base(d.File())+":"+d.Code)
		if d.Code == "cue-helper" && !strings.Contains(d.Hint, "go install github.com/pigo-agent/pigo/cmd/pigo-cue@latest") {
			t.Errorf("hint %q", d.Hint)
		}
	}
	if got := strings.Join(codes, " "); got != "x.cue:cue-helper settings.json:schema" {
		t.Errorf("diagnostics %s", got)
	}
	for _, f := range cfg.Files {
		if strings.HasSuffix(f.Path, "x.cue") && f.Applied {
			t.Error("x.cue is applied without its evaluation")
		}
	}
}
