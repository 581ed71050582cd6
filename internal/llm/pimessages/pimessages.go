// Package pimessages is pigo's client for pi-messages, pi's own message protocol (the Radius
// gateway speaks it; any models.json provider may): one POST of {model, context, options} to
// {baseUrl}/messages, answered by server-sent events that are pi's assistant-message events
// themselves, ended by a done or error event. The context is pi 1.6's transcript: a leading
// system message carrying the system prompt and the tools, then the messages as pi writes them.
package pimessages

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/sse"
)

// API is the models.json api value this package serves.
const API = "pi-messages"

// Provider streams pi-messages responses.
type Provider struct{}

// BuildBody is the request body pi 1.6 sends.
func BuildBody(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
	var msgs []any
	if c.SystemPrompt != "" || len(c.Tools) > 0 {
		sys := llm.Obj{{K: "role", V: "system"}, {K: "content", V: c.SystemPrompt}, {K: "timestamp", V: systemTimestamp(c)}}
		if len(c.Tools) > 0 {
			var tools []any
			for _, t := range c.Tools {
				tools = append(tools, llm.Obj{{K: "name", V: t.Name}, {K: "description", V: t.Description}, {K: "parameters", V: t.Parameters}})
			}
			sys = append(sys, llm.Field{K: "toolsAdded", V: tools})
		}
		msgs = append(msgs, sys)
	}
	for i := range c.Messages {
		raw, err := json.Marshal(c.Messages[i])
		if err == nil {
			msgs = append(msgs, json.RawMessage(raw))
		}
	}
	if msgs == nil {
		msgs = []any{}
	}
	var messages any = msgs
	if o != nil && o.Memo != nil {
		messages = llm.MemoArray(o.Memo, msgs)
	}
	opts := llm.Obj{}
	if o != nil && o.MaxTokens > 0 {
		opts = append(opts, llm.Field{K: "maxTokens", V: o.MaxTokens})
	}
	if o != nil && o.ThinkingLevel != "" && o.ThinkingLevel != "off" {
		opts = append(opts, llm.Field{K: "reasoning", V: o.ThinkingLevel})
	}
	if r := retention(m, o); r != "" {
		opts = append(opts, llm.Field{K: "cacheRetention", V: r})
	}
	if o != nil && o.SessionID != "" {
		opts = append(opts, llm.Field{K: "sessionId", V: o.SessionID})
	}
	if o != nil && o.ToolChoice != "" {
		opts = append(opts, llm.Field{K: "toolChoice", V: o.ToolChoice})
	}
	return llm.AppendJSON(nil, llm.Obj{{K: "model", V: m.ID}, {K: "context", V: llm.Obj{{K: "messages", V: messages}}}, {K: "options", V: opts}})
}

// systemTimestamp is the leading system message's time: just before the first message's.
func systemTimestamp(c *llm.Context) int64 {
	if len(c.Messages) > 0 {
		return c.Messages[0].Timestamp
	}
	return 0
}

// retention is pi's: the option, PI_CACHE_RETENTION=long, else none sent (the backend's default).
func retention(m *llm.Model, o *llm.Options) string {
	if o != nil && o.CacheRetention != "" {
		return o.CacheRetention
	}
	v := m.Env["PI_CACHE_RETENTION"]
	if v == "" {
		v = envLookup("PI_CACHE_RETENTION")
	}
	if v == "long" {
		return "long"
	}
	return ""
}

// Headers are pi's: the identity, the bearer key, the stream's accept, then the model's and
// the caller's headers.
func Headers(m *llm.Model, o *llm.Options) []llm.Header {
	hs := []llm.Header{{Name: "User-Agent", Value: llm.UserAgent()}, {Name: "authorization", Value: "Bearer " + m.APIKey},
		{Name: "accept", Value: "text/event-stream"}, {Name: "content-type", Value: "application/json"}}
	add := func(h map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(h)) {
			hs = llm.SetHeader(hs, k, h[k])
		}
	}
	add(m.Headers)
	if o != nil {
		add(o.Headers)
	}
	return hs
}

