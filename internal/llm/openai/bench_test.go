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

// ceilingStream is scripts/benchserve's /reply/MB/v1 stream: 4 KiB text deltas, one event
// each, here up to just past the 32 MiB bound of a reply (the growth benchmark's 100 MB row
// stops there).
func ceilingStream() string {
	delta := strings.Repeat("All work and no play makes a long reply. ", 100)[:4096]
	ev := `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1764576000,"model":"m","choices":[{"index":0,"delta":{"content":"` + delta + `"},"finish_reason":null}]}` + "\n\n"
	return strings.Repeat(ev, llm.DefaultLimits.MaxBytes/len(delta)+2)
}

func BenchmarkParseCeilingStream(b *testing.B) {
	body := ceilingStream()
	m := &llm.Model{Provider: "local", ID: "m", API: CompletionsAPI}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		bl := llm.NewBuilder(m, func(llm.Event) {}).Live(&llm.Options{LivePartials: true})
		msg := runCompletions(context.Background(), bl, m, ResolveCompat(m), strings.NewReader(body), false)
		if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "exceed 32 MiB") {
			b.Fatal(msg.StopReason, msg.ErrorMessage)
		}
	}
}
