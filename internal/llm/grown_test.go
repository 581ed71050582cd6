package llm_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/anthropic"
	"github.com/pigo-agent/pigo/internal/llm/openai"
	"github.com/pigo-agent/pigo/internal/session"
)

// escapesSession is a session whose texts, thinking and tool-call arguments are written in
// canonical and non-canonical forms (what pi and pigo write, and what a hand or another
// writer might: \/, \u0041, upper-case hex, surrogate pairs, invalid UTF-8).
const escapesSession = `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/tmp"}
{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"plain \"prompt\"\n\u0001 é \u2028","timestamp":1}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"think\t\u0041\/","thinkingSignature":"reasoning_content"},{"type":"text","text":"answer \ud83d\ude00 \u000A"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.go","offset":1,"limit":2.50}},{"type":"toolCall","id":"c2","name":"edit","arguments":{"path":"b.go","oldText":"x\n\t\"y\"","newText":"\u00e9","n":[1,-0,1e21,1e-7,12345678901234567890]}}],"api":"openai-completions","provider":"p","model":"m","stopReason":"toolUse","timestamp":2}}
{"type":"message","id":"a3","parentId":"a2","timestamp":"t","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"line 1\nline\t2 \"q\" \\ \u001f"}],"isError":false,"timestamp":3}}
{"type":"message","id":"a4","parentId":"a3","timestamp":"t","message":{"role":"toolResult","toolCallId":"c2","toolName":"edit","content":[{"type":"text","text":"bad \u001F \uD800 ` + "\xff" + `"},{"type":"text","text":"second"}],"isError":false,"timestamp":4}}
{"type":"message","id":"a5","parentId":"a4","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"  "},{"type":"text","text":"next\n"}],"timestamp":5}}
{"type":"message","id":"a6","parentId":"a5","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"one"},{"type":"text","text":"two\n"}],"api":"openai-completions","provider":"p","model":"m","stopReason":"stop","timestamp":6}}
{"type":"message","id":"a7","parentId":"a6","timestamp":"t","message":{"role":"toolResult","toolCallId":"c9","toolName":"read","content":[{"type":"text","text":""}],"isError":false,"timestamp":7}}
{"type":"message","id":"b0","parentId":"a7","timestamp":"t","message":{"role":"user","content":"a\/b","timestamp":8}}
{"type":"message","id":"b1","parentId":"b0","timestamp":"t","message":{"role":"user","content":"\u0041","timestamp":8}}
{"type":"message","id":"b2","parentId":"b1","timestamp":"t","message":{"role":"user","content":"\u000A","timestamp":8}}
{"type":"message","id":"b3","parentId":"b2","timestamp":"t","message":{"role":"user","content":"\u000a","timestamp":8}}
{"type":"message","id":"b4","parentId":"b3","timestamp":"t","message":{"role":"user","content":"\u001F","timestamp":8}}
{"type":"message","id":"b5","parentId":"b4","timestamp":"t","message":{"role":"user","content":"\ud83d\ude00","timestamp":8}}
{"type":"message","id":"b6","parentId":"b5","timestamp":"t","message":{"role":"user","content":"\u2028","timestamp":8}}
{"type":"message","id":"b7","parentId":"b6","timestamp":"t","message":{"role":"user","content":"\ud800","timestamp":8}}
{"type":"message","id":"b8","parentId":"b7","timestamp":"t","message":{"role":"user","content":"\u00e9","timestamp":8}}
{"type":"message","id":"b9","parentId":"b8","timestamp":"t","message":{"role":"user","content":"\u0008","timestamp":8}}
{"type":"message","id":"b10","parentId":"b9","timestamp":"t","message":{"role":"user","content":"\"\\\b\f\n\r\t\u0000\u007f","timestamp":8}}
`

// grownSessions are the sessions the body tests load: escapesSession, and the real pi session
// (and grown copies of it) that PIGO_GROWTH_SESSION or /tmp/large-session.jsonl names.
func grownSessions(t testing.TB) []string {
	p := filepath.Join(t.TempDir(), "escapes.jsonl")
	if err := os.WriteFile(p, []byte(escapesSession), 0o644); err != nil {
		t.Fatal(err)
	}
	out := []string{p}
	real := os.Getenv("PIGO_GROWTH_SESSION")
	if real == "" {
		real = "/tmp/large-session.jsonl"
	}
	if _, err := os.Stat(real); err == nil {
		out = append(out, real)
	} else {
		t.Logf("no real session at %s (set PIGO_GROWTH_SESSION): the escapes session only", real)
	}
	return out
}

