package app

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/talk"
	"github.com/pigo-agent/pigo/internal/toolrun"
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

// TestTalkStartsWhileReplaying: a continued session's talk helper starts while the tools'
// read state is replayed from the branch, and both are done when Open returns: the files read
// are known to the tools and the session is registered. A helper that cannot start fails
// Open as it did when it started before the replay.
func TestTalkStartsWhileReplaying(t *testing.T) {
	h := newHarness(t)
	db := filepath.Join(h.root, "talk.db")
	env := func(k string) string {
		if k == "PI_TALK_DB" {
			return db
		}
		return ""
	}
	s, _ := h.open(Options{Getenv: env}, "read", "talk-list-agents")
	read := filepath.Join(h.proj, "a.txt")
	digest := strings.Repeat("ab", 32)
	details, _ := json.Marshal(map[string]any{"reads": map[string]any{toolrun.ReadKey(read): map[string]any{"digest": digest, "textEditable": true}}})
	isErr := false
	for _, m := range []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("read a.txt")}, Timestamp: 1},
		{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.TypeToolCall, ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a.txt"}`)}},
			API: "openai-completions", Provider: "local", Model: "small", StopReason: llm.StopToolUse, Timestamp: 1},
		{Role: llm.RoleToolResult, ToolCallID: "c1", ToolName: "read", Content: []llm.Content{llm.TextBlock("x")}, Details: details, IsError: &isErr, Timestamp: 1},
		{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("done")}, API: "openai-completions", Provider: "local", Model: "small", StopReason: llm.StopStop, Timestamp: 1},
	} {
		if _, err := s.file.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	id, loc := s.file.ID(), s.o.Session.Location
	s.Close()

	s2, _ := h.open(Options{Getenv: env, Session: SessionSpec{Location: loc, Continue: true}}, "read", "talk-list-agents")
	if snap, ok := s2.tools.Reads("opencode").Get(read); !ok || snap.Digest != digest {
		t.Fatalf("the read state was not replayed: %+v %v", snap, ok)
	}
	if r := record(t, db, id); r == nil || r.Offline || !talk.Live(*r) {
		t.Fatalf("a continued session is not registered (live) at start: %+v", r)
	}
	s2.Close()

	// A mailbox that cannot be opened (its directory is a file): Open fails with talk's error.
	blocked := filepath.Join(h.root, "blocked")
	h.write(blocked, "a file")
	db = filepath.Join(blocked, "talk.db")
	c := &testConfig{h: h, tools: []string{"read", "talk-list-agents"}}
	st, err := c.load("local/small")
	if err != nil {
		t.Fatal(err)
	}
	if s3, err := Open(Options{Config: c, Setup: st, Getenv: env, Session: SessionSpec{Location: loc, Continue: true}}); err == nil || !strings.Contains(err.Error(), "talk") {
		if s3 != nil {
			s3.Close()
		}
		t.Fatalf("a talk helper that cannot start: Open gave %v", err)
	}
}