func httpError(status int, text string) string {
	var body struct {
		Error *struct {
			Message *string `json:"message"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	suffix := text
	code := ""
	if json.Unmarshal([]byte(text), &body) == nil && body.Error != nil {
		if body.Error.Message != nil {
			suffix = *body.Error.Message
		}
		if body.Error.Code != nil {
			code = " (" + *body.Error.Code + ")"
		}
	}
	return fmt.Sprintf("%d %s: %s%s", status, http.StatusText(status), suffix, code)
}

// Stream implements llm.Provider.
func (Provider) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	b := llm.NewBuilder(m, emit).Live(o)
	if m.APIKey == "" {
		return b.Fail(ctx, fmt.Sprintf("No API key provided for provider %q", m.Provider))
	}
	rc, failed := llm.Open(ctx, b, o, llm.Request{URL: strings.TrimRight(m.BaseURL, "/") + "/messages", Headers: Headers(m, o), Body: BuildBody(m, c, o), HTTPError: httpError})
	if failed != nil {
		return failed
	}
	defer rc.Close()
	return run(ctx, b, m, rc)
}

type event struct {
	Type             string          `json:"type"`
	ContentIndex     json.RawMessage `json:"contentIndex"`
	Delta            string          `json:"delta"`
	Content          *string         `json:"content"`
	ContentSignature string          `json:"contentSignature"`
	Redacted         bool            `json:"redacted"`
	ID               string          `json:"id"`
	ToolName         string          `json:"toolName"`
	ToolCall         *struct {
		ID               *string         `json:"id"`
		Name             *string         `json:"name"`
		Arguments        json.RawMessage `json:"arguments"`
		ThoughtSignature string          `json:"thoughtSignature"`
	} `json:"toolCall"`
	Reason                string     `json:"reason"`
	Usage                 *llm.Usage `json:"usage"`
	ErrorMessage          string     `json:"errorMessage"`
	ResponseID            string     `json:"responseId"`
	ResponseModel         string     `json:"responseModel"`
	ProviderThinkingLevel string     `json:"providerThinkingLevel"`
}

func run(ctx context.Context, b *llm.Builder, m *llm.Model, body io.Reader) *llm.Message {
	msg := b.Msg()
	partials := map[int]*llm.PartialJSON{}
	var final *llm.Message
	err := llm.EachSSE(ctx, b, body, func(ev sse.Event) error {
		if final != nil {
			return nil
		}
		data := strings.TrimSpace(ev.Data)
		if data == "" || data == "[DONE]" {
			return nil
		}
		var e event
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			return llm.Failure(err.Error())
		}
		idx := -1
		if e.ContentIndex != nil {
			var f float64
			limit := b.Len() - 1
			if strings.HasSuffix(e.Type, "_start") {
				limit = b.Len()
			}
			if json.Unmarshal(e.ContentIndex, &f) != nil || f != float64(int(f)) || f < 0 || int(f) > limit {
				return llm.Failure(fmt.Sprintf("Invalid contentIndex %s in pi-messages %s event", string(e.ContentIndex), e.Type))
			}
			idx = int(f)
		}
		kindOK := func(kind string) error {
			if idx < 0 || b.Block(idx).Type != kind {
				return llm.Failure(fmt.Sprintf("pi-messages %s event for a block that is not %s", e.Type, kind))
			}
			return nil
		}
		add := func(c llm.Content) error {
			if idx != b.Len() {
				return llm.Failure(fmt.Sprintf("Invalid contentIndex %d in pi-messages %s event", idx, e.Type))
			}
			b.Add(c)
			return nil
		}
		switch e.Type {
		case "start":
		case "text_start", "thinking_start":
			kind := llm.TypeText
			if e.Type == "thinking_start" {
				kind = llm.TypeThinking
			}
			if err := add(llm.Content{Type: kind}); err != nil {
				return err
			}
			b.At(e.Type, idx)
		case "text_delta", "thinking_delta":
			kind := llm.TypeText
			if e.Type == "thinking_delta" {
				kind = llm.TypeThinking
			}
			if err := kindOK(kind); err != nil {
				return err
			}
			b.Append(idx, e.Delta)
			b.Delta(e.Type, idx, e.Delta)
		case "text_end", "thinking_end":
			kind := llm.TypeText
			if e.Type == "thinking_end" {
				kind = llm.TypeThinking
			}
			if err := kindOK(kind); err != nil {
				return err
			}
			if e.Content != nil {
				b.SetText(idx, *e.Content)
			}
			blk := b.Block(idx)
			if kind == llm.TypeText {
				blk.TextSignature = e.ContentSignature
			} else {
				blk.ThinkingSignature, blk.Redacted = e.ContentSignature, e.Redacted
			}
			b.SetBlock(idx, blk)
			b.EndText(idx)
		case "toolcall_start":
			if err := add(llm.Content{Type: llm.TypeToolCall, ID: e.ID, Name: e.ToolName, Arguments: json.RawMessage("{}")}); err != nil {
				return err
			}
			partials[idx] = &llm.PartialJSON{}
			b.At(e.Type, idx)
		case "toolcall_delta":
			if err := kindOK(llm.TypeToolCall); err != nil {
				return err
			}
			if p := partials[idx]; p != nil {
				p.Feed(e.Delta)
				blk := b.Block(idx)
				blk.Arguments = p.Snapshot()
				b.SetBlock(idx, blk)
			}
			b.Delta(e.Type, idx, e.Delta)
		case "toolcall_end":
			if err := kindOK(llm.TypeToolCall); err != nil {
				return err
			}
			blk := b.Block(idx)
			if tc := e.ToolCall; tc != nil {
				if tc.ID != nil {
					blk.ID = *tc.ID
				}
				if tc.Name != nil {
					blk.Name = *tc.Name
				}
				if len(tc.Arguments) > 0 && string(tc.Arguments) != "null" {
					blk.Arguments = tc.Arguments
				}
				if tc.ThoughtSignature != "" {
					blk.ThoughtSignature = tc.ThoughtSignature
				}
			} else if p := partials[idx]; p != nil {
				blk.Arguments = llm.ParseStreamingJSON(p.Raw())
			}
			delete(partials, idx)
			b.SetBlock(idx, blk)
			b.EndToolCall(idx)
		case "done", "error":
			if e.Usage != nil {
				u := *e.Usage
				msg.Usage = &u
			}
			msg.ResponseID, msg.ResponseModel, msg.ProviderThinkingLevel = e.ResponseID, e.ResponseModel, e.ProviderThinkingLevel
			if e.Type == "done" {
				msg.StopReason = e.Reason
				final = b.Done()
				return nil
			}
			em := e.ErrorMessage
			if em == "" {
				em = "An unknown error occurred"
			}
			final = b.Fail(ctx, em)
		}
		return nil
	})
	if final != nil {
		return final
	}
	if err != nil {
		return b.Fail(ctx, err.Error())
	}
	if ctx.Err() != nil {
		return b.Fail(ctx, llm.StreamAborted)
	}
	return b.Fail(ctx, m.Provider+" stream ended without a terminal event")
}

func init() { llm.Register(API, Provider{}) }

func envLookup(name string) string { return os.Getenv(name) }
