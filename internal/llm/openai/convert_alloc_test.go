package openai

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

// TestConvertRoomAtOnce: the converted messages' array is made once at about its size, for
// the context in order and in halves; grown by doubling it was copied ~log2(n) times (at
// 64 MB ~6 MB of copies).
func TestConvertRoomAtOnce(t *testing.T) {
	defer func(n int) { convertParallelMin = n }(convertParallelMin)
	const n = 4000
	var msgs []llm.Message
	for i := range n {
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, StringContent: true, Content: []llm.Content{llm.TextBlock(fmt.Sprint("u", i))}})
	}
	c := &llm.Context{SystemPrompt: "sys", Messages: msgs}
	m := &llm.Model{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Input: []string{"text", "image"}}
	compat := ResolveCompat(m)
	for _, min := range []int{math.MaxInt, 0} {
		convertParallelMin = min
		per := testing.AllocsPerRun(5, func() { convertMessages(m, c, compat, nil) })
		// A message's object and its text boxed, and a few for the transform, the halves and the
		// array (grown by doubling: 2n+23).
		if per > 2*n+12 {
			t.Fatalf("halves from %d: %v allocations for %d messages", min, per, n)
		}
		if testing.Verbose() {
			t.Logf("halves from %d: %v", min, per)
		}
	}
}

// TestAssistantRoomExact: an assistant message's object is made with room for the fields its
// conversion may add and no more (at most one to spare: a model that needs reasoning_content
// whose reasoning field is already it), so that setting them never copies it and a reply with
// calls is not made for six fields; over random contexts and the compat variants.
func TestAssistantRoomExact(t *testing.T) {
	models := []*llm.Model{
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, Input: []string{"text", "image"}},
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1"},
		{Provider: "openrouter", ID: "anthropic/claude-sonnet-4", API: CompletionsAPI, BaseURL: "https://openrouter.ai/api/v1", Reasoning: true},
		{Provider: "deepseek", ID: "deepseek-reasoner", API: CompletionsAPI, BaseURL: "https://api.deepseek.com", Reasoning: true},
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, Compat: json.RawMessage(`{"requiresReasoningContentOnAssistant":true}`)},
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Compat: json.RawMessage(`{"requiresToolResultName":true,"requiresThinkingAsText":true}`)},
	}
	r := rand.New(rand.NewSource(3))
	seen := 0
	for round := range 300 {
		m := models[round%len(models)]
		compat := ResolveCompat(m)
		for _, o := range convertMessages(m, &llm.Context{Messages: randomMessages(r, 2+r.Intn(60))}, compat, nil) {
			if role, _ := o.Get("role"); role != "assistant" {
				continue
			}
			seen++
			if cap(o) > len(o)+1 {
				t.Fatalf("model %s %s: an assistant object of %d fields made for %d: %v", m.ID, m.Compat, len(o), cap(o), o)
			}
		}
	}
	if seen < 1000 {
		t.Fatalf("only %d assistant messages", seen)
	}
}
