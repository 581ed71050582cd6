package agent

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// fakeProvider replays scripted replies in-process: each Stream call takes the next reply,
// streams it block by block as a real provider does, and records the context it was sent.
type fakeProvider struct {
	mu       sync.Mutex
	replies  []func(ctx context.Context, c *llm.Context) *llm.Message
	contexts []*llm.Context
	options  []llm.Options
}

func (f *fakeProvider) add(r ...func(ctx context.Context, c *llm.Context) *llm.Message) {
	f.replies = append(f.replies, r...)
}

func (f *fakeProvider) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	f.mu.Lock()
	cp := *c
	cp.Messages = append([]llm.Message(nil), c.Messages...)
	f.contexts = append(f.contexts, &cp)
	f.options = append(f.options, *o)
	var r func(ctx context.Context, c *llm.Context) *llm.Message
	if len(f.replies) > 0 {
		r, f.replies = f.replies[0], f.replies[1:]
	}
	f.mu.Unlock()
	if ctx.Err() != nil {
		return &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{}, API: m.API, Provider: m.Provider, Model: m.ID,
			Usage: &llm.Usage{}, StopReason: llm.StopAborted, ErrorMessage: "Request was aborted", Timestamp: 1}
	}
	if r == nil {
		return &llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: "no scripted reply", Provider: m.Provider, Model: m.ID}
	}
	final := r(ctx, c)
	final.Role, final.API, final.Provider, final.Model = llm.RoleAssistant, m.API, m.Provider, m.ID
	if final.Timestamp == 0 {
		final.Timestamp = time.Now().UnixMilli()
	}
	if final.Usage == nil {
		final.Usage = &llm.Usage{Input: 10, Output: 5, TotalTokens: 15}
	}
	if final.StopReason == llm.StopError || final.StopReason == llm.StopAborted {
		emit(llm.Event{Type: llm.EventError, Reason: final.StopReason, Error: final})
		return final
	}
	partial := &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{}, API: m.API, Provider: m.Provider, Model: m.ID, Usage: &llm.Usage{}}
	snap := func() *llm.Message {
		p := *partial
		p.Content = append([]llm.Content(nil), partial.Content...)
		return &p
	}
	emit(llm.Event{Type: llm.EventStart, Partial: snap()})
	for i, b := range final.Content {
		i := i
		switch b.Type {
		case llm.TypeText:
			partial.Content = append(partial.Content, llm.TextBlock(""))
			emit(llm.Event{Type: llm.EventTextStart, ContentIndex: &i, Partial: snap()})
			partial.Content[i].Text = b.Text
			emit(llm.Event{Type: llm.EventTextDelta, ContentIndex: &i, Delta: b.Text, Partial: snap()})
			t := b.Text
			emit(llm.Event{Type: llm.EventTextEnd, ContentIndex: &i, Content: &t, Partial: snap()})
		case llm.TypeThinking:
			partial.Content = append(partial.Content, llm.Content{Type: llm.TypeThinking})
			emit(llm.Event{Type: llm.EventThinkingStart, ContentIndex: &i, Partial: snap()})
			partial.Content[i].Thinking = b.Thinking
			emit(llm.Event{Type: llm.EventThinkingDelta, ContentIndex: &i, Delta: b.Thinking, Partial: snap()})
			t := b.Thinking
			emit(llm.Event{Type: llm.EventThinkingEnd, ContentIndex: &i, Content: &t, Partial: snap()})
		case llm.TypeToolCall:
			partial.Content = append(partial.Content, llm.Content{Type: llm.TypeToolCall, ID: b.ID, Name: b.Name})
			emit(llm.Event{Type: llm.EventToolCallStart, ContentIndex: &i, Partial: snap()})
			partial.Content[i].Arguments = b.Arguments
			emit(llm.Event{Type: llm.EventToolCallDelta, ContentIndex: &i, Delta: string(b.Arguments), Partial: snap()})
			tc := b
			emit(llm.Event{Type: llm.EventToolCallEnd, ContentIndex: &i, ToolCall: &tc, Partial: snap()})
		}
	}
	emit(llm.Event{Type: llm.EventDone, Reason: final.StopReason, Message: final})
	return final
}

