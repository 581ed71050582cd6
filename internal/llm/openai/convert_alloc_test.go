package openai

import (
	"fmt"
	"math"
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
