package pimessages_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/llm/pimessages"
)

func raw(events ...string) llmtest.Turn {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	return llmtest.Turn{Raw: &llmtest.Raw{Code: 200, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: b.String()}}
}

// A hostile or broken gateway: an index outside the message, a delta for another kind of
// block, a stream without its terminal event — each is pi's error, never a panic.
func TestBadStreams(t *testing.T) {
	for _, tc := range []struct {
		name string
		turn llmtest.Turn
		want string
	}{
		{"index far away", raw(`{"type":"text_start","contentIndex":1000000000}`), "Invalid contentIndex 1000000000 in pi-messages text_start event"},
		{"negative index", raw(`{"type":"text_start","contentIndex":0}`, `{"type":"text_delta","contentIndex":-1,"delta":"x"}`), "Invalid contentIndex -1 in pi-messages text_delta event"},
		{"string index", raw(`{"type":"text_start","contentIndex":"__proto__"}`), `Invalid contentIndex "__proto__" in pi-messages text_start event`},
		{"wrong kind", raw(`{"type":"text_start","contentIndex":0}`, `{"type":"toolcall_delta","contentIndex":0,"delta":"{"}`), "pi-messages toolcall_delta event for a block that is not toolCall"},
		{"no terminal", raw(`{"type":"start"}`, `{"type":"text_start","contentIndex":0}`), "local stream ended without a terminal event"},
		{"gateway error", raw(`{"type":"error","reason":"error","errorMessage":"upstream said no"}`), "upstream said no"},
	} {
		srv := llmtest.New(t)
		srv.Push(tc.turn)
		m := &llm.Model{Provider: "local", ID: "m", API: pimessages.API, BaseURL: srv.BaseURL(llmtest.PiMessages), APIKey: "k"}
		p, _ := llm.ProviderFor(pimessages.API)
		msg := p.Stream(context.Background(), m, &llm.Context{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("hi")}}}}, nil, nil)
		if msg.StopReason != llm.StopError || msg.ErrorMessage != tc.want {
			t.Errorf("%s: %s %q", tc.name, msg.StopReason, msg.ErrorMessage)
		}
	}
}

// The body is pi 1.6's {model, context, options}: a leading system message with the prompt and
// the tools, the messages as pi writes them, the options pi sets.
func TestBody(t *testing.T) {
	t.Setenv("PI_CACHE_RETENTION", "long")
	c := &llm.Context{SystemPrompt: "sys", Tools: []llm.Tool{{Name: "ls", Description: "List", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("hi")}, Timestamp: 7}}}
	got := string(pimessages.BuildBody(&llm.Model{ID: "balanced"}, c, &llm.Options{ThinkingLevel: "high", SessionID: "s1", ToolChoice: "none"}))
	want := `{"model":"balanced","context":{"messages":[{"role":"system","content":"sys","timestamp":7,"toolsAdded":[{"name":"ls","description":"List","parameters":{"type":"object"}}]},` +
		`{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":7}]},"options":{"reasoning":"high","cacheRetention":"long","sessionId":"s1","toolChoice":"none"}}`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}