func loadContext(t testing.TB, path string) *llm.Context {
	s, err := session.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return &llm.Context{SystemPrompt: "You are pi.", Messages: s.Context().Messages,
		Tools: []llm.Tool{{Name: "read", Description: "Read a file", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
}

// TestBodiesSameWithRawForms: the bodies of a loaded session are byte for byte the same with
// the recorded JSON forms of texts and the copying of arguments already in JSON.stringify's
// form, and without them, for the models of the differential tests.
func TestBodiesSameWithRawForms(t *testing.T) {
	defer llm.SetFastPaths(true)
	models := []*llm.Model{
		{Provider: "p", ID: "m", API: openai.CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, MaxTokens: 32000},
		{Provider: "openrouter", ID: "anthropic/claude-sonnet-4", API: openai.CompletionsAPI, BaseURL: "https://openrouter.ai/api/v1", Reasoning: true, MaxTokens: 32000},
		{Provider: "deepseek", ID: "deepseek-reasoner", API: openai.CompletionsAPI, BaseURL: "https://api.deepseek.com", Reasoning: true, MaxTokens: 32000},
		{Provider: "anthropic", ID: "claude-sonnet-4-5", API: "anthropic-messages", BaseURL: "https://api.anthropic.com", Reasoning: true, MaxTokens: 32000},
	}
	build := func(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
		if m.API == "anthropic-messages" {
			return anthropic.BuildBody(m, c, o)
		}
		return openai.BuildBody(m, c, o)
	}
	for _, path := range grownSessions(t) {
		c := loadContext(t, path)
		quoted := 0
		for _, m := range c.Messages {
			for _, b := range m.Content {
				if b.Quoted() {
					quoted++
				}
			}
		}
		if quoted == 0 {
			t.Fatalf("%s: no block carries its JSON form", path)
		}
		for _, m := range models {
			for _, o := range []*llm.Options{{}, {ThinkingLevel: "high", SessionID: "s", CacheRetention: "long"}} {
				llm.SetFastPaths(true)
				fast := build(m, c, o)
				llm.SetFastPaths(false)
				slow := build(m, c, o)
				if !bytes.Equal(fast, slow) {
					i := 0
					for i < len(fast) && i < len(slow) && fast[i] == slow[i] {
						i++
					}
					t.Fatalf("%s, %s: bodies differ at %d:\nfast %s\nslow %s", filepath.Base(path), m.ID, i,
						fast[max(0, i-80):min(len(fast), i+80)], slow[max(0, i-80):min(len(slow), i+80)])
				}
			}
		}
		if strings.HasSuffix(path, "escapes.jsonl") {
			// The escapes session's texts in canonical form are in the body as written.
			llm.SetFastPaths(true)
			body := string(build(models[0], c, &llm.Options{}))
			for _, want := range []string{`"line 1\nline\t2 \"q\" \\ \u001f"`, `"plain \"prompt\"\n\u0001 é ` + "\u2028" + `"`,
				`"content":"(no tool output)"`, `"arguments":"{\"path\":\"b.go\",\"oldText\":\"x\\n\\t\\\"y\\\"\",\"newText\":\"é\",\"n\":[1,0,1e+21,1e-7,12345678901234567000]}"`} {
				if !strings.Contains(body, want) {
					t.Errorf("body lacks %s:\n%s", want, body)
				}
			}
		}
	}
}

// BenchmarkGrownSessionBodies is the first body of a loaded session (PIGO_GROWTH_SESSION)
// for openai-completions and anthropic-messages, with the recorded JSON forms and the
// stringified arguments copied (fast) and without them (slow).
func BenchmarkGrownSessionBodies(b *testing.B) {
	path := os.Getenv("PIGO_GROWTH_SESSION")
	if path == "" {
		b.Skip("PIGO_GROWTH_SESSION names no session file")
	}
	c := loadContext(b, path)
	defer llm.SetFastPaths(true)
	for _, api := range []string{openai.CompletionsAPI, "anthropic-messages"} {
		m := &llm.Model{Provider: "p", ID: "m", API: api, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, MaxTokens: 32000}
		for _, fast := range []bool{true, false} {
			name := api + "/fast"
			if !fast {
				name = api + "/slow"
			}
			b.Run(name, func(b *testing.B) {
				llm.SetFastPaths(fast)
				b.ReportAllocs()
				for b.Loop() {
					if api == openai.CompletionsAPI {
						openai.BuildBody(m, c, &llm.Options{})
					} else {
						anthropic.BuildBody(m, c, &llm.Options{})
					}
				}
			})
		}
	}
}

// TestGrownBodiesSameOnCores: a loaded session's first body written through a memo, its
// message array on several cores, is byte for byte the body written in order without one.
func TestGrownBodiesSameOnCores(t *testing.T) {
	defer llm.SetParallelMin(llm.SetParallelMin(0))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, path := range grownSessions(t) {
		c := loadContext(t, path)
		for _, procs := range []int{2, 3, 8} {
			runtime.GOMAXPROCS(procs)
			for _, m := range []*llm.Model{
				{Provider: "p", ID: "m", API: openai.CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, MaxTokens: 32000},
				{Provider: "openrouter", ID: "anthropic/claude-sonnet-4", API: openai.CompletionsAPI, BaseURL: "https://openrouter.ai/api/v1", Reasoning: true, MaxTokens: 32000},
			} {
				want := openai.BuildBody(m, c, &llm.Options{})
				got := openai.BuildBody(m, c, &llm.Options{Memo: new(llm.BodyMemo)})
				if !bytes.Equal(got, want) {
					t.Fatalf("%s, %s, %d cores: the body written on several cores differs", filepath.Base(path), m.ID, procs)
				}
			}
		}
	}
}

// BenchmarkGrownBodyCores is the first openai-completions body of a loaded session
// (PIGO_GROWTH_SESSION) through a memo, as a continuation writes it: its message array in
// order (one) and on the cores there are (all).
func BenchmarkGrownBodyCores(b *testing.B) {
	path := os.Getenv("PIGO_GROWTH_SESSION")
	if path == "" {
		b.Skip("PIGO_GROWTH_SESSION names no session file")
	}
	c := loadContext(b, path)
	m := &llm.Model{Provider: "p", ID: "m", API: openai.CompletionsAPI, BaseURL: "http://127.0.0.1:1/v1", MaxTokens: 32000}
	for _, name := range []string{"one", "all"} {
		b.Run(name, func(b *testing.B) {
			if name == "one" {
				defer llm.SetParallelMin(llm.SetParallelMin(math.MaxInt))
			}
			for b.Loop() {
				openai.BuildBody(m, c, &llm.Options{Memo: new(llm.BodyMemo)})
			}
		})
	}
}
