package llmtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/pitest"
)

// PiRun describes one run of the real pi against a Server.
type PiRun struct {
	// API is the models.json api of the "local" provider (default openai-completions).
	API string
	// Model is the models.json model entry (default {"id":"m"}); it is given the api's base
	// URL through the provider entry.
	Model map[string]any
	// Provider adds fields to the "local" provider entry (apiKey defaults to "k").
	Provider map[string]any
	// Settings is written as settings.json in the agent dir when set.
	Settings map[string]any
	// Args are pi's arguments after --provider local --model <id>, e.g. "--tools", "ls",
	// "--no-session", "-p", "list files".
	Args []string
	// Files are created in the working directory before the run.
	Files map[string]string
}

// BaseURL is the base URL pi's providers are given for api: URL+"/v1" (the Anthropic SDK adds
// /v1 itself, so anthropic-messages gets URL).
func (s *Server) BaseURL(api string) string {
	if api == AnthropicMessages {
		return s.URL
	}
	return s.URL + "/v1"
}

// RunPi runs the real pi 0.84.3 (skipping when it is not installed) with a fresh agent dir
// and HOME, and returns its stdout, its stderr and the working directory used. The model is
// provider "local" in models.json, pointed at the server.
func (s *Server) RunPi(t testing.TB, run PiRun) (stdout, stderr string, cwd string) {
	t.Helper()
	pi := pitest.Find(t)
	api := run.API
	if api == "" {
		api = OpenAICompletions
	}
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	cwd = filepath.Join(home, "work")
	for _, d := range []string{agent, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mdl := run.Model
	if mdl == nil {
		mdl = map[string]any{"id": "m"}
	}
	prov := map[string]any{"baseUrl": s.BaseURL(api), "api": api, "apiKey": "k", "models": []any{mdl}}
	for k, v := range run.Provider {
		prov[k] = v
	}
	writeJSON(t, filepath.Join(agent, "models.json"), map[string]any{"providers": map[string]any{"local": prov}})
	if run.Settings != nil {
		writeJSON(t, filepath.Join(agent, "settings.json"), run.Settings)
	}
	for name, body := range run.Files {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"--provider", "local", "--model", mdl["id"].(string)}, run.Args...)
	cmd := pi.Command(args...)
	cmd.Dir = cwd
	var env []string
	for _, e := range os.Environ() {
		if k, _, _ := strings.Cut(e, "="); strings.HasSuffix(k, "_API_KEY") || k == "HOME" || k == "PI_CODING_AGENT_DIR" || strings.HasSuffix(k, "_proxy") || strings.HasSuffix(k, "_PROXY") {
			continue
		}
		env = append(env, e)
	}
	cmd.Env = append(env, "HOME="+home, "PI_CODING_AGENT_DIR="+agent, "PI_OFFLINE=1", "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	return out.String(), errb.String(), cwd
}

func writeJSON(t testing.TB, path string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
