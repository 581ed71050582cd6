package app

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// TestOpenWarmsTheTools: a session's start builds the tools' model schemas and pi's estimate
// of their length on another goroutine, so the first request finds them made. The memo is
// first pointed at other tools; after Open (and the goroutine) it holds the session's. Not
// parallel: the memo is the process's.
func TestOpenWarmsTheTools(t *testing.T) {
	h := newHarness(t)
	llm.WarmToolsLen([]llm.Tool{{Name: "not-a-session-tool", Description: "x"}})
	s, _ := h.open(Options{}, "read", "bash", "edit")
	defer s.Close()
	if s.warmed == nil {
		t.Fatal("Open did not warm the tools")
	}
	select {
	case <-s.warmed:
	case <-time.After(10 * time.Second):
		t.Fatal("the warm-up did not end")
	}
	tools := s.agentTools().LLMTools()
	if len(tools) == 0 {
		t.Fatal("no tools offered")
	}
	if !llm.ToolsLenKnown(tools) {
		t.Error("the tools' length is not memoised after the warm-up")
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if got := s.runner.OfferedNames(); !slices.Equal(got, names) {
		t.Errorf("OfferedNames %v, LLMTools %v", got, names)
	}
}

// TestPromptWarmsTheSandbox: a prompt of a session whose model may call bash starts, once,
// the sandbox's warm-up on another goroutine (sandbox.Warm, through toolkit.WarmSandbox);
// a session without bash starts none.
func TestPromptWarmsTheSandbox(t *testing.T) {
	h := newHarness(t)
	s, _ := h.open(Options{}, "read", "bash")
	defer s.Close()
	if s.sandboxWarmed != nil {
		t.Fatal("warmed before any prompt")
	}
	h.srv.Push(llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	if _, err := s.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	first := s.sandboxWarmed
	if first == nil {
		t.Fatal("the prompt did not warm the sandbox")
	}
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("the warm-up did not end")
	}
	if _, err := s.Prompt(context.Background(), "again", nil); err != nil {
		t.Fatal(err)
	}
	if s.sandboxWarmed != first {
		t.Error("a second prompt warmed again")
	}

	h2 := newHarness(t)
	s2, _ := h2.open(Options{}, "read")
	defer s2.Close()
	h2.srv.Push(llmtest.Turn{Text: "one"})
	if _, err := s2.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	if s2.sandboxWarmed != nil {
		t.Error("a session without bash warmed the sandbox")
	}
}
