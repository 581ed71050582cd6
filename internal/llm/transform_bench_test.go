package llm_test

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// BenchmarkTransformMessages prepares a 16 MB context for another model than the one that
// wrote it (every assistant message is transformed: the case of a session continued with a
// new model).
func BenchmarkTransformMessages(b *testing.B) {
	c := llmtest.LongContext(16 << 20)
	m := &llm.Model{Provider: "other", API: "openai-completions", ID: "x", Input: []string{"text"}}
	b.ReportAllocs()
	for b.Loop() {
		llm.TransformMessages(c.Messages, m, nil)
	}
}
