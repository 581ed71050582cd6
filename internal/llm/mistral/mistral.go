// Package mistral is pigo's client for mistral-conversations, Mistral's native chat endpoint
// (POST {baseUrl}/v1/chat/completions, streamed), as pi 1.6 speaks it: Mistral's nine-character
// tool-call ids, thinking chunks in the content, reasoning_effort for models with a thinking
// level map and prompt_mode "reasoning" for the others, prompt caching keyed by the session
// (x-affinity), and its error texts.
package mistral

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/sse"
)

// API is the models.json api value this package serves.
const API = "mistral-conversations"

// Provider streams mistral-conversations responses.
type Provider struct{}

const idLength = 9

var nonAlnum = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9]`) })

func deriveID(id string, attempt int) string {
	n := nonAlnum().ReplaceAllString(id, "")
	if attempt == 0 && len(n) == idLength {
		return n
	}
	seed := n
	if seed == "" {
		seed = id
	}
	if attempt > 0 {
		seed = fmt.Sprintf("%s:%d", seed, attempt)
	}
	h := nonAlnum().ReplaceAllString(llm.ShortHash(seed), "")
	if len(h) > idLength {
		h = h[:idLength]
	}
	return h
}

// idNormalizer maps pi's tool-call ids to Mistral's nine alphanumerics, distinct ids staying
// distinct.
func idNormalizer() func(string, *llm.Message) string {
	ids, owners := map[string]string{}, map[string]string{}
	return func(id string, _ *llm.Message) string {
		if v, ok := ids[id]; ok {
			return v
		}
		for attempt := 0; ; attempt++ {
			c := deriveID(id, attempt)
			if o, taken := owners[c]; !taken || o == id {
				ids[id], owners[c] = c, id
				return c
			}
		}
	}
}

type compat struct {
	SupportsStrictMode bool `json:"supportsStrictMode"`
}

// reasoning is pi's streamSimple choice: reasoning_effort from the model's thinking level map,
// or prompt_mode "reasoning" for a reasoning model without one.
func reasoning(m *llm.Model, o *llm.Options) (effort, promptMode string) {
	level := ""
	if o != nil && o.ThinkingLevel != "" {
		if l := m.ClampThinkingLevel(o.ThinkingLevel); l != "off" {
			level = l
		}
	}
	if !m.Reasoning {
		return "", ""
	}
	if m.ThinkingLevelMap == nil {
		if level != "" {
			return "", "reasoning"
		}
		return "", ""
	}
	if level != "" {
		if v, present, null := m.MappedLevel(level); present && !null {
			return v, ""
		}
		return "high", ""
	}
	if v, present, null := m.MappedLevel("off"); present && !null {
		return v, ""
	}
	return "", ""
}

func toolResultText(text string, hasImages, images, isError bool) string {
	prefix := ""
	if isError {
		prefix = "[tool error] "
	}
	if t := strings.TrimSpace(text); t != "" {
		suffix := ""
		if hasImages && !images {
			suffix = "\n[tool image omitted: model does not support images]"
		}
		return prefix + t + suffix
	}
	if hasImages {
		if images {
			return prefix + "(see attached image)"
		}
		return prefix + "(image omitted: model does not support images)"
	}
	return prefix + "(no tool output)"
}

func messages(m *llm.Model, c *llm.Context) []any {
	images := m.HasInput("image")
	var out []any
	if c.SystemPrompt != "" {
		out = append(out, llm.Obj{{K: "role", V: "system"}, {K: "content", V: c.SystemPrompt}})
	}
	for _, msg := range llm.TransformMessages(c.Messages, m, idNormalizer()) {
		switch msg.Role {
		case llm.RoleUser:
			if msg.StringContent {
				out = append(out, llm.Obj{{K: "role", V: "user"}, {K: "content", V: msg.Text()}})
				continue
			}
			hadImages := false
			var content []any
			for _, b := range msg.Content {
				switch b.Type {
				case llm.TypeText:
					content = append(content, llm.Obj{{K: "type", V: "text"}, {K: "text", V: b.Text}})
				case llm.TypeImage:
					hadImages = true
					if images {
						content = append(content, llm.Obj{{K: "type", V: "image_url"}, {K: "image_url", V: "data:" + b.MimeType + ";base64," + b.Data}})
					}
				}
			}
			if len(content) > 0 {
				out = append(out, llm.Obj{{K: "role", V: "user"}, {K: "content", V: content}})
			} else if hadImages && !images {
				out = append(out, llm.Obj{{K: "role", V: "user"}, {K: "content", V: "(image omitted: model does not support images)"}})
			}
		case llm.RoleAssistant:
			var parts, calls []any
			for _, b := range msg.Content {
				switch b.Type {
				case llm.TypeText:
					if strings.TrimSpace(b.Text) != "" {
						parts = append(parts, llm.Obj{{K: "type", V: "text"}, {K: "text", V: b.Text}})
					}
				case llm.TypeThinking:
					if strings.TrimSpace(b.Thinking) != "" {
						parts = append(parts, llm.Obj{{K: "type", V: "thinking"}, {K: "thinking", V: []any{llm.Obj{{K: "type", V: "text"}, {K: "text", V: b.Thinking}}}}})
					}
				case llm.TypeToolCall:
					args := b.Arguments
					if len(args) == 0 {
						args = json.RawMessage("{}")
					}
					calls = append(calls, llm.Obj{{K: "id", V: b.ID}, {K: "type", V: "function"},
						{K: "function", V: llm.Obj{{K: "name", V: b.Name}, {K: "arguments", V: string(llm.AppendJSON(nil, args))}}}, {K: "index", V: 0}})
				}
			}
			if len(parts) == 0 && len(calls) == 0 {
				continue
			}
			am := llm.Obj{{K: "role", V: "assistant"}, {K: "prefix", V: false}}
			if len(parts) > 0 {
				am = append(am, llm.Field{K: "content", V: parts})
			}
			if len(calls) > 0 {
				am = append(am, llm.Field{K: "tool_calls", V: calls})
			}
			out = append(out, am)
		case llm.RoleToolResult:
			var texts []string
			hasImages := false
			for _, b := range msg.Content {
				if b.Type == llm.TypeText {
					texts = append(texts, b.Text)
				} else if b.Type == llm.TypeImage {
					hasImages = true
				}
			}
			content := []any{llm.Obj{{K: "type", V: "text"}, {K: "text", V: toolResultText(strings.Join(texts, "\n"), hasImages, images, msg.IsError != nil && *msg.IsError)}}}
			if images {
				for _, b := range msg.Content {
					if b.Type == llm.TypeImage {
						content = append(content, llm.Obj{{K: "type", V: "image_url"}, {K: "image_url", V: "data:" + b.MimeType + ";base64," + b.Data}})
					}
				}
			}
			out = append(out, llm.Obj{{K: "role", V: "tool"}, {K: "name", V: msg.ToolName}, {K: "content", V: content}, {K: "tool_call_id", V: msg.ToolCallID}})
		}
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// BuildBody is the request body pi 1.6 sends, in its order (the camelCase fields it renames
// for the wire come last, in the order it renames them).
func BuildBody(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
	var cc compat
	if len(m.Compat) > 0 {
		_ = json.Unmarshal(m.Compat, &cc)
	}
	var msgs any = messages(m, c)
	if o != nil && o.Memo != nil {
		msgs = llm.MemoArray(o.Memo, msgs.([]any))
	}
	body := llm.Obj{{K: "model", V: m.ID}, {K: "stream", V: true}, {K: "messages", V: msgs}}
	if len(c.Tools) > 0 {
		var tools []any
		for _, t := range c.Tools {
			tools = append(tools, llm.Obj{{K: "type", V: "function"}, {K: "function", V: llm.Obj{{K: "name", V: t.Name}, {K: "description", V: t.Description},
				{K: "parameters", V: t.Parameters}, {K: "strict", V: false}}}})
		}
		body = append(body, llm.Field{K: "tools", V: tools})
	}
	body = append(body, llm.Field{K: "max_tokens", V: llm.RequestMaxTokens(m, c, o)})
	if o != nil && o.ToolChoice != "" {
		body = append(body, llm.Field{K: "tool_choice", V: o.ToolChoice})
	}
	effort, mode := reasoning(m, o)
	if effort != "" {
		body = append(body, llm.Field{K: "reasoning_effort", V: effort})
	}
	if mode != "" {
		body = append(body, llm.Field{K: "prompt_mode", V: mode})
	}
	if key := cacheKey(o); key != "" {
		body = append(body, llm.Field{K: "prompt_cache_key", V: key})
	}
	return llm.AppendJSON(nil, body)
}

func cacheKey(o *llm.Options) string {
	if o == nil || o.SessionID == "" || o.Retention() == "none" {
		return ""
	}
	return o.SessionID
}

// Headers are pi 1.6's: the identity, the stream's accept, the bearer key, the model's and the
// caller's headers, and the session as x-affinity (unless one is configured).
func Headers(m *llm.Model, o *llm.Options) []llm.Header {
	hs := []llm.Header{{Name: "User-Agent", Value: llm.UserAgent()}, {Name: "accept", Value: "text/event-stream"},
		{Name: "authorization", Value: "Bearer " + m.APIKey}, {Name: "content-type", Value: "application/json"}}
	explicit := false
	add := func(h map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(h)) {
			hs = llm.SetHeader(hs, k, h[k])
			if strings.EqualFold(k, "x-affinity") {
				explicit = true
			}
		}
	}
	add(m.Headers)
	if o != nil {
		add(o.Headers)
	}
	if key := cacheKey(o); key != "" && !explicit {
		hs = llm.SetHeader(hs, "x-affinity", key)
	}
	return hs
}

// URL is {baseUrl}/v1/chat/completions.
func URL(base string) string { return strings.TrimRight(base, "/") + "/v1/chat/completions" }

func httpError(status int, text string) string {
	if t := strings.TrimSpace(text); t != "" {
		return fmt.Sprintf("Mistral API error (%d): %s", status, llm.TruncateJS(t, 4000))
	}
	return fmt.Sprintf("Mistral API error (%d): Request failed with status %d", status, status)
}

// Stream implements llm.Provider.
func (Provider) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	b := llm.NewBuilder(m, emit).Live(o)
	if m.APIKey == "" {
		return b.Fail(ctx, "No API key for provider: "+m.Provider)
	}
	rc, failed := llm.Open(ctx, b, o, llm.Request{URL: URL(m.BaseURL), Headers: Headers(m, o), Body: BuildBody(m, c, o), HTTPError: httpError})
	if failed != nil {
		return failed
	}
	defer rc.Close()
	return run(ctx, b, m, rc)
}

// MapFinishReason is pi's mapChatStopReason.
func MapFinishReason(r string) (stop, errorMessage string) {
	switch r {
	case "stop":
		return llm.StopStop, ""
	case "length", "model_length":
		return llm.StopLength, ""
	case "tool_calls":
		return llm.StopToolUse, ""
	case "error":
		return llm.StopError, "Provider stopped with: error (server error)"
	}
	return llm.StopError, "Provider stopped with: " + r
}

type chunk struct {
	ID    string `json:"id"`
	Usage *struct {
		PromptTokens       int `json:"prompt_tokens"`
		CompletionTokens   int `json:"completion_tokens"`
		TotalTokens        int `json:"total_tokens"`
		PromptTokenDetails *struct {
			CachedTokens *int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		NumCachedTokens *int `json:"num_cached_tokens"`
	} `json:"usage"`
	Choices *[]struct {
		FinishReason *string `json:"finish_reason"`
		Delta        struct {
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
}

type contentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Thinking []struct {
		Text string `json:"text"`
	} `json:"thinking"`
}

func run(ctx context.Context, b *llm.Builder, m *llm.Model, body io.Reader) *llm.Message {
	msg := b.Msg()
	msg.StopReason = "pending"
	cur := -1
	end := func() {
		if cur >= 0 {
			b.EndText(cur)
			cur = -1
		}
	}
	add := func(kind, delta string) {
		if cur < 0 || b.Block(cur).Type != kind {
			end()
			cur = b.Add(llm.Content{Type: kind})
			if kind == llm.TypeThinking {
				b.At(llm.EventThinkingStart, cur)
			} else {
				b.At(llm.EventTextStart, cur)
			}
		}
		b.Append(cur, delta)
		if kind == llm.TypeThinking {
			b.Delta(llm.EventThinkingDelta, cur, delta)
		} else {
			b.Delta(llm.EventTextDelta, cur, delta)
		}
	}
	type call struct {
		index   int
		partial *llm.PartialJSON
	}
	var calls []*call
	byKey := map[string]*call{}
	done := false
	err := llm.EachSSE(ctx, b, body, func(ev sse.Event) error {
		data := strings.TrimSpace(ev.Data)
		if done || data == "" {
			return nil
		}
		if data == "[DONE]" {
			done = true
			return nil
		}
		var ch chunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return llm.Failure(err.Error())
		}
		if ch.Choices == nil {
			return llm.Failure("Invalid Mistral streaming event")
		}
		if msg.ResponseID == "" {
			msg.ResponseID = ch.ID
		}
		if u := ch.Usage; u != nil {
			cached := 0
			switch {
			case u.PromptTokenDetails != nil && u.PromptTokenDetails.CachedTokens != nil:
				cached = *u.PromptTokenDetails.CachedTokens
			case u.NumCachedTokens != nil:
				cached = *u.NumCachedTokens
			}
			cached = min(u.PromptTokens, max(0, cached))
			msg.Usage = &llm.Usage{Input: max(0, u.PromptTokens-cached), Output: u.CompletionTokens, CacheRead: cached}
			msg.Usage.TotalTokens = u.TotalTokens
			if msg.Usage.TotalTokens == 0 {
				msg.Usage.TotalTokens = msg.Usage.Input + msg.Usage.Output + msg.Usage.CacheRead
			}
			llm.CalculateCost(m, msg.Usage)
		}
		if len(*ch.Choices) == 0 {
			return nil
		}
		choice := (*ch.Choices)[0]
		if choice.FinishReason != nil {
			msg.RawStopReason = *choice.FinishReason
			stop, em := MapFinishReason(*choice.FinishReason)
			msg.StopReason = stop
			if em != "" {
				msg.ErrorMessage = em
			}
		}
		if c := choice.Delta.Content; len(c) > 0 && string(c) != "null" {
			var s string
			if json.Unmarshal(c, &s) == nil {
				if s != "" {
					add(llm.TypeText, s)
				}
			} else {
				var items []json.RawMessage
				_ = json.Unmarshal(c, &items)
				for _, raw := range items {
					var it contentItem
					if json.Unmarshal(raw, &s) == nil {
						if s != "" {
							add(llm.TypeText, s)
						}
						continue
					}
					_ = json.Unmarshal(raw, &it)
					switch it.Type {
					case "thinking":
						var t strings.Builder
						for _, p := range it.Thinking {
							t.WriteString(p.Text)
						}
						if t.Len() > 0 {
							add(llm.TypeThinking, t.String())
						}
					case "text":
						if it.Text != "" {
							add(llm.TypeText, it.Text)
						}
					}
				}
			}
		}
		for _, tc := range choice.Delta.ToolCalls {
			end()
			id := tc.ID
			if id == "" || id == "null" {
				idx := 0
				if tc.Index != nil {
					idx = *tc.Index
				}
				id = deriveID(fmt.Sprintf("toolcall:%d", idx), 0)
			}
			key := "id:" + id
			if tc.Index != nil {
				key = fmt.Sprintf("index:%d", *tc.Index)
			}
			cl := byKey[key]
			if cl == nil {
				cl = &call{index: b.Add(llm.Content{Type: llm.TypeToolCall, ID: id, Name: tc.Function.Name, Arguments: json.RawMessage("{}")}), partial: &llm.PartialJSON{}}
				byKey[key] = cl
				calls = append(calls, cl)
				b.At(llm.EventToolCallStart, cl.index)
			}
			delta := "{}"
			if a := tc.Function.Arguments; len(a) > 0 && string(a) != "null" {
				var s string
				if json.Unmarshal(a, &s) == nil {
					delta = s
				} else if js, err := llm.JSONStringify(a); err == nil {
					delta = string(js)
				}
			}
			cl.partial.Feed(delta)
			blk := b.Block(cl.index)
			blk.Arguments = cl.partial.Snapshot()
			b.SetBlock(cl.index, blk)
			b.Delta(llm.EventToolCallDelta, cl.index, delta)
		}
		return nil
	})
	if err != nil {
		return b.Fail(ctx, err.Error())
	}
	end()
	for _, cl := range calls {
		blk := b.Block(cl.index)
		blk.Arguments = llm.ParseStreamingJSON(cl.partial.Raw())
		b.SetBlock(cl.index, blk)
		b.EndToolCall(cl.index)
	}
	if ctx.Err() != nil {
		return b.Fail(ctx, llm.StreamAborted)
	}
	switch msg.StopReason {
	case "pending":
		return b.Fail(ctx, "Mistral stream ended without a finish reason")
	case llm.StopError, llm.StopAborted:
		em := msg.ErrorMessage
		if em == "" {
			em = "An unknown error occurred"
		}
		return b.Fail(ctx, em)
	}
	return b.Done()
}

func init() { llm.Register(API, Provider{}) }
