package app

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/session"
)

// /model lists the configuration's models, marks the current one, and switching records
// pi's model_change entry and changes the session's model; an unknown one is refused.
func TestSwitchModel(t *testing.T) {
	h := newHarness(t)
	s, _ := h.open(Options{})
	ctx := context.Background()
	p, err := s.Pick(ctx, "model")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 2 || p.Items[0].Label != "local/small ✓" || p.Items[1].Arg != "local/big" {
		t.Fatalf("picker items %+v", p.Items)
	}
	r, err := s.Run(ctx, "model", "local/big")
	if err != nil {
		t.Fatal(err)
	}
	if st := s.State(); r.Text != "Model: local/big" || st.Model != "local/big" || st.ContextWindow != 9000 {
		t.Fatalf("result %+v, state %+v", r, st)
	}
	es := s.file.Entries()
	last := es[len(es)-1]
	b, _ := json.Marshal(last)
	if last.Type != "model_change" || !strings.Contains(string(b), `"modelId":"big"`) {
		t.Fatalf("last entry %s", b)
	}
	if _, err := s.Run(ctx, "model", "local/nope"); err == nil || err.Error() != "Model not found: local/nope" {
		t.Fatalf("an unknown model: %v", err)
	}
	if s.State().Model != "local/big" {
		t.Fatal("a failed switch changed the model")
	}
}

// /compact on a session with nothing to summarise ends with pi's error in compaction_end.
func TestCompactTooSmall(t *testing.T) {
	h := newHarness(t)
	ev := &events{}
	s, _ := h.open(Options{Frontend: ev})
	if err := s.Compact(context.Background()); err == nil {
		t.Fatal("compacted nothing")
	}
	evs := ev.all()
	if len(evs) != 2 || evs[0].Type != agent.EventCompactionStart || evs[0].Reason != "manual" {
		t.Fatalf("events %+v", evs)
	}
	if got := evs[1].ErrorMessage; got != "Compaction failed: Nothing to compact (session too small)" {
		t.Fatalf("compaction_end error %q", got)
	}
}

// /compact summarises the branch through the model, records the compaction in the session
// file and reports it in compaction_end with reason manual; a second /compact right after is
// pi's "Already compacted".
func TestCompact(t *testing.T) {
	h := newHarness(t)
	h.write(h.agent+"/settings.json", `{"retry": {"enabled": false}, "compaction": {"keepRecentTokens": 10}}`)
	ev := &events{}
	s, _ := h.open(Options{Frontend: ev})
	conversation(t, s, strings.Repeat("long prompt ", 200), strings.Repeat("more words ", 200), "last")
	h.srv.Push(llmtest.Turn{Text: "## Goal\nsummary of the work"}, llmtest.Turn{Text: "prefix summary"})
	if err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs := ev.all()
	if len(evs) != 2 || evs[1].Type != agent.EventCompactionEnd || evs[1].Reason != "manual" || evs[1].Compaction == nil {
		t.Fatalf("events %+v", evs)
	}
	if !strings.HasPrefix(evs[1].Compaction.Summary, "## Goal\nsummary of the work") || evs[1].Compaction.TokensBefore == 0 {
		t.Fatalf("compaction %+v", evs[1].Compaction)
	}
	es := s.file.Entries()
	if last := es[len(es)-1]; last.Type != session.TypeCompaction {
		t.Fatalf("last entry %s", last.Type)
	}
	// The agent continues from the compacted context.
	if msgs := s.Messages(); len(msgs) == 0 || !strings.Contains(msgs[0].Text(), "summary of the work") {
		t.Fatalf("the agent's context after compaction: %+v", msgs)
	}
	if err := s.Compact(context.Background()); err == nil || ev.all()[3].ErrorMessage != "Compaction failed: Already compacted" {
		t.Fatalf("second compact: %v %+v", err, ev.all())
	}
}

// /fork offers the user messages (the newest selected) and continues in a new file holding the
// path before the chosen one, whose parentSession is the old file; its text goes back to the
// editor. Forking from the first message starts an empty session.
func TestFork(t *testing.T) {
	h := newHarness(t)
	s, _ := h.open(Options{})
	ctx := context.Background()
	ids := conversation(t, s, "first\nmore", "second")
	p, _ := s.Pick(ctx, "fork")
	if len(p.Items) != 2 || p.Items[0].Label != "first" || p.Items[1].Arg != ids[1] || p.Current != 1 {
		t.Fatalf("picker %+v", p)
	}
	old := s.Path()
	r, err := s.Run(ctx, "fork", ids[1])
	if err != nil || r.Input != "second" || !r.Reset || r.Text != "Forked to new session" {
		t.Fatalf("fork: %+v %v", r, err)
	}
	if s.Path() == old || s.Header().ParentSession != old {
		t.Fatalf("new file %s parent %q (old %s)", s.Path(), s.Header().ParentSession, old)
	}
	// The model and thinking level entries the session started with, and the first exchange.
	if n := len(s.file.Entries()); n != 4 || len(s.Messages()) != 2 {
		t.Fatalf("the fork has %d entries, want the first exchange", n)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("the old file: %v", err)
	}
	if got := s.tools.Env.SessionID; got != s.Header().ID {
		t.Fatalf("the tools' PI_SESSION_ID %q is not the fork's %q", got, s.Header().ID)
	}
	if text, err := s.Fork(ids[0]); err != nil || text != "first\nmore" || len(s.Messages()) != 0 {
		t.Fatalf("fork from the first message: %q %v, %d messages", text, err, len(s.Messages()))
	}
	if _, err := s.Fork("nope"); err == nil || err.Error() != "Invalid entry ID for forking" {
		t.Fatalf("bad id: %v", err)
	}
	if p, _ := s.Pick(ctx, "fork"); len(p.Items) != 0 || p.Empty != "No messages to fork from" {
		t.Fatalf("empty picker %+v", p)
	}
}

