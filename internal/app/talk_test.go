package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/talk"
)

// A new session with the talk tools does not open the mailbox until a talk tool runs (nobody
// can see it before it joins a group, so its record would only cost each run an SQLite open
// and fsyncs); the tool's call starts it, registered under the session id, and Close marks
// it offline. A continued session registers at once: its group may be waiting for it.
func TestTalkStartsOnFirstUse(t *testing.T) {
	h := newHarness(t)
	db := filepath.Join(h.root, "talk.db")
	env := func(k string) string {
		if k == "PI_TALK_DB" {
			return db
		}
		return ""
	}
	s, _ := h.open(Options{Getenv: env}, "talk-list-agents", "talk-send")
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("a new session opened the talk mailbox at start: %v", err)
	}
	if _, ok := s.Lookup("talk-group-list"); !ok {
		t.Fatal("/talk-group-list is not offered before talk started")
	}
	h.srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "talk-list-agents", Args: `{}`}}}, llmtest.Turn{Text: "Listed."})
	if _, err := s.Prompt(context.Background(), "who is there", nil); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), `\"self\": true`) {
		t.Fatalf("talk-list-agents did not list the session itself: %d requests\n%s", len(reqs), reqs[len(reqs)-1].Body)
	}
	id, loc := s.file.ID(), s.o.Session.Location
	s.Close()
	if r := record(t, db, id); r == nil || !r.Offline {
		t.Fatalf("after Close the session is not offline: %+v", r)
	}

	// Continued: registered (live) before any tool runs.
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	s2, _ := h.open(Options{Getenv: env, Session: SessionSpec{Location: loc, Continue: true}}, "talk-list-agents", "talk-send")
	if s2.file.ID() != id {
		t.Fatalf("continued %s, want %s", s2.file.ID(), id)
	}
	if r := record(t, db, id); r == nil || r.Offline || !talk.Live(*r) {
		t.Fatalf("a continued session is not registered (live) at start: %+v", r)
	}
	s2.Close()
}

// record is the session's registry record in the mailbox at db, as another process reads it.
func record(t *testing.T, db, id string) *talk.Record {
	t.Helper()
	st, err := talk.OpenStore(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, values, err := st.Values("records")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		var r talk.Record
		if json.Unmarshal(v, &r) == nil && r.AgentID == id {
			return &r
		}
	}
	return nil
}
