package codemode_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools"
)

// env is one session on the shipped registry: a real workspace, the default sandbox.
type env struct {
	t      testing.TB
	dir    string
	s      *toolrun.Session
	runner *toolrun.Runner
}

func newEnv(t testing.TB, settings string) *env {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	e := &env{t: t, dir: filepath.Join(root, "ws")}
	agent := filepath.Join(root, "agent")
	for _, d := range []string{e.dir, agent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if settings != "" {
		if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(settings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	no := false
	cfg, err := config.Load(config.Options{AgentDir: agent, ProjectDir: e.dir, Home: root, Approve: &no,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Resolve(config.ResolveOptions{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	e.s = &toolrun.Session{Cwd: e.dir, AgentDir: agent, Headless: true, Sandbox: sandbox.DefaultPolicy(),
		Environ: sandbox.Environ{Home: os.Getenv("HOME"), Path: os.Getenv("PATH"), UID: os.Getuid(), GID: os.Getgid()}}
	e.runner = toolrun.New(res.Tools, tools.All(), e.s)
	return e
}

// run runs a codemode call with code.
func (e *env) run(ctx context.Context, code string) toolrun.Result {
	e.t.Helper()
	raw, _ := json.Marshal(map[string]string{"code": code})
	return e.runner.Run(ctx, toolrun.Call{ID: "call_1", Name: "codemode", Arguments: raw}, nil)
}

func (e *env) path(p string) string { return filepath.Join(e.dir, p) }

func (e *env) write(p, content string) string {
	e.t.Helper()
	p = e.path(p)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

type details struct {
	Calls []struct {
		Name, Status string
	} `json:"calls"`
	Store *struct {
		Set    map[string]json.RawMessage `json:"set"`
		Delete []string                   `json:"delete"`
	} `json:"store"`
	Reads          map[string]toolrun.Snapshot `json:"reads"`
	Error          string                      `json:"error"`
	FullOutputPath string                      `json:"fullOutputPath"`
}

func detailsOf(t testing.TB, r toolrun.Result) details {
	t.Helper()
	var d details
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatalf("details %s: %v", r.Details, err)
	}
	return d
}

// approver records whether a dialog was asked for and approves everything.
type approver struct{ asked bool }

func (a *approver) Ask(context.Context, approve.Request) (approve.Decision, error) {
	a.asked = true
	return approve.Decision{Choice: approve.Allow}, nil
}
