package openai

import (
	"math/rand"
	"reflect"
	"testing"
	"unsafe"

	"github.com/pigo-agent/pigo/internal/llm"
)

// TestTransformMessagePtrs: the pointer form of the transform gives TransformMessages'
// messages (random contexts with images, thinking and calls from this model and another,
// ids renamed, errors, results missing or far from their calls; a model with and without
// vision), leaves the input as it was, and hands out the input's own message for every one
// that stays as it was.
func TestTransformMessagePtrs(t *testing.T) {
	models := []*llm.Model{
		{Provider: "p", ID: "m", API: CompletionsAPI, Input: []string{"text", "image"}},
		{Provider: "p", ID: "m", API: CompletionsAPI},
		{Provider: "openai", ID: "gpt-5", API: CompletionsAPI, Input: []string{"text", "image"}},
	}
	r := rand.New(rand.NewSource(11))
	own := 0
	for round := range 2000 {
		m := models[round%len(models)]
		msgs := randomMessages(r, 1+r.Intn(50))
		before := make([]llm.Message, len(msgs))
		copy(before, msgs)
		want := llm.TransformMessages(msgs, m, normalizeToolCallID(m))
		ps := llm.TransformMessagePtrs(msgs, m, normalizeToolCallID(m))
		got := make([]llm.Message, len(ps))
		for i, p := range ps {
			got[i] = *p
			if k := (uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(unsafe.SliceData(msgs)))) / unsafe.Sizeof(msgs[0]); k < uintptr(len(msgs)) && p == &msgs[k] {
				own++
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d, model %s/%v: the pointers give other messages\n got %+v\nwant %+v", round, m.Provider, m.Input, got, want)
		}
		if !reflect.DeepEqual(msgs, before) {
			t.Fatalf("round %d: the input was written", round)
		}
	}
	if own == 0 {
		t.Fatal("no message was handed out as the input's own")
	}
}

// TestTransformMessagePtrsCopiesNothing: a context that needs no change (this model's own
// replies, results for every call, no images) costs the array of pointers and the
// transform's two maps, whatever its length: no message is copied.
func TestTransformMessagePtrsCopiesNothing(t *testing.T) {
	m := &llm.Model{Provider: "p", ID: "m", API: CompletionsAPI, Input: []string{"text", "image"}}
	var msgs []llm.Message
	for i := range 500 {
		id := "call_" + string(rune('a'+i%26))
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("q")}},
			llm.Message{Role: llm.RoleAssistant, API: CompletionsAPI, Provider: "p", Model: "m", StopReason: llm.StopToolUse,
				Content: []llm.Content{llm.TextBlock("a"), {Type: llm.TypeToolCall, ID: id, Name: "read"}}},
			llm.Message{Role: llm.RoleToolResult, ToolCallID: id, ToolName: "read", Content: []llm.Content{llm.TextBlock("r")}})
	}
	norm := normalizeToolCallID(m)
	if n := testing.AllocsPerRun(10, func() { llm.TransformMessagePtrs(msgs, m, norm) }); n > 4 {
		t.Fatalf("%v allocations for %d messages that stay", n, len(msgs))
	}
	// The same replies continued by another model (pi's large-session.jsonl continued by
	// this one): plain texts and calls without a thought signature or an id to change stay
	// too.
	other := &llm.Model{Provider: "q", ID: "n", API: CompletionsAPI, Input: []string{"text", "image"}}
	norm = normalizeToolCallID(other)
	if n := testing.AllocsPerRun(10, func() { llm.TransformMessagePtrs(msgs, other, norm) }); n > 4 {
		t.Fatalf("another model: %v allocations for %d messages that stay", n, len(msgs))
	}
}
