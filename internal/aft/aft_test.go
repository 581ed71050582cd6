package aft

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/pitest"
)

func writeExe(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func noPath(string) (string, error) { return "", errors.New("not found") }

func TestFindOrder(t *testing.T) {
	home, agent := t.TempDir(), t.TempDir()
	env := Env{Home: home, AgentDir: agent, Getenv: func(string) string { return "" }, LookPath: noPath}
	if _, tried, ok := Find(env); ok {
		t.Fatalf("found a binary in empty dirs (tried %v)", tried)
	} else if len(tried) < 4 {
		t.Fatalf("tried %v", tried)
	}
	cargo := filepath.Join(home, ".cargo", "bin", "aft")
	writeExe(t, cargo)
	if b, _, ok := Find(env); !ok || b.Path != cargo || b.Source != "cargo" {
		t.Fatalf("cargo: %+v %v", b, ok)
	}
	pathBin := filepath.Join(t.TempDir(), "aft")
	writeExe(t, pathBin)
	env.LookPath = func(n string) (string, error) {
		if n == "aft" {
			return pathBin, nil
		}
		return "", errors.New("no")
	}
	if b, _, _ := Find(env); b.Path != pathBin || b.Source != "path" {
		t.Fatalf("PATH must come before cargo: %+v", b)
	}
	npm := filepath.Join(agent, "npm", "node_modules", filepath.FromSlash(PlatformPackage()), "bin", "aft")
	writeExe(t, npm)
	if b, _, _ := Find(env); b.Path != npm || b.Source != "npm" {
		t.Fatalf("the npm package must come before PATH: %+v", b)
	}
	for _, v := range []string{"v0.9.10", "v0.10.2", "vx", "v1.0"} {
		writeExe(t, filepath.Join(home, ".cache", "aft", "bin", v, "aft"))
	}
	if b, _, _ := Find(env); b.Source != "cache" || !strings.HasSuffix(b.Path, filepath.Join("v0.10.2", "aft")) {
		t.Fatalf("the highest cached version must come first: %+v", b)
	}
	// A file without the execute bit is not a binary.
	if err := os.Chmod(filepath.Join(home, ".cache", "aft", "bin", "v0.10.2", "aft"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _, _ := Find(env); !strings.HasSuffix(b.Path, filepath.Join("v0.9.10", "aft")) {
		t.Fatalf("non-executable cache entry used: %+v", b)
	}
}

func TestLoadConfigAndSearchGate(t *testing.T) {
	home, agent := t.TempDir(), t.TempDir()
	env := Env{Home: home, AgentDir: agent, Getenv: func(string) string { return "" }}
	c := LoadConfig(env)
	if !c.Enabled || c.Path != "" || c.Problem != "" {
		t.Fatalf("defaults: %+v", c)
	}
	if ok, why := c.SearchReady(); ok || why != "" {
		t.Fatalf("search without config: %v %q", ok, why)
	}
	legacy := filepath.Join(agent, "aft.jsonc")
	os.WriteFile(legacy, []byte(`{"enabled": false}`), 0o644)
	if c := LoadConfig(env); c.Path != legacy || c.Enabled {
		t.Fatalf("legacy location: %+v", c)
	}
	user := filepath.Join(home, ".config", "cortexkit", "aft.jsonc")
	os.MkdirAll(filepath.Dir(user), 0o755)
	cases := []struct {
		doc     string
		ready   bool
		why     string
		problem string
	}{
		{`{"semantic_search": true}`, false, `semantic.backend is "fastembed"`, ""},
		{`{"semantic_search": true, "semantic": {"backend": "fastembed"}}`, false, "local ONNX backend is not used", ""},
		{`{"semantic_search": true, "semantic": {"backend": "ollama"}}`, false, "sets no semantic.base_url", ""},
		{`{"semantic_search": true, "semantic": {"backend": "bogus", "base_url": "x"}}`, false, `"bogus" is not one of`, ""},
		{"// comment\n{\"semantic_search\": true, \"semantic\": {\"backend\": \"openai_compatible\", \"base_url\": \"http://127.0.0.1:1/v1/\",},}", true, "", ""},
		{`{"semantic_search": false, "semantic": {"backend": "ollama", "base_url": "x"}}`, false, "", ""},
		{`{"semantic_search": "yes"}`, false, "", "semantic_search must be a boolean"},
		{`not json`, false, "", "using the defaults"},
	}
	for _, tc := range cases {
		os.WriteFile(user, []byte(tc.doc), 0o644)
		c := LoadConfig(env)
		if c.Path != user {
			t.Fatalf("%s: read %s, want the CortexKit location first", tc.doc, c.Path)
		}
		ok, why := c.SearchReady()
		if ok != tc.ready || (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
			t.Errorf("%s: SearchReady = %v %q, want %v %q", tc.doc, ok, why, tc.ready, tc.why)
		}
		if !strings.Contains(c.Problem, tc.problem) || (tc.problem == "") != (c.Problem == "") {
			t.Errorf("%s: problem %q, want %q", tc.doc, c.Problem, tc.problem)
		}
		if tc.ready && c.BaseURL != "http://127.0.0.1:1/v1" {
			t.Errorf("trailing slash kept: %q", c.BaseURL)
		}
	}
}

// project writes a small Go project for the real binary.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module demo\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(`package main

import "fmt"

func helper(x int) int { return x * 2 }

// Greet says hi.
func Greet(name string) string {
	return fmt.Sprintf("hi %s %d", name, helper(1))
}

func main() { fmt.Println(Greet("w")) }
`), 0o644)
	return dir
}

// realClient starts the npm-installed aft on a fresh project with storage under t.TempDir.
func realClient(t *testing.T) (*Client, string, string) {
	t.Helper()
	bin := pitest.Tool(t, "aft")
	dir := project(t)
	home := t.TempDir()
	log := LogPath(t.TempDir(), "sess-1")
	env := append(os.Environ(), "HOME="+home, "AFT_STORAGE_DIR="+filepath.Join(home, "store"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	c := New(Options{Bin: bin, Root: dir, SessionID: "sess-1", Log: log, Env: env})
	t.Cleanup(func() { c.Close() })
	return c, dir, log
}

func TestRealOutlineAndZoom(t *testing.T) {
	c, _, log := realClient(t)
	ctx := context.Background()
	if c.Started() {
		t.Fatal("started before the first call")
	}
	r, err := c.ToolCall(ctx, "outline", map[string]any{"target": "main.go"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Success || !strings.Contains(r.Text, "Greet") || !strings.Contains(r.Text, "helper") {
		t.Fatalf("outline: %+v", r)
	}
	pid := c.Pid()
	r, err = c.ToolCall(ctx, "zoom", map[string]any{"filePath": "main.go", "symbols": "Greet"})
	if err != nil || !r.Success || !strings.Contains(r.Text, "func Greet(name string) string") {
		t.Fatalf("zoom: %+v %v", r, err)
	}
	if c.Pid() != pid {
		t.Fatal("a second call started a second process: one resident process per session")
	}
	var f map[string]any
	if err := json.Unmarshal(r.Fields, &f); err != nil || f["kind"] != "function" || f["id"] != nil || f["success"] != nil {
		t.Fatalf("fields: %s %v", r.Fields, err)
	}
	r, err = c.ToolCall(ctx, "outline", map[string]any{"target": "nope.go"})
	if err != nil || r.Success || r.Code != "file_not_found" {
		t.Fatalf("missing file: %+v %v", r, err)
	}
	if fi, err := os.Stat(log); err != nil || fi.Size() == 0 {
		t.Fatalf("no log at %s: %v", log, err)
	}
	c.Close()
	if _, err := c.ToolCall(ctx, "outline", map[string]any{"target": "main.go"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	// The process is gone.
	if err := syscall.Kill(pid, 0); err == nil {
		time.Sleep(200 * time.Millisecond)
		if err := syscall.Kill(pid, 0); err == nil {
			t.Fatalf("aft pid %d still running after Close", pid)
		}
	}
}

func TestRealRestartAfterCrash(t *testing.T) {
	c, _, _ := realClient(t)
	ctx := context.Background()
	if _, err := c.ToolCall(ctx, "outline", map[string]any{"target": "main.go"}); err != nil {
		t.Fatal(err)
	}
	pid := c.Pid()
	syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for c.Started() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	r, err := c.ToolCall(ctx, "outline", map[string]any{"target": "main.go"})
	if err != nil || !r.Success {
		t.Fatalf("after a crash the next call restarts aft: %+v %v", r, err)
	}
	if c.Pid() == pid || c.Pid() == 0 {
		t.Fatalf("pid %d → %d", pid, c.Pid())
	}
}

func TestStartFailure(t *testing.T) {
	c := New(Options{Bin: filepath.Join(t.TempDir(), "missing"), Root: t.TempDir()})
	_, err := c.ToolCall(context.Background(), "outline", map[string]any{"target": "x"})
	if err == nil || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("err = %v", err)
	}
}
