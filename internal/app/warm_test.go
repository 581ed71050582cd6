package app

import (
	"slices"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
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
