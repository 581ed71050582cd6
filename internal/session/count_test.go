package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestReadInfoSkimsOldVersions: a version 1 or 2 file is listed by the same skim as a current
// one, not migrated and decoded whole (which made a listing of a thousand old sessions take
// 24 s of CPU): its allocations do not grow with its entries.
func TestReadInfoSkimsOldVersions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, header string, n int) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := range n {
			fmt.Fprintf(&b, `{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"prompt %d"}],"timestamp":%d}}`+"\n", i, 1735689600000+i)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, header := range []string{
		`{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"session","version":2,"id":"s2","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`,
	} {
		small, large := write("small.jsonl", header, 10), write("large.jsonl", header, 2000)
		allocs := func(p string) float64 {
			return testing.AllocsPerRun(3, func() {
				if in, err := ReadInfo(p); err != nil || in.FirstMessage != "prompt 0" {
					t.Fatalf("ReadInfo: %+v, %v", in, err)
				}
			})
		}
		if a, b := allocs(small), allocs(large); b > a+10 {
			t.Errorf("%s: ReadInfo allocates %.0f times for 10 entries and %.0f for 2,000: the file is decoded whole", header, a, b)
		}
	}
}
