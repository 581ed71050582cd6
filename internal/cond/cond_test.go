package cond

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		src    string
		offset int
	}{
		{"model.provder == 'x'", 6},
		{"os == 'linux' && model.idd == ''", 23},
		{"whch('gh')", 0},
		{"'é' == 'x' && model.nope", 20},
		{"model.id", 0}, // not a boolean
	}
	for _, tt := range tests {
		_, err := Compile(tt.src)
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("Compile(%q) = %v, want *Error", tt.src, err)
		}
		if ce.Offset != tt.offset {
			t.Errorf("Compile(%q) offset = %d, want %d (%s)", tt.src, ce.Offset, tt.offset, ce.Message)
		}
	}
}

func TestCompileCached(t *testing.T) {
	a, err := Compile("os == 'linux'")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Compile("os == 'linux'")
	if a != b {
		t.Error("the same text compiled twice")
	}
}

// The built-in availability conditions, written as the toolsets write them.
func TestBuiltinConditions(t *testing.T) {
	const (
		github = `which("gh") && os != "windows"`
		vision = `settings.visionConfig != nil && !("image" in model.input)`
		lsp    = `len(lsp.servers) > 0`
		aft    = `which("aft")`
	)
	onPath := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, x := range names {
				if x == n {
					return true
				}
			}
			return false
		}
	}
	textOnly := Model{Provider: "zhipu", ID: "glm-4.6", Input: []string{"text"}}
	withImage := Model{Provider: "openai", ID: "gpt-5", Input: []string{"text", "image"}}
	vc := map[string]any{"visionConfig": map[string]any{"model": "glm-4.5v"}}
	tests := []struct {
		name string
		src  string
		env  Env
		want bool
	}{
		{"gh on linux", github, Env{OS: "linux", Which: onPath("gh")}, true},
		{"gh on windows", github, Env{OS: "windows", Which: onPath("gh")}, false},
		{"no gh", github, Env{OS: "linux", Which: onPath("git")}, false},
		{"no which at all", github, Env{OS: "linux"}, false},
		{"vision text-only model", vision, Env{Model: textOnly, Settings: vc}, true},
		{"vision image model", vision, Env{Model: withImage, Settings: vc}, false},
		{"vision not configured", vision, Env{Model: textOnly, Settings: map[string]any{}}, false},
		{"vision nil settings", vision, Env{Model: textOnly}, false},
		{"vision no model", vision, Env{Settings: vc}, true},
		{"lsp one server", lsp, Env{LSP: LSP{Servers: []string{"gopls"}}}, true},
		{"lsp none", lsp, Env{}, false},
		{"aft found", aft, Env{Which: onPath("aft")}, true},
		{"aft missing", aft, Env{Which: onPath("gh")}, false},
		{"env var", `env.SEARCH1API_KEY != ""`, Env{Env: map[string]string{"SEARCH1API_KEY": "k"}}, true},
		{"headless", `!headless`, Env{Headless: true}, false},
		{"model facts", `model.reasoning && model.contextWindow >= 128000 && model.maxTokens > 0 && arch == "amd64"`,
			Env{Arch: "amd64", Model: Model{Reasoning: true, ContextWindow: 200000, MaxTokens: 8192}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AsBool(tt.src, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%s = %v, want %v", tt.src, got, tt.want)
			}
		})
	}
}

func TestEvalRuntimeError(t *testing.T) {
	p, err := Compile(`settings.a.b == 1`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Eval(p, Env{Settings: map[string]any{"a": 3}}); err == nil {
		t.Error("want a runtime error indexing a number")
	}
}

func BenchmarkEval(b *testing.B) {
	p, _ := Compile(`which("gh") && os != "windows"`)
	env := Env{OS: "linux", Which: func(string) bool { return true }}
	b.ReportAllocs()
	for b.Loop() {
		Eval(p, env)
	}
}

// TestEvalBudget: conditions that loop over huge ranges stop with an error naming the budget,
// within a generous time (no timing is asserted; the bound catches hangs only).
func TestEvalBudget(t *testing.T) {
	for _, src := range []string{
		`len(1..50000) > 0`,
		`all(1..1000000000, # > 0)`,
		`all(1..999, all(1..999, all(1..999, true)))`,
		`len(repeat(repeat("abc", 10000), 10000)) > 0`,
		`any(1..900, {any(1..900, {any(1..900, {# < 0})})})`,
		`len(join(map(1..900000, string(#)), ",")) > 0`,
	} {
		done := make(chan error, 1)
		go func() { _, err := AsBool(src, Env{}); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "evaluation budget") {
				t.Errorf("%s: got %v, want the budget error", src, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no result in 30s", src)
		}
	}
	if ok, err := AsBool(`all(["a", "b"], # != "") && len(1..20) == 20`, Env{}); !ok || err != nil {
		t.Errorf("a small loop: %v %v", ok, err)
	}
}

// TestTooLong: a huge condition is refused before expr parses it (its parser recurses per
// level of nesting and slows down super-linearly).
func TestTooLong(t *testing.T) {
	for _, src := range []string{strings.Repeat("!", 500000) + "true", strings.Repeat("(", 1000000) + "true" + strings.Repeat(")", 1000000)} {
		_, err := Compile(src)
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(ce.Message, "too long") || len(ce.Error()) > 200 {
			t.Errorf("got %.200v", err)
		}
	}
}

// TestCompileOnceConcurrently: goroutines asking for the same new text at once get one
// program (config.Prepare compiles the shipped conditions while a resolution may ask for them).
func TestCompileOnceConcurrently(t *testing.T) {
	src := `os == "plan9" && which("compile-once-` + time.Now().Format(time.RFC3339Nano) + `")`
	const n = 8
	progs := make([]*Program, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			p, err := Compile(src)
			if err != nil {
				t.Error(err)
			}
			progs[i] = p
		}()
	}
	close(start)
	wg.Wait()
	for i, p := range progs {
		if p == nil || p != progs[0] {
			t.Fatalf("goroutine %d got program %p, goroutine 0 %p: compiled more than once", i, p, progs[0])
		}
	}
}
