package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// longTurn is a long answer: 20,000 streamed words, then a tool call with a 40 KB argument.
func longTurn() llmtest.Turn {
	return llmtest.Turn{Text: strings.Repeat("word ", 20000), ToolCalls: []llmtest.ToolCall{{Name: "write", Args: `{"path":"a.go","content":"` + strings.Repeat("x", 40000) + `"}`}}}
}

func BenchmarkParseLongStream(b *testing.B) {
	body := llmtest.Render(llmtest.OpenAICompletions, longTurn())
	m := &llm.Model{Provider: "local", ID: "m", API: CompletionsAPI}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		bl := llm.NewBuilder(m, func(llm.Event) {})
		msg := runCompletions(context.Background(), bl, m, ResolveCompat(m), strings.NewReader(body), false)
		if msg.StopReason != llm.StopToolUse {
			b.Fatal(msg.ErrorMessage)
		}
	}
}
