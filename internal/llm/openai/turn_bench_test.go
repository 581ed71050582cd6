package openai

import (
	"fmt"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// BenchmarkRequestBody is what a turn of a long session costs before its request leaves:
// the whole request body built from the context (pi rebuilds it each turn too) at 1, 4 and
// 16 MB of message text. MB/s is context bytes per second of building.
func BenchmarkRequestBody(b *testing.B) {
	m := &llm.Model{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, MaxTokens: 32000}
	for _, mb := range []int{1, 4, 16} {
		c := llmtest.LongContext(mb << 20)
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			b.SetBytes(int64(mb << 20))
			b.ReportAllocs()
			for b.Loop() {
				if len(BuildBody(m, c, &llm.Options{})) < mb<<20 {
					b.Fatal("short body")
				}
			}
		})
	}
}
