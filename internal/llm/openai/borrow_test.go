package openai

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// borrowStreams are openai-completions streams that reach every string a chunk gives the
// message, the state or an event: the recorded cassettes, and rendered turns with thinking in
// each reasoning field, tool calls (ids, names, arguments over many deltas), a model other
// than the request's, a raw finish reason that becomes an error message, usage in a choice.
func borrowStreams(t *testing.T) []string {
	out := recordedBodies(t)
	calls := []llmtest.ToolCall{{ID: "call_a", Name: "read", Args: `{"path":"a.go"}`},
		{ID: "call_b", Name: "write", Args: `{"path":"b.go","content":"` + strings.Repeat("é ü \\n x", 300) + `"}`}}
	for _, tr := range []llmtest.Turn{
		{Text: strings.Repeat("Hello, wörld. ", 500), Thinking: "let me think", ID: "resp-1", Model: "other-model"},
		{Thinking: strings.Repeat("hmm ", 200), ReasoningField: "reasoning", ToolCalls: calls, UsageInChoice: true},
		{Thinking: "x", ReasoningField: "reasoning_text", Text: "done", StopReason: "content_filter"},
		{ToolCalls: calls, ID: "resp-2"},
	} {
		out = append(out, llmtest.Render(llmtest.OpenAICompletions, tr))
	}
	return out
}

// tinyReads hands out a stream a few bytes at a time, so the SSE reader moves and rewrites
// its buffer between nearly every two events: a string kept as a view of it would change.
type tinyReads struct {
	s string
	n int
}

func (r *tinyReads) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	r.n = r.n%7 + 1
	k := copy(p[:min(len(p), r.n)], r.s)
	r.s = r.s[k:]
	return k, nil
}

// TestBorrowedChunksKeepNothing: runCompletions reads the events' data borrowed from the SSE
// reader's buffer (a 100 MB reply's events were as many bytes of fresh strings); every event
// and the final message, looked at once the stream is over, equal those of the copying
// reader's run, so nothing kept a view of the buffer.
func TestBorrowedChunksKeepNothing(t *testing.T) {
	m := &llm.Model{Provider: "openrouter", ID: "m", API: CompletionsAPI}
	run := func(body string, tiny bool) string {
		var evs []llm.Event
		b := llm.NewBuilder(m, func(e llm.Event) { evs = append(evs, e) }) // copies per event: a view in any is seen
		var r interface{ Read([]byte) (int, error) } = strings.NewReader(body)
		if tiny {
			r = &tinyReads{s: body}
		}
		msg := runCompletions(context.Background(), b, m, ResolveCompat(m), r, false)
		msg.Timestamp = 0
		for i := range evs {
			for _, p := range []*llm.Message{evs[i].Partial, evs[i].Message, evs[i].Error} {
				if p != nil {
					p.Timestamp = 0
				}
			}
		}
		j, err := json.Marshal(struct {
			Events []llm.Event
			Msg    *llm.Message
		}{evs, msg})
		if err != nil {
			t.Fatal(err)
		}
		return string(j)
	}
	streams := borrowStreams(t)
	for i, body := range streams {
		eachSSE = llm.EachSSE
		want := run(body, false)
		eachSSE = llm.EachSSEBorrowed
		if got := run(body, true); got != want {
			t.Errorf("stream %d: borrowed run differs:\n got %.600s\nwant %.600s", i, got, want)
		}
	}
	// The rendered turns, and the recorded cassettes where the shared fixtures are (a clone
	// without them, as CI's, has the rendered turns only).
	want := 4
	if llmtest.FixturesDir() != "" {
		want = 8
	}
	if len(streams) < want {
		t.Errorf("only %d streams", len(streams))
	}
}
