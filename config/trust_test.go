package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAskTrust: with defaultProjectTrust "ask" and someone to answer, the answer decides, and a
// remembered answer is written to trust.json (keeping what was there) and used next time
// without asking.
func TestAskTrust(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	if err := os.MkdirAll(filepath.Join(proj, ".pi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".pi", "settings.json"), []byte(`{"theme": "light"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	trustFile := filepath.Join(agent, "trust.json")
	if err := os.WriteFile(trustFile, []byte("{\n  // decisions\n  \"/elsewhere\": false\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	asked := 0
	ask := func(trusted, remember bool) func(string) (bool, bool) {
		return func(dir string) (bool, bool) {
			asked++
			return trusted, remember
		}
	}
	load := func(f func(string) (bool, bool)) *Config {
		c, err := Load(Options{Home: home, ProjectDir: proj, AskTrust: f, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := load(ask(true, false)); !c.Trusted || asked != 1 {
		t.Fatalf("trust once: trusted=%v asked=%d", c.Trusted, asked)
	}
	if c := load(ask(false, false)); c.Trusted {
		t.Fatal("declined: want untrusted")
	}
	if c := load(ask(true, true)); !c.Trusted {
		t.Fatal("trust and remember: want trusted")
	}
	b, _ := os.ReadFile(trustFile)
	abs, _ := filepath.Abs(proj)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if !strings.Contains(string(b), "// decisions") || !strings.Contains(string(b), `"`+abs+`": true`) {
		t.Fatalf("trust.json after remembering:\n%s", b)
	}
	asked = 0
	if c := load(ask(false, false)); !c.Trusted || asked != 0 {
		t.Fatalf("a saved decision is used without asking: trusted=%v asked=%d", c.Trusted, asked)
	}
	// Without anyone to ask, "ask" means untrusted.
	if c := load(nil); !c.Trusted {
		t.Fatal("the saved entry applies without a terminal too")
	}
}

// `pigo config path` reports, it does not ask: in a folder without a project overlay the
// report says whether one would apply without putting the trust question to the person.
func TestPathReportDoesNotAsk(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	write(t, filepath.Join(proj, "main.go"), "package main\n")
	asked := 0
	c, err := Load(Options{Home: home, ProjectDir: proj, AskTrust: func(string) (bool, bool) { asked++; return true, false },
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	r := c.PathReport([]Kind{Settings})
	if asked != 0 {
		t.Fatalf("the report asked the trust question %d times", asked)
	}
	if r.Trusted || r.TrustReason != "no project overlay yet" {
		t.Fatalf("report: trusted %v, %q", r.Trusted, r.TrustReason)
	}
}
