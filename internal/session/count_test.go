package session

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

// TestInfoCountsEveryMessageEntry: `pigo session list` counts every message entry of the file,
// abandoned branches too, as pi's session picker does (it counted the current branch).
func TestInfoCountsEveryMessageEntry(t *testing.T) {
	dir := t.TempDir()
	s := New(t.TempDir(), dir, Options{})
	u1, err := s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("first")}, Timestamp: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("a")}, Timestamp: 2, StopReason: llm.StopStop}); err != nil {
		t.Fatal(err)
	}
	// Back to the first prompt and a second answer: a branch of 2 in a file of 3 messages.
	if err := s.SetLeaf(u1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("b")}, Timestamp: 3, StopReason: llm.StopStop}); err != nil {
		t.Fatal(err)
	}
	p := s.Path()
	s.Close()
	info, err := ReadInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Messages != 3 {
		t.Fatalf("Messages = %d, want 3 (every message entry)", info.Messages)
	}
}
