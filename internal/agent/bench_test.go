package agent

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
)

// instantProvider answers at once with a short streamed reply: what is measured is the loop,
// not a model.
type instantProvider struct{}

func (instantProvider) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	final := &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("ok")}, API: m.API, Provider: m.Provider,
		Model: m.ID, Usage: &llm.Usage{Input: 100, Output: 1, TotalTokens: 101}, StopReason: llm.StopStop, Timestamp: 1}
	i := 0
	partial := &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{}, Usage: &llm.Usage{}}
	emit(llm.Event{Type: llm.EventStart, Partial: partial})
	p2 := &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("ok")}, Usage: &llm.Usage{}}
	emit(llm.Event{Type: llm.EventTextStart, ContentIndex: &i, Partial: p2})
	emit(llm.Event{Type: llm.EventTextDelta, ContentIndex: &i, Delta: "ok", Partial: p2})
	emit(llm.Event{Type: llm.EventTextEnd, ContentIndex: &i, Partial: p2})
	emit(llm.Event{Type: llm.EventDone, Reason: llm.StopStop, Message: final})
	return final
}

func filledStore(n int) *MemStore {
	s := &MemStore{}
	for i := 0; i < n; i++ {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		s.AppendMessage(llm.Message{Role: role, Content: []llm.Content{llm.TextBlock(fmt.Sprintf("message %d with some words in it", i))}, Timestamp: int64(i)})
	}
	return s
}

// BenchmarkTurn200 is the loop's own cost of one prompt-and-reply turn at 200 messages of
// context (provider and tools cost nothing here): context build, events, bookkeeping,
// compaction and retry checks. Target: under 1 ms.
func BenchmarkTurn200(b *testing.B) {
	cfg := Config{Provider: instantProvider{}, Model: testModel, SystemPrompt: "sys", Settings: DefaultSettings(), Emit: func(Event) {}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cfg.Store = filledStore(200)
		b.StartTimer()
		a := New(cfg)
		if _, err := a.Prompt(context.Background(), "next"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTurn200Session is BenchmarkTurn200 recording into a real session file (each entry
// one fsync'd append), the store a `pigo -p` run uses.
func BenchmarkTurn200Session(b *testing.B) {
	s := session.New(b.TempDir(), b.TempDir(), session.Options{})
	for i := 0; i < 200; i++ {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		s.AppendMessage(llm.Message{Role: role, Content: []llm.Content{llm.TextBlock(fmt.Sprintf("message %d with some words in it", i))}, Timestamp: int64(i)})
	}
	defer s.Close()
	a := New(Config{Provider: instantProvider{}, Model: testModel, SystemPrompt: "sys", Settings: DefaultSettings(), Store: SessionStore(s), Emit: func(Event) {}})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := a.Prompt(context.Background(), "next"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSession1000Turns runs a 1,000-turn session in memory and reports the live heap it
// leaves (the transcript, the store and the agent) and the time per turn.
func BenchmarkSession1000Turns(b *testing.B) {
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		a := New(Config{Provider: instantProvider{}, Model: testModel, SystemPrompt: "sys", Settings: DefaultSettings(), Emit: func(Event) {}})
		for t := 0; t < 1000; t++ {
			if _, err := a.Prompt(context.Background(), "another prompt of a few words"); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-live")
		b.ReportMetric(float64(len(a.Messages())), "messages")
		runtime.KeepAlive(a)
	}
}
