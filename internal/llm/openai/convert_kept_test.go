package openai

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

// TestConvertKeptSameBody: bodies built through one BodyMemo turn after turn, the conversion
// of the messages before the last user message taken from the turn before, are byte for
// byte the bodies built from nothing, over random contexts and every change a session
// makes between turns: messages appended (tool results, replies, new prompts), the
// transcript copied into a new array, cut back (a navigation, a retry), an earlier message
// replaced, the model switched, with and without the halves. The kept conversion must also
// be taken on the turns that only appended.
func TestConvertKeptSameBody(t *testing.T) {
	defer func(n int) { convertParallelMin = n }(convertParallelMin)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	models := []*llm.Model{
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, MaxTokens: 32000, Input: []string{"text", "image"}},
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", MaxTokens: 32000},
		{Provider: "openai", ID: "gpt-5", API: CompletionsAPI, BaseURL: "https://api.openai.com/v1", Reasoning: true, MaxTokens: 32000},
		{Provider: "openrouter", ID: "anthropic/claude-sonnet-4", API: CompletionsAPI, BaseURL: "https://openrouter.ai/api/v1", Reasoning: true, MaxTokens: 32000},
		{Provider: "deepseek", ID: "deepseek-reasoner", API: CompletionsAPI, BaseURL: "https://api.deepseek.com", Reasoning: true, MaxTokens: 32000},
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Compat: json.RawMessage(`{"requiresToolResultName":true,"requiresThinkingAsText":true}`)},
		{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Compat: json.RawMessage(`{"requiresAssistantAfterToolResult":true}`)},
	}
	r := rand.New(rand.NewSource(7))
	before := keptReused.Load()
	appendOnly, reusedOnAppend := 0, 0
	for round := range 300 {
		m := models[round%len(models)]
		convertParallelMin = math.MaxInt
		if round%3 == 0 {
			convertParallelMin = 8
		}
		memo := new(llm.BodyMemo)
		c := &llm.Context{SystemPrompt: "sys", Messages: randomMessages(r, 1+r.Intn(40))}
		for turn := range 10 {
			appended := false
			switch k := r.Intn(10); {
			case turn == 0:
			case k < 5: // the turn's new messages
				c.Messages = append(c.Messages, randomMessages(r, 1+r.Intn(4))...)
				appended = true
			case k == 5: // the transcript in a new array
				c.Messages = append(slices.Clone(c.Messages), randomMessages(r, 1)...)
				appended = true
			case k == 6: // cut back
				n := r.Intn(len(c.Messages) + 1)
				c.Messages = c.Messages[:n:n]
			case k == 7 && len(c.Messages) > 0: // an earlier message replaced
				edited := slices.Clone(c.Messages)
				i := r.Intn(len(edited))
				edited[i].Content = append(slices.Clone(edited[i].Content), llm.TextBlock("edited"))
				c.Messages = edited
			case k == 8:
				m = models[r.Intn(len(models))]
			default: // a prompt
				c.Messages = append(c.Messages, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("next")}})
				appended = true
			}
			o := llm.Options{ThinkingLevel: "high", SessionID: "s"}
			want := BuildBody(m, c, &o)
			o.Memo = memo
			n := keptReused.Load()
			got := BuildBody(m, c, &o)
			if !bytes.Equal(got, want) {
				t.Fatalf("round %d turn %d, model %s %s: the kept conversion gives another body\n got %s\nwant %s", round, turn, m.ID, m.Compat, got, want)
			}
			if appended && turn > 0 {
				appendOnly++
				if keptReused.Load() > n {
					reusedOnAppend++
				}
			}
		}
	}
	// Contexts with renamed ids and the two unmemoised compats convert in full.
	if keptReused.Load() == before || reusedOnAppend < appendOnly/8 {
		t.Fatalf("the kept conversion was taken on %d of %d turns that only appended", reusedOnAppend, appendOnly)
	}
	// A session's turns (a prompt, a call and its result): the second converts two messages.
	m := models[0]
	memo := new(llm.BodyMemo)
	prompt := func(text string) llm.Message {
		return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(text)}}
	}
	call := func(id string) []llm.Message {
		return []llm.Message{{Role: llm.RoleAssistant, API: CompletionsAPI, Provider: "p", Model: "m", StopReason: llm.StopToolUse,
			Content: []llm.Content{{Type: llm.TypeToolCall, ID: id, Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}}},
			{Role: llm.RoleToolResult, ToolCallID: id, ToolName: "read", Content: []llm.Content{llm.TextBlock("a")}}}
	}
	c := &llm.Context{Messages: append(append([]llm.Message{prompt("hi")}, call("call_1")...), prompt("again"))}
	BuildBody(m, c, &llm.Options{Memo: memo})
	c.Messages = append(c.Messages, call("call_2")...)
	n := keptReused.Load()
	got := BuildBody(m, c, &llm.Options{Memo: memo})
	if k, _ := memo.TakeKept().(*convertMemo); keptReused.Load() != n+1 || k == nil || k.user != 3 || k.before != 3 {
		t.Fatal("a turn that appended a call and its result converted the context in full")
	}
	if want := BuildBody(m, c, &llm.Options{}); !bytes.Equal(got, want) {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}