func text(s string) func(context.Context, *llm.Context) *llm.Message {
	return func(context.Context, *llm.Context) *llm.Message {
		return &llm.Message{Content: []llm.Content{llm.TextBlock(s)}, StopReason: llm.StopStop}
	}
}

func failure(msg string) func(context.Context, *llm.Context) *llm.Message {
	return func(context.Context, *llm.Context) *llm.Message {
		return &llm.Message{Content: []llm.Content{}, StopReason: llm.StopError, ErrorMessage: msg}
	}
}

type call struct{ id, name, args string }

func calls(say string, cs ...call) func(context.Context, *llm.Context) *llm.Message {
	return func(context.Context, *llm.Context) *llm.Message {
		m := &llm.Message{StopReason: llm.StopToolUse}
		if say != "" {
			m.Content = append(m.Content, llm.TextBlock(say))
		}
		for _, c := range cs {
			m.Content = append(m.Content, llm.Content{Type: llm.TypeToolCall, ID: c.id, Name: c.name, Arguments: json.RawMessage(c.args)})
		}
		return m
	}
}

// recorder collects events.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) emit(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// types lists the event types, with the role of messages and the tool of tool events.
func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		s := e.Type
		switch {
		case e.Type == EventMessageUpdate:
			s += ":" + e.AssistantEvent.Type
		case e.Message != nil && (e.Type == EventMessageStart || e.Type == EventMessageEnd):
			s += ":" + e.Message.Role
		case e.ToolCallID != "":
			s += ":" + e.ToolCallID
		case e.Type == EventCompactionStart || e.Type == EventCompactionEnd:
			s += ":" + e.Reason
		}
		out = append(out, s)
	}
	return out
}

func (r *recorder) find(typ string) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

var testModel = &llm.Model{Provider: "local", ID: "m", API: "openai-completions", ContextWindow: 128000, MaxTokens: 16384}

// newTestAgent builds an agent with the fake provider, no real sleeping, and a fixed clock
// that still advances (timestamps must grow for the compaction checks).
func newTestAgent(t *testing.T, p *fakeProvider, tools []Tool, mod func(*Config)) (*Agent, *recorder, *[]time.Duration) {
	t.Helper()
	rec := &recorder{}
	var slept []time.Duration
	var mu sync.Mutex
	clock := time.UnixMilli(1_700_000_000_000)
	cfg := Config{Provider: p, Model: testModel, SystemPrompt: "sys", Tools: runnerOf(tools), Settings: DefaultSettings(), Emit: rec.emit,
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			clock = clock.Add(time.Millisecond)
			return clock
		},
		Sleep: func(ctx context.Context, d time.Duration) error {
			slept = append(slept, d)
			return ctx.Err()
		}}
	store := &MemStore{}
	store.Clock = func() int64 { return cfg.Now().UnixMilli() }
	cfg.Store = store
	if mod != nil {
		mod(&cfg)
	}
	return New(cfg), rec, &slept
}

// Tool is a test tool: a declaration and a Go function, bound into a real toolrun.Runner
// (runnerOf), the one execution path the loop drives.
type Tool struct {
	llm.Tool
	Sequential bool
	Execute    func(ctx context.Context, id string, args json.RawMessage, update func(Result)) (Result, error)
}

func runnerOf(tools []Tool) Tools {
	if tools == nil {
		return nil
	}
	var ts []*toolrun.Tool
	for _, t := range tools {
		ts = append(ts, toolrun.NewTool(t.Name, t.Description, t.Parameters, toolrun.Impl{Sequential: t.Sequential,
			Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
				return t.Execute(ctx, inv.Call.ID, inv.Args, inv.Progress)
			}}))
	}
	return toolrun.NewRunnerOf(&toolrun.Session{}, ts...)
}

func echoTool(name string, delay time.Duration) Tool {
	return Tool{Tool: llm.Tool{Name: name, Description: "echo", Parameters: json.RawMessage(`{"type":"object"}`)},
		Execute: func(ctx context.Context, id string, args json.RawMessage, update func(Result)) (Result, error) {
			if delay > 0 {
				select {
				case <-time.After(delay):
				case <-ctx.Done():
					return Result{}, ctx.Err()
				}
			}
			return Result{Content: []llm.Content{llm.TextBlock(name + " " + string(args))}, Details: json.RawMessage(`{}`)}, nil
		}}
}
