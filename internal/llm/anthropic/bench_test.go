package anthropic

import (
	"context"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

func BenchmarkParseLongStream(b *testing.B) {
	body := llmtest.Render(llmtest.AnthropicMessages, llmtest.Turn{Thinking: strings.Repeat("hmm ", 5000), Text: strings.Repeat("word ", 20000),
		ToolCalls: []llmtest.ToolCall{{Name: "write", Args: `{"path":"a.go","content":"` + strings.Repeat("x", 40000) + `"}`}}})
	m := &llm.Model{Provider: "local", ID: "m", API: API}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		msg := run(context.Background(), llm.NewBuilder(m, func(llm.Event) {}), m, strings.NewReader(body), nil)
		if msg.StopReason != llm.StopToolUse {
			b.Fatal(msg.ErrorMessage)
		}
	}
}
