package config

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/cond"
	"github.com/pigo-agent/pigo/internal/safefile"
)

// loadReport is everything a Load tells: its files in order (what they are, whether they were
// read, their problems), the load's own notices, the unusable inputs and NotApplied's report.
func loadReport(t *testing.T, o Options) string {
	t.Helper()
	c, err := Load(o)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "project %v\n", c.HasProject)
	for _, f := range c.Files {
		fmt.Fprintf(&b, "file %s %s %v applied=%v broken=%v legacy=%v name=%q text=%d\n", f.Path, f.Kind, f.Scope, f.Applied, f.Broken, f.Legacy, f.Name, len(f.Src.Text))
		for _, d := range f.Diags {
			fmt.Fprintf(&b, "  %v %s %s\n", d.Severity, d.Code, d.Line())
		}
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"diag", lines(c.Diags)}, {"unusable", lines(c.unusable)}, {"notapplied", lines(c.NotApplied())}} {
		for _, s := range l.list {
			fmt.Fprintf(&b, "%s %s\n", l.name, s)
		}
	}
	return b.String()
}

func lines[L ~[]D, D interface{ Line() string }](l L) []string {
	var out []string
	for _, d := range l {
		out = append(out, d.Line())
	}
	return out
}

// knownTreeNames are the names Load looks for in an agent dir or a .pi folder, their case and
// non-ASCII look-alikes, and others.
var knownTreeNames = []string{
	"settings.json", "sandbox.json", "lsp.json", "models.json", "spawn-agent.json", "proxy.json",
	"openai-cost.json", "trust.json", "mcp.json", "bwrap.json", "settings.jsonc", "sandbox.jsonc",
	"lsp.jsonc", "models.jsonc", "mcp.jsonc", "trust.jsonc", "agents", "prompts", "extensions",
	"skills", "Settings.json", "MODELS.JSON", "Skills", "séttings.json", "ſkills", "sessions",
	"auth.json", ".hidden", "node_modules", "SKILL.md",
}

// makeKnownTree fills dir (created or not) with a random selection of knownTreeNames: files
// with valid or broken content, folders with a few .md, .json or .ts entries, links to files,
// folders, nothing, themselves and outside; and sometimes dir itself is absent, a file, a
// link or a dangling link.
func makeKnownTree(t *testing.T, r *rand.Rand, dir, outside string) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Dir(dir), 0o755))
	switch r.IntN(12) {
	case 0:
		return // absent
	case 1:
		must(os.WriteFile(dir, []byte("{}"), 0o644)) // a file where a folder is looked for
		return
	case 2:
		must(os.Symlink(filepath.Join(outside, "nowhere"), dir)) // dangling
		return
	case 3:
		must(os.MkdirAll(outside, 0o755))
		must(os.Symlink(outside, dir)) // the folder elsewhere
		dir = outside
	default:
		must(os.MkdirAll(dir, 0o755))
	}
	contents := []string{"{}", `{"a": 1}`, "{", "", "\x00", "---\nname: x\ndescription: y\n---\nbody\n", `{"providers": {}}`}
	for _, name := range knownTreeNames {
		if r.IntN(3) != 0 {
			continue
		}
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			continue // a link made it already
		}
		switch r.IntN(7) {
		case 0, 1:
			must(os.WriteFile(p, []byte(contents[r.IntN(len(contents))]), 0o644))
		case 2, 3:
			must(os.MkdirAll(p, 0o755))
			for _, sub := range []string{"a.md", "b.json", "c.ts", "SKILL.md", "d/SKILL.md", "e.cue", "n/x.md"} {
				if r.IntN(3) == 0 {
					q := filepath.Join(p, sub)
					must(os.MkdirAll(filepath.Dir(q), 0o755))
					must(os.WriteFile(q, []byte(contents[r.IntN(len(contents))]), 0o644))
				}
			}
		case 4:
			must(os.Symlink(filepath.Join(dir, knownTreeNames[r.IntN(len(knownTreeNames))]), p)) // maybe dangling
		case 5:
			must(os.Symlink(p, p)) // a loop
		case 6:
			must(os.MkdirAll(outside, 0o755))
			q := filepath.Join(outside, "x"+name)
			must(os.WriteFile(q, []byte("{}"), 0o644))
			must(os.Symlink(q, p))
		}
	}
}

