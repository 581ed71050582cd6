package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// env is one test session: a workspace and an agent dir in temp dirs, the shipped registry.
type env struct {
	t      testing.TB
	dir    string // workspace
	agent  string
	runner *toolrun.Runner
	// s is the runner's tool session.
	s *toolrun.Session
}

func (e *env) session() *toolrun.Session { return e.s }

func newEnv(t *testing.T, settings string) *env {
	t.Helper()
	return newEnvSettings(t, tempWS(t), settings)
}

// tempWS is a fresh workspace directory (real path).
func tempWS(t testing.TB) string {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	return filepath.Join(root, "ws")
}

// newEnvAt is a session whose workspace is ws.
func newEnvAt(t testing.TB, ws string) *env { return newEnvSettings(t, ws, "") }

func newEnvSettings(t testing.TB, ws, settings string) *env {
	t.Helper()
	e := &env{t: t, dir: ws, agent: filepath.Join(filepath.Dir(ws), "agent")}
	for _, d := range []string{e.dir, e.agent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if settings != "" {
		e.write(filepath.Join(e.agent, "settings.json"), settings)
	}
	no := false
	cfg, err := config.Load(config.Options{AgentDir: e.agent, ProjectDir: e.dir, Home: filepath.Dir(ws), Approve: &no,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Resolve(config.ResolveOptions{Headless: true, Tools: []string{"read", "bash", "edit", "write", "grep", "find", "ls"}})
	if err != nil {
		t.Fatal(err)
	}
	e.s = &toolrun.Session{Cwd: e.dir, AgentDir: e.agent, Headless: true}
	e.runner = toolrun.New(res.Tools, All(), e.s)
	return e
}

func (e *env) write(p, content string) string {
	e.t.Helper()
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.dir, p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) read(p string) string {
	e.t.Helper()
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.dir, p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// call runs one tool call; args is JSON or a value to marshal.
func (e *env) call(name string, args any) toolrun.Result {
	e.t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			e.t.Fatal(err)
		}
		raw = string(b)
	}
	return e.runner.Run(context.Background(), toolrun.Call{ID: "call_1", Name: name, Arguments: json.RawMessage(raw)}, nil)
}