// TestReplayInputsSameState: replaying only the messages toolrun.ReplayInput takes (what
// start gathers: gatherBranch) leaves every tool's state as replaying the whole branch does: the read state
// of both file toolsets, codemode's store and the TodoWrite list, over random branches of
// reads, edits, writes, codemode stores and todo lists among results without details, calls
// and prompts.
func TestReplayInputsSameState(t *testing.T) {
	h := newHarness(t)
	s, _ := h.open(Options{}, "read")
	r := rand.New(rand.NewSource(8))
	isErr, isOK := true, false
	detail := func() json.RawMessage {
		path := filepath.Join(h.proj, fmt.Sprint("f", r.Intn(4)))
		var v any
		switch r.Intn(5) {
		case 0:
			v = map[string]any{"reads": map[string]any{toolrun.ReadKey(path): map[string]any{"digest": strings.Repeat(fmt.Sprint(r.Intn(10)), 64), "textEditable": r.Intn(2) == 0}}}
		case 1:
			v = map[string]any{"diff": "-a\n+b"}
		case 2:
			v = map[string]any{"store": map[string]any{"set": map[string]any{fmt.Sprint("k", r.Intn(3)): r.Intn(9)}, "delete": []string{fmt.Sprint("k", r.Intn(3))}}}
		case 3:
			v = map[string]any{"todos": []any{map[string]any{"content": fmt.Sprint("t", r.Intn(9)), "status": "pending", "activeForm": "doing"}}}
		default:
			return nil
		}
		b, _ := json.Marshal(v)
		return b
	}
	state := func(ts *toolrun.Session) string {
		var b strings.Builder
		for _, set := range []string{"opencode", "claude-code"} {
			for i := range 4 {
				snap, ok := ts.Reads(set).Get(filepath.Join(h.proj, fmt.Sprint("f", i)))
				fmt.Fprintf(&b, "%s %d %v %+v\n", set, i, ok, snap)
			}
		}
		// The packages' own replayed state (codemode's store, the TodoWrite list): each value
		// of the session's state map as fmt prints what it points to, in key order.
		var vals []string
		it := reflect.ValueOf(ts).Elem().FieldByName("state").MapRange()
		for it.Next() {
			vals = append(vals, fmt.Sprintf("%T %+v", it.Key(), it.Value().Elem()))
		}
		slices.Sort(vals)
		b.WriteString(strings.Join(vals, "\n"))
		return b.String()
	}
	for range 300 {
		var all []*llm.Message
		for range r.Intn(40) {
			switch r.Intn(4) {
			case 0:
				all = append(all, &llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("q")}})
			case 1:
				all = append(all, &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.TypeToolCall, ID: "c", Name: "read"}}})
			default:
				m := &llm.Message{Role: llm.RoleToolResult, ToolCallID: "c", Content: []llm.Content{llm.TextBlock("x")}, Details: detail(), IsError: &isOK,
					ToolName: []string{"read", "edit", "write", "Read", "Edit", "codemode", "TodoWrite", "bash"}[r.Intn(8)]}
				if r.Intn(6) == 0 {
					m.IsError = &isErr
				}
				all = append(all, m)
			}
		}
		var inputs []*llm.Message
		for _, m := range all {
			if toolrun.ReplayInput(m) {
				inputs = append(inputs, m)
			}
		}
		s.tools.Replay(all)
		want := state(s.tools)
		s.tools.Replay(inputs)
		if got := state(s.tools); got != want {
			t.Fatalf("replaying the inputs only:\n%s\nthe whole branch:\n%s", got, want)
		}
	}
}

// TestGatherBranch: the one walk start makes of the branch's entries finds what the walks it
// replaced found: whether a thinking_level_change entry is on it, and the messages of its
// message entries that the replay reads, in order; over random branches of every entry type.
func TestGatherBranch(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for range 500 {
		var branch []*session.Entry
		for range r.Intn(30) {
			e := &session.Entry{Type: []string{session.TypeMessage, session.TypeThinkingLevelChange, session.TypeModelChange, session.TypeLabel}[r.Intn(4)]}
			if e.Type == session.TypeMessage && r.Intn(8) != 0 {
				m := &llm.Message{Role: []string{llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult}[r.Intn(3)]}
				if r.Intn(2) == 0 {
					m.Details = json.RawMessage(`{}`)
				}
				e.Message = &session.Message{LLM: m}
			}
			branch = append(branch, e)
		}
		wantThinking := false
		var wantReplay []*llm.Message
		for _, e := range branch {
			if e.Type == session.TypeThinkingLevelChange {
				wantThinking = true
			}
			if e.Type == session.TypeMessage && e.Message != nil && e.Message.LLM != nil && toolrun.ReplayInput(e.Message.LLM) {
				wantReplay = append(wantReplay, e.Message.LLM)
			}
		}
		got := gatherBranch(branch)
		if got.thinkingLevel != wantThinking || !slices.Equal(got.replay, wantReplay) {
			t.Fatalf("gathered %v %v, want %v %v", got.thinkingLevel, got.replay, wantThinking, wantReplay)
		}
	}
}