// TestKnownAbsentAsLookups: Load with the agent dir's and the project's listings answering
// for absent files (knownAbsent) reports exactly what it reports asking the file system for
// each file, on 400 random agent dirs and projects (absent, files, links, loops, case and
// non-ASCII look-alikes of the names looked for, files of every kind).
func TestKnownAbsentAsLookups(t *testing.T) {
	defer func(v bool) { knownListings = v }(knownListings)
	n := 400
	if testing.Short() {
		n = 60
	}
	approve := true
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		root := t.TempDir()
		home := filepath.Join(root, "home")
		project := filepath.Join(root, "project")
		if err := os.MkdirAll(project, 0o755); err != nil {
			t.Fatal(err)
		}
		makeKnownTree(t, r, filepath.Join(home, ".pi", "agent"), filepath.Join(root, "elsewhere-agent"))
		makeKnownTree(t, r, filepath.Join(project, ".pi"), filepath.Join(root, "elsewhere-project"))
		if r.IntN(2) == 0 {
			makeKnownTree(t, r, filepath.Join(project, ".agents"), filepath.Join(root, "elsewhere-agents"))
		}
		o := Options{Home: home, ProjectDir: project, Getenv: func(string) string { return "" }}
		if r.IntN(2) == 0 {
			o.Approve = &approve
		}
		if r.IntN(4) == 0 {
			o.AgentDir = filepath.Join(home, ".pi", "agent") + "/" // not clean
		}
		knownListings = false
		want := loadReport(t, o)
		knownListings = true
		got := loadReport(t, o)
		if got != want {
			t.Fatalf("seed %d: with the listings\n%s\nasking for each file\n%s", seed, got, want)
		}
	}
}

// TestKnownAbsent: what a listing answers, and what it leaves to the file system.
func TestKnownAbsent(t *testing.T) {
	defer func(v bool) { knownListings = v }(knownListings)
	knownListings = true
	root := t.TempDir()
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	agent := filepath.Join(root, "agent")
	write(filepath.Join(agent, "models.json"))
	write(filepath.Join(agent, "Settings.json"))
	write(filepath.Join(agent, "skills", "x", "SKILL.md"))
	odd := filepath.Join(root, "odd")
	write(filepath.Join(odd, "ſkills"))
	file := filepath.Join(root, "file")
	write(file)
	c := &Config{paths: safefile.NewPaths(), dirs: map[string]dirListing{}}
	for _, d := range []string{agent, filepath.Join(root, "none"), odd, file} {
		c.listKnown(d)
	}
	for _, tc := range []struct {
		path   string
		absent bool
	}{
		{filepath.Join(agent, "models.json"), false},
		{filepath.Join(agent, "lsp.json"), true},
		{filepath.Join(agent, "settings.json"), false}, // Settings.json: a case-insensitive file system finds it
		{filepath.Join(agent, "skills"), false},
		{filepath.Join(agent, "skills", "SKILL.md"), false}, // under a folder that exists: not known
		{filepath.Join(agent, "agents", "a.md"), true},
		{filepath.Join(agent, "séttings.json"), false}, // a non-ASCII name: not known
		{agent, false},
		{filepath.Join(root, "none", "settings.json"), true}, // the folder is absent
		{filepath.Join(root, "none", "skills", "SKILL.md"), true},
		{filepath.Join(odd, "lsp.json"), false},       // the listing has a non-ASCII name
		{filepath.Join(file, "settings.json"), false}, // ENOTDIR: the file system's to say
		{filepath.Join(root, "agent2", "lsp.json"), false},
		{filepath.Join(root, "other", "lsp.json"), false},
	} {
		if got := c.knownAbsent(tc.path); got != tc.absent {
			t.Errorf("knownAbsent(%s) = %v, want %v", tc.path, got, tc.absent)
		}
	}
	knownListings = false
	c = &Config{paths: safefile.NewPaths(), dirs: map[string]dirListing{}}
	c.listKnown(agent)
	if c.knownAbsent(filepath.Join(agent, "lsp.json")) {
		t.Error("knownAbsent answered with the listings off")
	}
}

