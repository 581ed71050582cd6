package openai

import (
	"fmt"
	"os"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/session"
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
			defer llmtest.CPUTimer(b)()
			for b.Loop() {
				if len(BuildBody(m, c, &llm.Options{})) < mb<<20 {
					b.Fatal("short body")
				}
			}
		})
	}
}

// BenchmarkNextTurnBody is the same body for the next turn of the session when the last
// one's is remembered (llm.BodyMemo, as the agent does): the context of BenchmarkRequestBody
// plus one new round, alternating between two different new rounds so that each build writes
// that round anew and copies the rest.
func BenchmarkNextTurnBody(b *testing.B) {
	m := &llm.Model{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, MaxTokens: 32000}
	for _, mb := range []int{1, 4, 16} {
		c := llmtest.LongContext(mb << 20)
		round := llmtest.LongContext(1).Messages[:4]
		var next [2]*llm.Context
		for i := range next {
			cc := *c
			cc.Messages = append(append([]llm.Message(nil), c.Messages...), round...)
			cc.Messages[len(cc.Messages)-4].Content = []llm.Content{llm.TextBlock(fmt.Sprintf("Round %d.", i))}
			next[i] = &cc
		}
		o := &llm.Options{Memo: new(llm.BodyMemo)}
		BuildBody(m, c, o)
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			b.SetBytes(int64(mb << 20))
			b.ReportAllocs()
			defer llmtest.CPUTimer(b)()
			i := 0
			for b.Loop() {
				i++
				if len(BuildBody(m, next[i%2], o)) < mb<<20 {
					b.Fatal("short body")
				}
			}
		})
	}
}

// BenchmarkGrownSessionBody is the first body of a -p continuation of a real session: the
// session file named by PIGO_GROWTH_SESSION (scripts/growsession makes one of any size from
// pi's large-session.jsonl) is loaded once, then its context is converted and written as
// openai-completions does for the first request (no memo). MB/s is session-file bytes.
func BenchmarkGrownSessionBody(b *testing.B) {
	path := os.Getenv("PIGO_GROWTH_SESSION")
	if path == "" {
		b.Skip("PIGO_GROWTH_SESSION names no session file")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	s, err := session.Read(path)
	if err != nil {
		b.Fatal(err)
	}
	c := &llm.Context{SystemPrompt: "You are pi.", Messages: s.Context().Messages}
	m := &llm.Model{Provider: "p", ID: "m", API: CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, MaxTokens: 32000}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	defer llmtest.CPUTimer(b)()
	for b.Loop() {
		BuildBody(m, c, &llm.Options{})
	}
}
