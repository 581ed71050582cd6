package agent

import (
	"fmt"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
)

// The check after every run finds a session's latest compaction without copying its branch
// when it has none (a long session's branch is ~75,000 entries), and finds the latest one
// when it has.
func TestLatestCompactionWithoutCopies(t *testing.T) {
	s := session.InMemory(t.TempDir())
	for i := range 1000 {
		s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(fmt.Sprint("q", i))}, Timestamp: 1})
	}
	st := SessionStore(s).(sessionStore)
	if n := testing.AllocsPerRun(10, func() {
		if st.LatestCompaction() != nil {
			t.Fatal("a compaction in a session without one")
		}
	}); n != 0 {
		t.Fatalf("%v allocations to find no compaction, want 0", n)
	}
	for i := range 2 {
		if err := st.AppendCompaction(Compaction{Summary: fmt.Sprint("sum", i), FirstKeptEntryID: s.Branch("")[990].ID, TokensBefore: 5}); err != nil {
			t.Fatal(err)
		}
		s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("after")}, Timestamp: 1})
		if c := st.LatestCompaction(); c == nil || c.Summary != fmt.Sprint("sum", i) {
			t.Fatalf("latest compaction %+v, want sum%d", c, i)
		}
	}
}