// TestAFTDoesNotWaitForASearchNotBegun: with Options.Resolving, AFT runs the search itself
// when Load's goroutine has not begun it (here: never will) instead of waiting for it, and
// answers what the search answers; once AFT claimed it the goroutine does not search.
func TestAFTDoesNotWaitForASearchNotBegun(t *testing.T) {
	home := t.TempDir()
	c := &Config{Home: home, AgentDir: filepath.Join(home, ".pi", "agent"), Opts: Options{Getenv: func(string) string { return "" }}}
	c.aftDone, c.aftClaimed = make(chan struct{}), new(atomic.Bool) // as Load makes them; no goroutine
	got := make(chan *AFTSetup, 1)
	go func() { got <- c.AFT() }()
	select {
	case a := <-got:
		if want := findAFT(c.aftEnv()); !reflect.DeepEqual(a, want) {
			t.Fatalf("AFT %+v, the search %+v", a, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("AFT waited for a search that had not begun")
	}
	if c.aftClaimed.CompareAndSwap(false, true) {
		t.Fatal("AFT ran the search without claiming it: Load's goroutine would run it again")
	}
	// Load's goroutine claims first: AFT waits for its answer and does not search again.
	c = &Config{Home: home, AgentDir: filepath.Join(home, ".pi", "agent")}
	c.aftDone, c.aftClaimed = make(chan struct{}), new(atomic.Bool)
	c.aftClaimed.Store(true)
	mark := &AFTSetup{Tried: []string{"the goroutine's"}}
	go func() { c.aftFound = mark; close(c.aftDone) }()
	if a := c.AFT(); a != mark {
		t.Fatalf("AFT %+v, not the goroutine's answer", a)
	}
}

// TestWhichAhead: the first resolution after a Load with Options.Resolving takes which()'s
// answers from Load's goroutine when it has them (no look-up of its own), resolves exactly as
// without them, with gh on PATH and without; a later resolution of the same Config looks up
// again.
func TestWhichAhead(t *testing.T) {
	defer func(f func(string) bool) { lookPath = f }(lookPath)
	var calls atomic.Int32
	lookPath = func(name string) bool { calls.Add(1); return cond.LookPath(name) }
	for _, withGH := range []bool{false, true} {
		bin := t.TempDir()
		if withGH {
			if err := os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv("PATH", bin)
		home := t.TempDir()
		resolve := func(c *Config) string {
			res, err := c.Resolve(ResolveOptions{Headless: true})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(struct{ Tools, Commands any }{res.Tools, res.Commands})
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		o := Options{Home: home, ProjectDir: t.TempDir(), Getenv: func(string) string { return "" }}
		plain, err := Load(o)
		if err != nil {
			t.Fatal(err)
		}
		want := resolve(plain)
		o.Resolving = true
		c, err := Load(o)
		if err != nil {
			t.Fatal(err)
		}
		ahead := c.whichAhead
		for deadline := time.Now().Add(10 * time.Second); ahead.Load() == nil; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("Load's goroutine did not look ahead")
			}
		}
		if m := *ahead.Load(); m["gh"] != withGH {
			t.Fatalf("gh on PATH %v: looked ahead %v", withGH, m)
		}
		calls.Store(0)
		if got := resolve(c); got != want {
			t.Fatalf("gh on PATH %v: with the answers ahead\n%s\nwithout\n%s", withGH, got, want)
		}
		if n := calls.Load(); n != 0 {
			t.Errorf("the first resolution looked up PATH %d times with the answers ahead", n)
		}
		if got := resolve(c); got != want || calls.Load() == 0 {
			t.Errorf("the second resolution: %d look-ups, same result %v", calls.Load(), got == want)
		}
	}
}
