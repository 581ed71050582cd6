package toolrun

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/llm"
)

// registry resolves pi's read and an opencode read plus a structured codemode-only tool.
func registry(t *testing.T) *engine.Result {
	params := json.RawMessage(`{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}`)
	in := &engine.Input{Extensions: []engine.Extension{
		{Source: engine.Source{Kind: engine.KindBuiltin, Name: "pi"}, Tools: []engine.Tool{
			{Name: "read", Description: "pi read", Parameters: params},
			{Name: "bash", Description: "pi bash", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "grep", Description: "pi grep"},
		}},
		{Source: engine.Source{Kind: engine.KindExtension, Name: "x", File: "x.json"}, Tools: []engine.Tool{
			{Name: "boom", Description: "panics", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "stats", Description: "structured", Structured: true, CodemodeOnly: true,
				Parameters: json.RawMessage(`{"type":"object"}`), Output: json.RawMessage(`{"type":"object"}`), Exec: []string{"true"}},
			{Name: "plain", Description: "no exec", Parameters: json.RawMessage(`{"type":"object"}`)},
		}},
	}}
	return engine.Resolve(in)
}

func TestRunnerBindingAndList(t *testing.T) {
	var impls Impls
	impls.Register("pi", "read", Impl{Execute: func(_ context.Context, inv *Invocation) (Result, error) {
		var a struct{ Path string }
		inv.Decode(&a)
		return TextResult("pi read "+a.Path, nil), nil
	}})
	impls.Register("opencode", "read", Impl{Execute: func(context.Context, *Invocation) (Result, error) {
		return TextResult("opencode read", nil), nil
	}})
	impls.Register("pi", "bash", Impl{Execute: func(context.Context, *Invocation) (Result, error) {
		return Result{}, errors.New("thrown")
	}})
	impls.Exec = &Impl{Execute: func(_ context.Context, inv *Invocation) (Result, error) {
		return Result{Content: []llm.Content{llm.TextBlock("exec " + strings.Join(inv.Tool.Exec, " "))}, Structured: json.RawMessage(`{}`)}, nil
	}}
	reg := registry(t)
	r := New(reg, &impls, &Session{Cwd: "/w"})
	ctx := context.Background()
	run := func(name, args string) Result {
		return r.Run(ctx, Call{ID: "1", Name: name, Arguments: json.RawMessage(args)}, nil)
	}
	if res := run("read", `{"path":5}`); res.IsError || res.Text() != "pi read 5" {
		t.Errorf("read: %+v", res)
	}
	if res := run("bash", `{}`); !res.IsError || res.Text() != "thrown" || string(res.Details) != "{}" {
		t.Errorf("thrown error: %+v", res)
	}
	if res := run("grep", `{}`); !res.IsError || res.Text() != "Tool grep not found" {
		t.Errorf("inactive tool: %q", res.Text())
	}
	if res := run("stats", `{}`); res.IsError || res.Text() != "exec true" {
		t.Errorf("codemode-only exec tool: %+v", res)
	}
	if res := run("plain", `{}`); !res.IsError || !strings.Contains(res.Text(), `has no "exec" argv template`) {
		t.Errorf("no exec: %q", res.Text())
	}
	if res := run("boom", `{}`); !res.IsError || !strings.Contains(res.Text(), "cannot run") {
		t.Errorf("boom without impl: %q", res.Text())
	}
	// A declaration without an implementation is never offered to the model.
	tools := r.LLMTools()
	var names, want, missing []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	for _, n := range reg.Active {
		if n != "boom" && n != "plain" {
			want = append(want, n)
		}
	}
	for _, tl := range r.Unimplemented() {
		missing = append(missing, tl.Name)
	}
	if strings.Join(names, ",") != strings.Join(want, ",") || tools[0].Description != "pi read" || !json.Valid(tools[0].Parameters) {
		t.Errorf("LLMTools: %+v (active %v)", names, reg.Active)
	}
	if strings.Join(missing, ",") != "boom,plain" {
		t.Errorf("Unimplemented: %v", missing)
	}
}

func TestRunnerRecoversPanics(t *testing.T) {
	var impls Impls
	impls.Register("pi", "read", Impl{Execute: func(context.Context, *Invocation) (Result, error) { panic("index out of range") }})
	impls.Register("pi", "bash", Impl{Prepare: func(*Value) *Value { panic("bad prepare") },
		Execute: func(context.Context, *Invocation) (Result, error) { return Result{}, nil }})
	var logged string
	r := New(registry(t), &impls, &Session{PanicLog: func(tool string, v any, _ []byte) { logged = tool }})
	res := r.Run(context.Background(), Call{Name: "read", Arguments: json.RawMessage(`{"path":"x"}`)}, nil)
	if !res.IsError || res.Text() != "Tool read failed: index out of range" || logged != "read" {
		t.Errorf("execute panic: %+v %q", res, logged)
	}
	res = r.Run(context.Background(), Call{Name: "bash", Arguments: json.RawMessage(`{}`)}, nil)
	if !res.IsError || res.Text() != "Tool bash failed: bad prepare" {
		t.Errorf("prepare panic: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := r.Run(ctx, Call{Name: "read", Arguments: json.RawMessage(`{"path":"x"}`)}, nil); res.Text() != "Operation aborted" {
		t.Errorf("aborted before execute: %q", res.Text())
	}
}

// TestNewAllocations: binding a registry allocates its declarations and their
// implementations as one array each, not an object, an implementation copy and a compile
// closure per tool (~90 tools in a session's registry); the schema is still compiled on the
// first call, once.
func TestNewAllocations(t *testing.T) {
	var tools []engine.Tool
	var impls Impls
	for i := range 60 {
		name := "t" + strconv.Itoa(i)
		tools = append(tools, engine.Tool{Name: name, Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
		impls.Register("pi", name, Impl{Execute: func(_ context.Context, inv *Invocation) (Result, error) {
			return TextResult(string(inv.Args), nil), nil
		}})
	}
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	reg := engine.Resolve(&engine.Input{Extensions: []engine.Extension{{Source: engine.Source{Kind: engine.KindBuiltin, Name: "pi"}, Tools: tools}}, DefaultTools: names})
	// The runner, its map (and buckets), order, active and callable lists, the two arrays.
	if n := testing.AllocsPerRun(20, func() { New(reg, &impls, nil) }); n > 16 {
		t.Fatalf("New allocates %v times for %d tools", n, len(tools))
	}
	r := New(reg, &impls, nil)
	for range 2 {
		if res := r.Run(context.Background(), Call{ID: "1", Name: "t7", Arguments: json.RawMessage(`{"a":5}`)}, nil); res.IsError || res.Text() != `{"a":"5"}` {
			t.Fatalf("call: %+v", res)
		}
	}
	if res := r.Run(context.Background(), Call{ID: "1", Name: "t7", Arguments: json.RawMessage(`{"a":[]}`)}, nil); !res.IsError {
		t.Fatalf("invalid arguments accepted: %+v", res)
	}
}
