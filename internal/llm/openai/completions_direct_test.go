package openai

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
)

// directModels are the models whose compat changes what convertRange writes for the shapes
// the Directs take, or turns them off.
var directModels = []*llm.Model{
	{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, MaxTokens: 32000, Input: []string{"text", "image"}},
	{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", MaxTokens: 32000},
	{Provider: "openrouter", ID: "anthropic/claude-sonnet-4", API: CompletionsAPI, BaseURL: "https://openrouter.ai/api/v1", Reasoning: true, MaxTokens: 32000},
	{Provider: "deepseek", ID: "deepseek-reasoner", API: CompletionsAPI, BaseURL: "https://api.deepseek.com", Reasoning: true, MaxTokens: 32000},
	{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Compat: json.RawMessage(`{"requiresToolResultName":true}`)},
	{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Compat: json.RawMessage(`{"requiresToolResultName":true,"requiresThinkingAsText":true}`)},
	{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Compat: json.RawMessage(`{"requiresAssistantAfterToolResult":true}`)},
	{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, Compat: json.RawMessage(`{"requiresReasoningContentOnAssistant":true}`)},
}

// directTexts gives some of the random contexts' texts what the session decoder records (their
// JSON form), and others text the plain random ones lack: several lines, escapes, invalid
// UTF-8, spaces only.
func directTexts(r *rand.Rand, msgs []llm.Message) {
	odd := []string{"a\x00b\x1f", "\xff\xfe", "é\u2028\"\\/", " \n\t", "<script>&amp;", "", "x"}
	for i := range msgs {
		content := append([]llm.Content(nil), msgs[i].Content...)
		for k := range content {
			c := &content[k]
			if c.Type != llm.TypeText {
				continue
			}
			if r.Intn(4) == 0 {
				c.Text = odd[r.Intn(len(odd))]
			}
			if r.Intn(2) == 0 {
				c.SetQuoted(c.Text, string(llm.AppendJSString(nil, c.Text)))
			}
		}
		msgs[i].Content = content
	}
}

// TestDirectSameBody: a body with the messages of the common shapes written straight from
// them (llm.Direct) is byte for byte the body written through their converted objects, for
// random contexts of every kind of message, recorded and unrecorded texts, the models whose
// compat changes the conversion, with and without a memo, in order and in halves.
func TestDirectSameBody(t *testing.T) {
	defer func(n int) { convertParallelMin = n }(convertParallelMin)
	r := rand.New(rand.NewSource(5))
	directs := 0
	for round := range 600 {
		msgs := randomMessages(r, 2+r.Intn(80))
		if round%2 == 1 {
			directTexts(r, msgs)
		}
		c := &llm.Context{SystemPrompt: "sys", Messages: msgs}
		m := directModels[round%len(directModels)]
		convertParallelMin = []int{4096, 0}[round/len(directModels)%2]
		for _, o := range []*llm.Options{{}, {ThinkingLevel: "high", SessionID: "s", CacheRetention: "long", Memo: new(llm.BodyMemo)}} {
			directOff = true
			want := BuildBody(m, c, o)
			directOff = false
			got := BuildBody(m, c, o)
			if !bytes.Equal(got, want) {
				t.Fatalf("round %d, model %s %s: the direct messages give another body\n got %s\nwant %s", round, m.ID, m.Compat, got, want)
			}
		}
		for _, o := range convertMessagesFor(m, c, ResolveCompat(m), nil, true) {
			if len(o) == 1 && o[0].K == "\x00direct" {
				directs++
			}
		}
	}
	if directs < 5000 {
		t.Fatalf("only %d direct messages", directs)
	}
}

// TestDirectGrownSession: the same for a real session (PIGO_GROWTH_SESSION, else pi's
// large-session.jsonl in /tmp), whose texts carry their recorded JSON forms; nearly all of
// its messages are written directly.
func TestDirectGrownSession(t *testing.T) {
	path := os.Getenv("PIGO_GROWTH_SESSION")
	if path == "" {
		path = "/tmp/large-session.jsonl"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no session at %s", path)
	}
	s, err := session.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	c := &llm.Context{SystemPrompt: "You are pi.", Messages: s.Context().Messages}
	for _, m := range directModels {
		directOff = true
		want := BuildBody(m, c, &llm.Options{Memo: new(llm.BodyMemo)})
		directOff = false
		got := BuildBody(m, c, &llm.Options{Memo: new(llm.BodyMemo)})
		if !bytes.Equal(got, want) {
			t.Fatalf("%s, %s %s: the direct messages give another body", path, m.ID, m.Compat)
		}
	}
	conv := convertMessagesFor(directModels[0], c, ResolveCompat(directModels[0]), nil, true)
	directs, written, hinted := 0, 0, 0
	for _, o := range conv {
		if len(o) == 1 && o[0].K == "\x00direct" {
			directs++
			d := o[0].V.(*direct)
			written += len(d.AppendDirect(nil))
			hinted += d.DirectHint()
		}
	}
	// The body's room is the hints and an eighth (appendParallel): a half that outgrows its
	// room has the whole body copied.
	if written > hinted+hinted/8 {
		t.Fatalf("%d bytes written, %d hinted", written, hinted)
	}
	t.Logf("%d of %d messages direct: %d bytes, %d hinted", directs, len(conv), written, hinted)
	if directs < len(conv)*9/10 {
		t.Fatalf("%d of %d messages direct", directs, len(conv))
	}
}

// TestDirectAllocations: a context of the common shapes converted for a body allocates a
// block of fields for 256 messages, not an object and a boxed text for each (2 a message
// through the objects: TestConvertRoomAtOnce).
func TestDirectAllocations(t *testing.T) {
	const n = 4000
	var msgs []llm.Message
	for i := range n {
		switch i % 4 {
		case 0:
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, StringContent: true, Content: []llm.Content{llm.TextBlock("u")}})
		case 1:
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Provider: "p", API: CompletionsAPI, Model: "m", Content: []llm.Content{
				llm.TextBlock("a"), {Type: llm.TypeToolCall, ID: "c", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}}})
		case 2:
			msgs = append(msgs, llm.Message{Role: llm.RoleToolResult, ToolCallID: "c", ToolName: "read", Content: []llm.Content{llm.TextBlock("r")}})
		case 3:
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("p"), llm.TextBlock("q")}})
		}
	}
	c := &llm.Context{Messages: msgs}
	m := &llm.Model{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1"}
	compat := ResolveCompat(m)
	defer func(n int) { convertParallelMin = n }(convertParallelMin)
	convertParallelMin = 1 << 30
	if got := len(convertMessagesFor(m, c, compat, nil, true)); got != n {
		t.Fatalf("%d messages converted, want %d", got, n)
	}
	per := testing.AllocsPerRun(5, func() { convertMessagesFor(m, c, compat, nil, true) })
	if per > n/64 {
		t.Fatalf("%v allocations for %d messages", per, n)
	}
	t.Logf("%v allocations (objects: %v)", per, testing.AllocsPerRun(5, func() { convertMessagesFor(m, c, compat, nil, false) }))
	// Through a memo, the array holds each message's Direct itself: not boxed one by one.
	conv := convertMessagesFor(m, c, compat, nil, true)
	memo := new(llm.BodyMemo)
	if per := testing.AllocsPerRun(5, func() { llm.MemoObjs(memo, conv) }); per > 2 {
		t.Fatalf("the memo's array: %v allocations for %d messages", per, n)
	}
}
