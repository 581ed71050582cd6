package agent

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/session"
)

// The loop records into a real session file: messages as message entries, an overflow
// compaction as a compaction entry whose summary leads the context that is reopened.
func TestSessionStoreRecordsAndReopens(t *testing.T) {
	dir := t.TempDir()
	s := session.New(t.TempDir(), dir, session.Options{})
	p := &fakeProvider{}
	p.add(text("first answer"), failure("prompt is too long: 300000 tokens > 200000 maximum"), text("## Goal\nthe summary"), text("after"))
	a, _, _ := newTestAgent(t, p, nil, func(c *Config) {
		c.Store = SessionStore(s)
		c.Settings.Compaction.KeepRecentTokens = 1
	})
	a.Prompt(context.Background(), "first")
	last, _ := a.Prompt(context.Background(), "second")
	if last.Text() != "after" {
		t.Fatalf("last %q", last.Text())
	}
	if err := a.StoreErr(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	b, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"type":"compaction"`); n != 1 {
		t.Fatalf("%d compaction entries in\n%s", n, b)
	}
	re, err := session.Open(s.Path(), session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	msgs := SessionStore(re).Context()
	// The failed reply stays in the file after the summary, as in pi (providers skip errored
	// replies when they send the context).
	eq(t, "reopened context length", len(msgs), 4)
	eq(t, "failed reply kept", msgs[2].StopReason, "error")
	eq(t, "summary first", msgs[0].Text(), "The conversation history before this point was compacted into the following summary:\n\n<summary>\n## Goal\nthe summary\n</summary>")
	eq(t, "kept prompt", msgs[1].Text(), "second")
	eq(t, "reply", msgs[3].Text(), "after")
	if c := latestCompaction(SessionStore(re)); c == nil || c.Summary != "## Goal\nthe summary" {
		t.Fatalf("latest compaction %+v", c)
	}
}
