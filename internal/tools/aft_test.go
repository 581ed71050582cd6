package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/aft"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/pitest"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
	afttools "github.com/pigo-agent/pigo/internal/tools/aft"
)

var aftTools = []string{"aft_outline", "aft_zoom", "aft_callgraph", "aft_search"}

// aftEnv is a session whose agent dir holds the npm platform package of aft (the real binary
// from scripts/install-pi.sh), with aft's storage in a temp dir. aftJSONC, when set, is the
// user-level aft.jsonc.
func aftEnv(t *testing.T, aftJSONC string) (*env, *toolrun.Session, *engine.Result) {
	t.Helper()
	bin := pitest.Tool(t, "aft")
	t.Setenv("AFT_STORAGE_DIR", t.TempDir())
	ws := tempWS(t)
	e := &env{t: t, dir: ws, agent: filepath.Join(filepath.Dir(ws), "agent")}
	home := filepath.Dir(ws)
	pkg := filepath.Join(e.agent, "npm", "node_modules", filepath.FromSlash(aft.PlatformPackage()), "bin")
	for _, d := range []string{e.dir, pkg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bin, filepath.Join(pkg, "aft")); err != nil {
		t.Fatal(err)
	}
	if aftJSONC != "" {
		e.write(filepath.Join(home, ".config", "cortexkit", "aft.jsonc"), aftJSONC)
	}
	e.write("go.mod", "module demo\n\ngo 1.22\n")
	e.write("main.go", "package main\n\nimport \"fmt\"\n\nfunc helper(x int) int { return x * 2 }\n\n// Greet says hi.\nfunc Greet(name string) string {\n\treturn fmt.Sprintf(\"hi %s %d\", name, helper(1))\n}\n\nfunc main() { fmt.Println(Greet(\"w\")) }\n")
	no := false
	cfg, err := config.Load(config.Options{AgentDir: e.agent, ProjectDir: e.dir, Home: home, Approve: &no,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Resolve(config.ResolveOptions{Headless: true, Tools: aftTools})
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.AFT()
	if !a.Found || a.Binary.Source != "npm" {
		t.Fatalf("the npm platform package was not found: %+v", a)
	}
	s := &toolrun.Session{Cwd: e.dir, AgentDir: e.agent, Headless: true, Sandbox: sandbox.Policy{NetMode: "block"}}
	s.Env.SessionID = "0000-aft-test"
	afttools.SetAFT(s, afttools.AFTSetup{Bin: a.Binary.Path, Config: a.Config})
	t.Cleanup(s.Close)
	e.runner = toolrun.New(res.Tools, All(), s)
	return e, s, res.Tools
}

func state(reg *engine.Result, name string) engine.ToolResult {
	for _, r := range reg.Tools {
		if r.Name == name {
			return r
		}
	}
	return engine.ToolResult{}
}

// TestAFTEndToEnd runs the four tools against the real aft binary through the one execution
// path: the model's content is aft's text, details and the structured result its answer.
func TestAFTEndToEnd(t *testing.T) {
	e, s, reg := aftEnv(t, `{"semantic_search": true, "semantic": {"backend": "ollama", "base_url": "http://127.0.0.1:9"}}`)
	for _, n := range aftTools {
		if st := state(reg, n); st.State != engine.Active {
			t.Fatalf("%s is %s (%s), want active", n, st.State, st.Reason)
		}
	}
	r := e.call("aft_outline", map[string]any{"target": "main.go"})
	if r.IsError || !strings.Contains(r.Text(), "Greet") || !strings.Contains(r.Text(), "helper") {
		t.Fatalf("outline: %+v", r)
	}
	var out map[string]any
	if err := json.Unmarshal(r.Structured, &out); err != nil || out["text"] != r.Text() || out["id"] != nil {
		t.Fatalf("structured: %s", r.Structured)
	}
	log := aft.LogPath(e.agent, s.Env.SessionID)
	if fi, err := os.Stat(log); err != nil || fi.Size() == 0 {
		t.Fatalf("the session's aft log %s: %v", log, err)
	}

	r = e.call("aft_zoom", map[string]any{"path": "main.go", "symbols": "Greet"})
	if r.IsError || !strings.Contains(r.Text(), "func Greet(name string) string") {
		t.Fatalf("zoom: %+v", r)
	}
	r = e.call("aft_zoom", map[string]any{"targets": []any{map[string]any{"path": "main.go", "symbol": "helper"}}})
	if r.IsError || !strings.Contains(r.Text(), "func helper(x int) int") {
		t.Fatalf("zoom targets: %+v", r)
	}
	if r = e.call("aft_zoom", map[string]any{"symbols": "Greet"}); !r.IsError || !strings.Contains(r.Text(), "give one of path") {
		t.Fatalf("zoom without a target: %+v", r)
	}

	r = e.call("aft_callgraph", map[string]any{"op": "callers", "path": "main.go", "symbol": "helper"})
	if r.IsError || !strings.Contains(r.Text(), "Greet") {
		t.Fatalf("callers: %+v", r)
	}
	r = e.call("aft_callgraph", map[string]any{"op": "callers", "path": "main.go", "symbol": "nosuch"})
	if r.IsError || !strings.Contains(r.Text(), "not found") {
		t.Fatalf("a missing symbol is an answer, not an error: %+v", r)
	}
	r = e.call("aft_search", map[string]any{"query": "Greet"})
	if r.IsError || !strings.Contains(r.Text(), "main.go") {
		t.Fatalf("search: %+v", r)
	}
	r = e.call("aft_outline", map[string]any{"target": "nope.go"})
	if !r.IsError || !strings.Contains(r.Text(), "file not found") {
		t.Fatalf("missing file: %+v", r)
	}
	// A URL is fetched by aft outside the sandbox: refused while the network is blocked.
	r = e.call("aft_outline", map[string]any{"target": "http://127.0.0.1:1/x.md"})
	if !r.IsError || !strings.Contains(r.Text(), `network.mode is "block"`) {
		t.Fatalf("URL under network block: %+v", r)
	}
}

// TestAFTSearchGate: aft_search is registered only with an external embedding backend.
func TestAFTSearchGate(t *testing.T) {
	for doc, want := range map[string]engine.State{
		"":                          engine.Unavailable,
		`{"semantic_search": true}`: engine.Unavailable,
		`{"semantic_search": true, "semantic": {"backend": "openai_compatible", "base_url": "http://127.0.0.1:9/v1"}}`: engine.Active,
	} {
		_, _, reg := aftEnv(t, doc)
		if got := state(reg, "aft_search"); got.State != want {
			t.Errorf("%q: aft_search is %s (%s), want %s", doc, got.State, got.Reason, want)
		}
		if got := state(reg, "aft_outline"); got.State != engine.Active {
			t.Errorf("%q: aft_outline is %s", doc, got.State)
		}
	}
	_, _, reg := aftEnv(t, `{"enabled": false}`)
	for _, n := range aftTools {
		if got := state(reg, n); got.State != engine.Unavailable {
			t.Errorf("enabled:false: %s is %s", n, got.State)
		}
	}
}
