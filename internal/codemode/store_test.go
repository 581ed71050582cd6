package codemode_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// record appends a codemode call and its result to a session, as `pigo tool run --session`
// and the agent loop do.
func record(t *testing.T, s *session.Session, id, code string, r toolrun.Result) string {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"code": code})
	if _, err := s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.TypeToolCall, ID: id, Name: "codemode", Arguments: args}},
		StopReason: llm.StopToolUse, Usage: &llm.Usage{}, Timestamp: time.Now().UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	isErr := r.IsError
	leaf, err := s.AppendMessage(llm.Message{Role: llm.RoleToolResult, ToolCallID: id, ToolName: "codemode", Content: r.Content,
		Details: r.Details, IsError: &isErr, Timestamp: time.Now().UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

func branch(s *session.Session, leaf string) []*llm.Message {
	var msgs []*llm.Message
	for _, e := range s.Branch(leaf) {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.LLM != nil {
			msgs = append(msgs, e.Message.LLM)
		}
	}
	return msgs
}

// The store is the replay of details.store on the branch: it survives a fork (a new
// session file, a new process's session) and does not leak into a branch made before the
// write.
func TestStoreSurvivesFork(t *testing.T) {
	e := newEnv(t, "")
	dir := filepath.Join(t.TempDir(), "sessions")
	s := session.New(e.dir, dir, session.Options{})
	defer s.Close()

	code1 := `store.set("b", [1, 2]); store.set("a", {x: 1}); store.set("gone", 1); store.set("gone", undefined); return store.list()`
	r1 := e.run(context.Background(), code1)
	if r1.Text() != "\n\n[\n  \"a\",\n  \"b\"\n]" {
		t.Fatalf("first run: %q", r1.Text())
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(r1.Details, &raw); err != nil {
		t.Fatal(err)
	}
	if got := string(raw["store"]); got != `{"set":{"b":[1,2],"a":{"x":1}},"delete":["gone"]}` {
		t.Fatalf("details.store %s", got)
	}
	leaf1 := record(t, s, "c1", code1, r1)
	code2 := `store.set("a", {x: 2}); return store.get("a").x`
	r2 := e.run(context.Background(), code2)
	if r2.Text() != "\n\n2" {
		t.Fatalf("same session: %q", r2.Text())
	}
	record(t, s, "c2", code2, r2)

	f, err := session.Fork(s.Path(), e.dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fresh := newEnv(t, "")
	fresh.s.Replay(branch(f, ""))
	if r := fresh.run(context.Background(), `return [store.get("a"), store.get("b"), store.list()]`); r.Text() != "\n\n[\n  {\n    \"x\": 2\n  },\n  [\n    1,\n    2\n  ],\n  [\n    \"a\",\n    \"b\"\n  ]\n]" {
		t.Fatalf("after fork: %q", r.Text())
	}
	// Back on the branch before the second write: a is {x: 1} again.
	fresh.s.Replay(branch(f, leaf1))
	if r := fresh.run(context.Background(), `return store.get("a").x`); r.Text() != "\n\n1" {
		t.Fatalf("earlier branch: %q", r.Text())
	}
	// A failed run persists nothing.
	r := fresh.run(context.Background(), `store.set("c", 1); throw new Error("no")`)
	if detailsOf(t, r).Store != nil {
		t.Fatal("a failed run recorded store writes")
	}
	if r := fresh.run(context.Background(), `return store.get("c") === undefined`); r.Text() != "\n\ntrue" {
		t.Fatalf("failed write kept: %q", r.Text())
	}
}

func TestStoreLimits(t *testing.T) {
	e := newEnv(t, "")
	r := e.run(context.Background(), `const out = [];
for (const f of [() => store.set(1, 2), () => store.get(null), () => store.set("k", () => 1), () => store.set("big", "x".repeat(262144)),
  () => { for (let i = 0; i < 5; i++) store.set("k" + i, "x".repeat(250000)) }]) {
  try { f() } catch (e) { out.push(e.name + ": " + e.message) }
}
return out`)
	want := "\n\n[\n  \"TypeError: store.set() key must be a string\",\n  \"TypeError: store.get() key must be a string\",\n" +
		"  \"TypeError: store.set(\\\"k\\\") value is not JSON-serializable\",\n" +
		"  \"RangeError: store.set(\\\"big\\\") value exceeds 262144 characters of JSON\",\n" +
		"  \"RangeError: store is full: stored values would exceed 1048576 characters of JSON\"\n]"
	if r.Text() != want {
		t.Fatalf("%q\nwant %q", r.Text(), want)
	}
}