// /resume lists this cwd's sessions newest first and continues the chosen file with its
// model.
func TestResume(t *testing.T) {
	h := newHarness(t)
	s, _ := h.open(Options{})
	ctx := context.Background()
	conversation(t, s, "current work")
	other := session.New(h.proj, s.file.Dir(), session.Options{})
	if _, err := other.AppendModelChange("local", "big"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"older\nwork", "again"} {
		other.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(p)}, Timestamp: 1})
		other.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("re " + p)}, Provider: "local", Model: "big",
			StopReason: llm.StopStop, Timestamp: 2})
	}
	otherPath := other.Path()
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := s.Pick(ctx, "resume")
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, it := range p.Items {
		labels = append(labels, it.Label)
	}
	if p.Title != "Resume Session (Current Folder)" || len(p.Items) != 2 || !strings.Contains(strings.Join(labels, "|"), "older · 4 messages") {
		t.Fatalf("picker %+v", p)
	}
	r, err := s.Run(ctx, "resume", otherPath)
	if err != nil || r.Text != "Resumed session" || !r.Reset {
		t.Fatalf("resume: %+v %v", r, err)
	}
	if s.Path() != otherPath || len(s.file.Entries()) != 5 || len(s.Messages()) != 4 {
		t.Fatalf("resumed %s with %d entries", s.Path(), len(s.file.Entries()))
	}
	if st := s.State(); st.Model != "local/big" || st.Thinking != "off" {
		t.Fatalf("restored %+v", st)
	}
}

// /tree shows the file's entries with branches indented and the leaf selected; choosing a
// user message moves the leaf to before it (its text for the editor), another entry moves
// the leaf onto it.
func TestTree(t *testing.T) {
	h := newHarness(t)
	s, _ := h.open(Options{})
	ctx := context.Background()
	ids := conversation(t, s, "one", "two")
	if _, err := s.Navigate(ids[1]); err != nil { // back to before "two"
		t.Fatal(err)
	}
	conversation(t, s, "three")
	p, _ := s.Pick(ctx, "tree")
	var lines []string
	for _, it := range p.Items {
		lines = append(lines, it.Label)
	}
	want := "user: one|assistant: re one|  user: two|  assistant: re two|  user: three|  assistant: re three"
	if got := strings.Join(lines, "|"); got != want || p.Current != 5 {
		t.Fatalf("tree %q current %d\nwant %q", got, p.Current, want)
	}
	if r, _ := s.Run(ctx, "tree", p.Items[5].Arg); r.Text != "Already at this point" {
		t.Fatalf("to the leaf: %+v", r)
	}
	r, err := s.Run(ctx, "tree", p.Items[3].Arg) // "re two"
	if err != nil || r.Input != "" || s.Leaf() != p.Items[3].Arg || r.Text != "Navigated to selected point" {
		t.Fatalf("to an assistant entry: %+v %v leaf %s", r, err, s.Leaf())
	}
	if len(s.Messages()) != 4 {
		t.Fatalf("the agent continues from %d messages, want 4", len(s.Messages()))
	}
	if text, err := s.Navigate(ids[0]); err != nil || text != "one" || len(s.Messages()) != 0 {
		t.Fatalf("to the first prompt: %q %v, %d messages", text, err, len(s.Messages()))
	}
	if _, err := s.Navigate("nope"); err == nil || err.Error() != "Entry nope not found" {
		t.Fatalf("bad id: %v", err)
	}
}

// /new starts a new file with the model and thinking level; /name names the session.
func TestNewAndName(t *testing.T) {
	h := newHarness(t)
	s, _ := h.open(Options{})
	ctx := context.Background()
	conversation(t, s, "hello")
	old := s.Header().ID
	if r, err := s.Run(ctx, "new", ""); err != nil || r.Text != "New session started" || !r.Reset {
		t.Fatalf("new: %+v %v", r, err)
	}
	if s.Header().ID == old || len(s.Messages()) != 0 || len(s.file.Entries()) != 2 {
		t.Fatalf("new session %s, %d messages", s.Header().ID, len(s.Messages()))
	}
	if r, _ := s.Run(ctx, "name", ""); r.Text != "Usage: /name <name>" {
		t.Fatalf("name: %+v", r)
	}
	s.Run(ctx, "name", "my work")
	if r, _ := s.Run(ctx, "name", ""); r.Text != "Session name: my work" {
		t.Fatalf("name: %+v", r)
	}
}
