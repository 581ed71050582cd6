package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/catalog"
	"github.com/pigo-agent/pigo/internal/cond"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// TestEveryShippedDeclarationIsImplemented: every tool the shipped toolsets declare has a Go
// implementation bound by toolset and name, or a condition that is false on every system pigo
// runs on (pi's powershell is Windows-only; pigo's sandbox is bwrap). A declaration without an
// implementation would reach the model as a tool whose every call fails; the runner refuses to
// offer one anyway (toolrun.Runner.Unimplemented).
func TestEveryShippedDeclarationIsImplemented(t *testing.T) {
	shipped, err := catalog.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range shipped {
		toolset := e.Name
		if e.Builtin {
			toolset = "pi"
		}
		for _, d := range e.Tools {
			n++
			if _, ok := All().Lookup(toolset, d.Name); ok {
				continue
			}
			for _, goos := range []string{"linux", "darwin"} {
				if ok, err := cond.AsBool(d.When, cond.Env{OS: goos, Which: func(string) bool { return true },
					AFT: cond.AFT{Found: true, Search: true}, Settings: map[string]any{}}); d.When == "" || err != nil || ok {
					t.Errorf("%s: tool %s (toolset %s) has no implementation and is available on %s (when %q)", e.File, d.Name, toolset, goos, d.When)
				}
			}
		}
	}
	if n < 55 {
		t.Fatalf("only %d shipped declarations: the catalogue did not load", n)
	}
}

// TestEveryOfferedToolRuns resolves the registry for models with and without image input and
// reasoning, with no model, and for both file toolsets: every tool offered to the model or to
// codemode has an implementation, and every other declaration says why it is not offered.
func TestEveryOfferedToolRuns(t *testing.T) {
	models := `{"providers": {"p": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "apiKey": "k",
	  "models": [{"id": "text"}, {"id": "vision", "input": ["text", "image"], "reasoning": true}]}}}`
	lsp := `{"servers": {"gopls": {"bin": "gopls", "include": ["**/*.go"]}}}`
	for _, fileIO := range []string{"claude-code", "opencode"} {
		for _, model := range []string{"", "p/text", "p/vision"} {
			root := t.TempDir()
			agent, ws := filepath.Join(root, "agent"), filepath.Join(root, "ws")
			os.MkdirAll(agent, 0o755)
			os.MkdirAll(ws, 0o755)
			os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o644)
			os.WriteFile(filepath.Join(agent, "lsp.json"), []byte(lsp), 0o644)
			os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"personalExtensions": {"fileIo": "`+fileIO+`"},
			  "visionConfig": {"provider": "p", "model": "vision"}}`), 0o644)
			no := false
			cfg, err := config.Load(config.Options{AgentDir: agent, ProjectDir: ws, Home: root, Approve: &no, Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			res, err := cfg.Resolve(config.ResolveOptions{Model: model, Headless: true})
			if err != nil {
				t.Fatal(err)
			}
			r := toolrun.New(res.Tools, All(), &toolrun.Session{Cwd: ws, AgentDir: agent, Headless: true})
			for _, u := range r.Unimplemented() {
				t.Errorf("%s/%q: %s (%s) is offered without an implementation", fileIO, model, u.Name, u.Source)
			}
			offered := 0
			for _, row := range res.Tools.Tools {
				switch row.State {
				case engine.Active, engine.CodemodeOnly:
					offered++
					if tl, _ := r.Lookup(row.Name); tl == nil {
						t.Errorf("%s/%q: %s is offered but the runner does not know it", fileIO, model, row.Name)
					}
				default:
					if row.Reason == "" {
						t.Errorf("%s/%q: %s is %s without a reason", fileIO, model, row.Name, row.State)
					}
				}
			}
			if offered < 5 {
				t.Errorf("%s/%q: only %d tools offered", fileIO, model, offered)
			}
		}
	}
}

// TestDescribeImageNeedsAResolvableProvider: the seed registers describe_image only when
// visionConfig's model resolves (its provider, else defaultProvider, known with the model).
func TestDescribeImageNeedsAResolvableProvider(t *testing.T) {
	models := `{"providers": {"p": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "apiKey": "k",
	  "models": [{"id": "text"}, {"id": "eyes", "input": ["text", "image"]}]}}}`
	for vc, want := range map[string]engine.State{
		`{"provider": "p", "model": "eyes"}`:       engine.Active,
		`{"model": "eyes"}`:                        engine.Active, // defaultProvider p
		`{"provider": "nowhere", "model": "eyes"}`: engine.Unavailable,
		`{"provider": "p", "model": "missing"}`:    engine.Unavailable,
	} {
		root := t.TempDir()
		agent, ws := filepath.Join(root, "agent"), filepath.Join(root, "ws")
		os.MkdirAll(agent, 0o755)
		os.MkdirAll(ws, 0o755)
		os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o644)
		os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"defaultProvider": "p", "visionConfig": `+vc+`}`), 0o644)
		no := false
		cfg, err := config.Load(config.Options{AgentDir: agent, ProjectDir: ws, Home: root, Approve: &no, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cfg.Resolve(config.ResolveOptions{Model: "p/text", Headless: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := state(res.Tools, "describe_image"); got.State != want {
			t.Errorf("visionConfig %s: describe_image is %s (%s), want %s", vc, got.State, got.Reason, want)
		}
	}
}
