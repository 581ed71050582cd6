package bwrap

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

func session() *toolrun.Session {
	s := &toolrun.Session{Cwd: "/ws", Headless: true}
	s.SetSandboxPolicy(sandbox.DefaultPolicy(), nil)
	return s
}

func TestShowAndSwitch(t *testing.T) {
	s := session()
	file := sandbox.DefaultPolicy()
	file.DenyPaths = []string{"/secret/"}
	c := &Commands{Session: s, Interactive: true, Reload: func() (sandbox.Policy, error) { return file, nil }}
	r, ok := c.Run("bwrap", "")
	if !ok || r.Text != "bwrap fs:workspace-write net:block write:[/ws, /tmp] deny:-" {
		t.Fatalf("/bwrap: %+v", r)
	}
	r, _ = c.Run("bwrap-fs-readonly", "")
	if r.Text != `Bwrap filesystem mode changed to "readonly".` || s.SandboxPolicy().FSMode != "readonly" {
		t.Fatalf("fs: %+v %+v", r, s.SandboxPolicy())
	}
	r, _ = c.Run("bwrap-network-allow-all", "")
	if r.Text != `Bwrap network mode changed to "allow-all".` {
		t.Fatalf("net: %+v", r)
	}
	// Switching one axis keeps the other's override and reads the files again (denyPaths).
	if p := s.SandboxPolicy(); p.FSMode != "readonly" || p.NetMode != "allow-all" || len(p.DenyPaths) != 1 {
		t.Fatalf("policy: %+v", p)
	}
	r, _ = c.Run("bwrap", "")
	if r.Text != "bwrap fs:readonly net:allow-all write:- deny:[/secret/]" {
		t.Fatalf("/bwrap after: %q", r.Text)
	}
	r, _ = c.Run("bwrap-reload", "")
	if r.Text != "bwrap initialized (fs: workspace-write, network: block)" || s.SandboxPolicy().FSMode != "workspace-write" {
		t.Fatalf("reload: %+v", r)
	}
	file.FSMode, file.NetMode = "allow-all", "allow-all"
	if r, _ = c.Run("bwrap-reload", ""); r.Text != "bwrap sandbox off (fs: allow-all, network: allow-all)" {
		t.Fatalf("reload off: %+v", r)
	}
	// A sandbox.json that cannot be read refuses every command (fail closed).
	c.Reload = func() (sandbox.Policy, error) {
		return sandbox.Policy{}, errors.New("Invalid bwrap configuration at x: y")
	}
	if r, _ = c.Run("bwrap-reload", ""); r.Level != "error" || s.SandboxError() == nil {
		t.Fatalf("broken reload: %+v", r)
	}
	if _, ok := c.Run("talk", ""); ok {
		t.Fatal("not a bwrap command")
	}
}

func TestNoUI(t *testing.T) {
	s := session()
	c := &Commands{Session: s}
	for _, n := range Names[1:7] {
		if r, _ := c.Run(n, ""); r.Text != TextNoUI {
			t.Errorf("%s headless: %+v", n, r)
		}
	}
	if s.SandboxPolicy().FSMode != "workspace-write" {
		t.Fatal("changed without a UI")
	}
}

// TestDenyRequests: /bwrap-deny-request refuses escalations and outside writes with the
// seed's texts, without asking; /bwrap-allow-request asks again.
func TestDenyRequests(t *testing.T) {
	s := session()
	c := &Commands{Session: s, Interactive: true}
	c.Run("bwrap-deny-request", "")
	if r, _ := c.Run("bwrap", ""); !strings.HasSuffix(r.Text, " (requests denied)") {
		t.Fatalf("/bwrap: %q", r.Text)
	}
	ctx := context.Background()
	if _, err := toolkit.Escalate(ctx, s, "Bash", "ls"); err == nil || err.Error() != "User denied unsandboxed execution." {
		t.Fatalf("escalate: %v", err)
	}
	outside := filepath.Join("/var/tmp", "pigo-bwrap-test-never-written", "x")
	write := func() error {
		_, err := s.WriteFile(ctx, toolrun.FileWrite{Tool: "Write", Path: outside,
			Update: func([]byte, bool) ([]byte, error) { return []byte("x"), nil }})
		return err
	}
	if err := write(); err == nil || err.Error() != "user deny Write: blocked" {
		t.Fatalf("write: %v", err)
	}
	c.Run("bwrap-allow-request", "")
	if s.DenyingRequests() {
		t.Fatal("still denying")
	}
	if err := write(); err == nil || !strings.Contains(err.Error(), "No UI available") {
		t.Fatalf("write after allow: %v", err)
	}
}
