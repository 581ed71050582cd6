// The Responses API (openai-responses): POST {baseUrl}/responses, streamed as typed events.
// pi 0.84's request shape (input items, developer/system role, function_call and
// function_call_output items, reasoning items replayed from their signatures, store:false,
// max_output_tokens, reasoning effort and summary) and its parsing of output_item /
// content_part / output_text / function_call_arguments / reasoning_summary events and the
// response.completed usage.

package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/sse"
)

// ResponsesAPI is the models.json api value of the Responses API.
const ResponsesAPI = "openai-responses"

// Responses streams openai-responses responses.
type Responses struct{}

// ResponsesCompat is pi's getCompat for openai-responses.
type ResponsesCompat struct {
	SupportsDeveloperRole      bool
	SessionAffinityFormat      string
	SupportsLongCacheRetention bool
	SupportsStrictMode         bool
}

// ResolveResponsesCompat reads the model's compat with pi's defaults.
func ResolveResponsesCompat(m *llm.Model) ResponsesCompat {
	var r struct {
		SupportsDeveloperRole      *bool   `json:"supportsDeveloperRole"`
		SessionAffinityFormat      *string `json:"sessionAffinityFormat"`
		SupportsLongCacheRetention *bool   `json:"supportsLongCacheRetention"`
		SupportsStrictMode         *bool   `json:"supportsStrictMode"`
	}
	if len(m.Compat) > 0 {
		_ = json.Unmarshal(m.Compat, &r)
	}
	c := ResponsesCompat{SupportsDeveloperRole: true, SessionAffinityFormat: "openai", SupportsLongCacheRetention: true}
	if m.Provider == "openrouter" || strings.Contains(m.BaseURL, "openrouter.ai") {
		c.SessionAffinityFormat = "openrouter"
	}
	if r.SupportsDeveloperRole != nil {
		c.SupportsDeveloperRole = *r.SupportsDeveloperRole
	}
	if r.SessionAffinityFormat != nil {
		c.SessionAffinityFormat = *r.SessionAffinityFormat
	}
	if r.SupportsLongCacheRetention != nil {
		c.SupportsLongCacheRetention = *r.SupportsLongCacheRetention
	}
	if r.SupportsStrictMode != nil {
		c.SupportsStrictMode = *r.SupportsStrictMode
	}
	return c
}

var toolCallProviders = map[string]bool{"openai": true, "openai-codex": true, "opencode": true}

func normalizeIDPart(s string) string {
	s = llm.SanitizeID(s)
	if len(s) > 64 {
		s = s[:64]
	}
	return strings.TrimRight(s, "_")
}

func normalizeResponsesToolCallID(m *llm.Model) func(string, *llm.Message) string {
	return func(id string, src *llm.Message) string {
		known := toolCallProviders[m.Provider] || (m.API == AzureResponsesAPI && m.Provider == "azure")
		if !known || !strings.Contains(id, "|") {
			return normalizeIDPart(id)
		}
		parts := strings.Split(id, "|")
		callID := normalizeIDPart(parts[0])
		foreign := src.Provider != m.Provider || src.API != m.API
		var itemID string
		if foreign {
			itemID = "fc_" + llm.ShortHash(parts[1])
			if len(itemID) > 64 {
				itemID = itemID[:64]
			}
		} else {
			itemID = normalizeIDPart(parts[1])
		}
		if !strings.HasPrefix(itemID, "fc_") {
			itemID = normalizeIDPart("fc_" + itemID)
		}
		return callID + "|" + itemID
	}
}

// textSignature decodes pi's text signature: {"v":1,"id":…,"phase"?} or a bare id.
func textSignature(sig string) (id, phase string) {
	if sig == "" {
		return "", ""
	}
	if strings.HasPrefix(sig, "{") {
		var v struct {
			V     int     `json:"v"`
			ID    *string `json:"id"`
			Phase string  `json:"phase"`
		}
		if json.Unmarshal([]byte(sig), &v) == nil && v.V == 1 && v.ID != nil {
			if v.Phase == "commentary" || v.Phase == "final_answer" {
				return *v.ID, v.Phase
			}
			return *v.ID, ""
		}
	}
	return sig, ""
}

func toolResultOutput(m *llm.Model, cs []llm.Content) any {
	var texts []string
	var images []llm.Content
	for _, c := range cs {
		switch c.Type {
		case llm.TypeText:
			texts = append(texts, c.Text)
		case llm.TypeImage:
			images = append(images, c)
		}
	}
	text := strings.Join(texts, "\n")
	hasText := strings.TrimSpace(text) != ""
	if len(images) == 0 || !m.HasInput("image") {
		switch {
		case hasText:
			return text
		case len(images) > 0:
			return "(see attached image)"
		}
		return "(no tool output)"
	}
	var out []any
	if hasText {
		out = append(out, llm.Obj{{K: "type", V: "input_text"}, {K: "text", V: text}})
	}
	for _, im := range images {
		out = append(out, llm.Obj{{K: "type", V: "input_image"}, {K: "detail", V: "auto"}, {K: "image_url", V: "data:" + im.MimeType + ";base64," + im.Data}})
	}
	return out
}

func convertResponsesMessages(m *llm.Model, c *llm.Context, compat ResponsesCompat) []any {
	return convertResponsesInput(m, c, compat, responsesInputOptions{})
}

// responsesInputOptions are the Codex backend's input features (pi 1.6): every tool declared
// in an additional_tools item at the head of the input instead of the request's tools, and
// configuration_update items carrying the reasoning effort (before each earlier reply of the
// same model that recorded one, and at the end).
type responsesInputOptions struct {
	additionalTools []any
	configEffort    string
}

func convertResponsesInput(m *llm.Model, c *llm.Context, compat ResponsesCompat, opt responsesInputOptions) []any {
	var out []any
	if len(opt.additionalTools) > 0 {
		out = append(out, llm.Obj{{K: "type", V: "additional_tools"}, {K: "role", V: "developer"}, {K: "tools", V: opt.additionalTools}})
	}
	configUpdate := func(effort string) llm.Obj {
		return llm.Obj{{K: "type", V: "configuration_update"}, {K: "reasoning", V: llm.Obj{{K: "effort", V: effort}}}}
	}
	msgs := llm.TransformMessages(c.Messages, m, normalizeResponsesToolCallID(m))
	if c.SystemPrompt != "" {
		role := "system"
		if m.Reasoning && compat.SupportsDeveloperRole {
			role = "developer"
		}
		out = append(out, llm.Obj{{K: "role", V: role}, {K: "content", V: c.SystemPrompt}})
	}
	msgIndex := 0
	for i := range msgs {
		msg := &msgs[i]
		switch msg.Role {
		case llm.RoleUser:
			var parts []any
			for _, b := range msg.Content {
				if b.Type == llm.TypeText {
					parts = append(parts, llm.Obj{{K: "type", V: "input_text"}, {K: "text", V: b.Text}})
				} else if b.Type == llm.TypeImage {
					parts = append(parts, llm.Obj{{K: "type", V: "input_image"}, {K: "detail", V: "auto"}, {K: "image_url", V: "data:" + b.MimeType + ";base64," + b.Data}})
				}
			}
			if len(parts) == 0 {
				continue
			}
			out = append(out, llm.Obj{{K: "role", V: "user"}, {K: "content", V: parts}})
		case llm.RoleAssistant:
			sameAPI := msg.Provider == m.Provider && msg.API == m.API
			differentModel := sameAPI && msg.Model != m.ID
			var items []any
			textIndex := 0
			for _, b := range msg.Content {
				switch b.Type {
				case llm.TypeThinking:
					if b.ThinkingSignature != "" {
						if v, err := llm.DecodeOrdered([]byte(b.ThinkingSignature)); err == nil {
							items = append(items, v)
						}
					}
				case llm.TypeText:
					id, phase := textSignature(b.TextSignature)
					if id == "" {
						id = fmt.Sprintf("msg_pi_%d", msgIndex)
						if textIndex > 0 {
							id = fmt.Sprintf("msg_pi_%d_%d", msgIndex, textIndex)
						}
					} else if llm.JSLen(id) > 64 {
						id = "msg_" + llm.ShortHash(id)
					}
					textIndex++
					item := llm.Obj{{K: "type", V: "message"}, {K: "role", V: "assistant"},
						{K: "content", V: []any{llm.Obj{{K: "type", V: "output_text"}, {K: "text", V: b.Text}, {K: "annotations", V: []any{}}}}},
						{K: "status", V: "completed"}, {K: "id", V: id}}
					if phase != "" {
						item = append(item, llm.Field{K: "phase", V: phase})
					}
					items = append(items, item)
				case llm.TypeToolCall:
					parts := strings.Split(b.ID, "|")
					callID := parts[0]
					itemID := ""
					hasItem := len(parts) > 1
					if hasItem {
						itemID = parts[1]
					}
					if (differentModel && strings.HasPrefix(itemID, "fc_")) || !strings.HasPrefix(itemID, "fc_") {
						hasItem = false
					}
					args := b.Arguments
					if len(args) == 0 {
						args = json.RawMessage("{}")
					}
					item := llm.Obj{{K: "type", V: "function_call"}}
					if hasItem {
						item = append(item, llm.Field{K: "id", V: itemID})
					}
					item = append(item, llm.Field{K: "call_id", V: callID}, llm.Field{K: "name", V: b.Name},
						llm.Field{K: "arguments", V: llm.JSONText(args)})
					items = append(items, item)
				}
			}
			if len(items) == 0 {
				continue
			}
			if opt.configEffort != "" && sameAPI && !differentModel && msg.ProviderThinkingLevel != "" {
				out = append(out, configUpdate(msg.ProviderThinkingLevel))
			}
			out = append(out, items...)
		case llm.RoleToolResult:
			callID, _, _ := strings.Cut(msg.ToolCallID, "|")
			out = append(out, llm.Obj{{K: "type", V: "function_call_output"}, {K: "call_id", V: callID}, {K: "output", V: toolResultOutput(m, msg.Content)}})
		}
		msgIndex++
	}
	if opt.configEffort != "" {
		out = append(out, configUpdate(opt.configEffort))
	}
	return out
}

func convertResponsesTools(tools []llm.Tool, compat ResponsesCompat) []any {
	var out []any
	for _, t := range tools {
		tool := llm.Obj{{K: "type", V: "function"}, {K: "name", V: t.Name}, {K: "description", V: t.Description}, {K: "parameters", V: t.Parameters}}
		if compat.SupportsStrictMode {
			tool = append(tool, llm.Field{K: "strict", V: false})
		}
		out = append(out, tool)
	}
	return out
}

type responsesParams struct {
	maxTokens int
	effort    string
	retention string
	sessionID string
	memo      *llm.BodyMemo
}

func resolveResponsesParams(m *llm.Model, c *llm.Context, o *llm.Options) responsesParams {
	p := responsesParams{maxTokens: llm.RequestMaxTokens(m, c, o), retention: o.Retention()}
	if o != nil {
		if o.ThinkingLevel != "" && o.ThinkingLevel != "off" {
			if l := m.ClampThinkingLevel(o.ThinkingLevel); l != "off" {
				p.effort = l
			}
		}
		p.sessionID = o.SessionID
		p.memo = o.Memo
	}
	return p
}

// BuildResponsesBody is the request body pi sends (pi's buildResponsesParams), in pi's key order.
func BuildResponsesBody(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
	compat := ResolveResponsesCompat(m)
	return llm.AppendJSON(nil, buildResponsesParams(m, c, compat, resolveResponsesParams(m, c, o)))
}

func buildResponsesParams(m *llm.Model, c *llm.Context, compat ResponsesCompat, p responsesParams) llm.Obj {
	var input any = convertResponsesMessages(m, c, compat)
	if p.memo != nil {
		input = llm.MemoArray(p.memo, input.([]any))
	}
	body := llm.Obj{{K: "model", V: m.ID}, {K: "input", V: input}, {K: "stream", V: true}}
	if p.retention != "none" && p.sessionID != "" {
		body = append(body, llm.Field{K: "prompt_cache_key", V: clampCacheKey(p.sessionID)})
	}
	if p.retention == "long" && compat.SupportsLongCacheRetention {
		body = append(body, llm.Field{K: "prompt_cache_retention", V: "24h"})
	}
	body = append(body, llm.Field{K: "store", V: false})
	if p.maxTokens > 0 {
		body = append(body, llm.Field{K: "max_output_tokens", V: max(p.maxTokens, 16)})
	}
	if len(c.Tools) > 0 {
		body = append(body, llm.Field{K: "tools", V: convertResponsesTools(c.Tools, compat)})
	}
	if m.Reasoning {
		if p.effort != "" {
			effort := p.effort
			if v, present, null := m.MappedLevel(p.effort); present && !null {
				effort = v
			}
			body = append(body, llm.Field{K: "reasoning", V: llm.Obj{{K: "effort", V: effort}, {K: "summary", V: "auto"}}},
				llm.Field{K: "include", V: []string{"reasoning.encrypted_content"}})
		} else if _, _, null := m.MappedLevel("off"); m.Provider != "github-copilot" && !null {
			off := "none"
			if v, present, _ := m.MappedLevel("off"); present {
				off = v
			}
			body = append(body, llm.Field{K: "reasoning", V: llm.Obj{{K: "effort", V: off}}})
		}
		if m.Provider == "xai" {
			body = body.Set("include", []string{"reasoning.encrypted_content"})
		}
	}
	return body
}

// Headers are the request headers pi's client sets (besides the SDK's own).
func ResponsesHeaders(m *llm.Model, c *llm.Context, o *llm.Options, compat ResponsesCompat, sessionID string) []llm.Header {
	hs := []llm.Header{{Name: "User-Agent", Value: llm.UserAgent()}}
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		hs = llm.SetHeader(hs, k, m.Headers[k])
	}
	if m.Provider == "github-copilot" && c != nil {
		ch := llm.CopilotHeaders(c)
		for _, k := range slices.Sorted(maps.Keys(ch)) {
			hs = llm.SetHeader(hs, k, ch[k])
		}
	}
	if sessionID != "" {
		hs = sessionHeaders(hs, compat.SessionAffinityFormat, sessionID, false)
	}
	if o != nil {
		for _, k := range slices.Sorted(maps.Keys(o.Headers)) {
			hs = llm.SetHeader(hs, k, o.Headers[k])
		}
	}
	return hs
}

const errorPrefix = "OpenAI API error"

// Stream implements llm.Provider.
func (Responses) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	b := llm.NewBuilder(m, emit).Live(o)
	key := m.APIKey
	var oh map[string]string
	if o != nil {
		oh = o.Headers
	}
	if key == "" {
		if !llm.HasHeader(oh, "authorization") && !llm.HasHeader(oh, "cf-aig-authorization") {
			return b.Fail(ctx, "No API key for provider: "+m.Provider)
		}
		key = "unused"
	}
	compat := ResolveResponsesCompat(m)
	p := resolveResponsesParams(m, c, o)
	body := llm.AppendJSON(nil, buildResponsesParams(m, c, compat, p))
	sessionID := p.sessionID
	if p.retention == "none" {
		sessionID = ""
	}
	hs := []llm.Header{{Name: "Content-Type", Value: "application/json"}, {Name: "Accept", Value: "application/json"},
		{Name: "Authorization", Value: "Bearer " + key}}
	for _, h := range ResponsesHeaders(m, c, o, compat, sessionID) {
		hs = llm.SetHeader(hs, h.Name, h.Value)
	}
	rc, failed := llm.Open(ctx, b, o, llm.Request{URL: strings.TrimRight(m.BaseURL, "/") + "/responses", Headers: hs, Body: body,
		HTTPError: func(status int, text string) string { return llm.OpenAIHTTPError(status, text, errorPrefix) }})
	if failed != nil {
		return failed
	}
	defer rc.Close()
	return runResponses(ctx, b, m, rc)
}

type item struct {
	Type      string                  `json:"type"`
	ID        string                  `json:"id"`
	CallID    string                  `json:"call_id"`
	Name      string                  `json:"name"`
	Arguments string                  `json:"arguments"`
	Phase     string                  `json:"phase"`
	Summary   []struct{ Text string } `json:"summary"`
	Content   []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	EncryptedContent string `json:"encrypted_content"`
}

type response struct {
	ID                string `json:"id"`
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Output []json.RawMessage `json:"output"`
	Usage  *struct {
		InputTokens        int `json:"input_tokens"`
		OutputTokens       int `json:"output_tokens"`
		TotalTokens        int `json:"total_tokens"`
		InputTokensDetails *struct {
			CachedTokens     int `json:"cached_tokens"`
			CacheWriteTokens int `json:"cache_write_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

type event struct {
	Type        string          `json:"type"`
	OutputIndex int             `json:"output_index"`
	Item        json.RawMessage `json:"item"`
	Delta       string          `json:"delta"`
	Arguments   *string         `json:"arguments"`
	Response    *response       `json:"response"`
	Code        json.RawMessage `json:"code"`
	Message     string          `json:"message"`
	Error       json.RawMessage `json:"error"`
}

type slot struct {
	kind    string // thinking | text | toolCall
	index   int
	partial *llm.PartialJSON
}

// MapStatus is pi's mapStopReason for a response status.
func MapStatus(status, reason string) (stop, errorMessage string) {
	switch status {
	case "", "completed", "in_progress", "queued":
		return llm.StopStop, ""
	case "incomplete":
		if reason == "max_output_tokens" {
			return llm.StopLength, ""
		}
		if reason != "" {
			return llm.StopError, "Response incomplete: " + reason
		}
		return llm.StopError, "Response incomplete without a provider reason"
	case "failed", "cancelled":
		return llm.StopError, ""
	}
	return llm.StopError, "Unhandled stop reason: " + status
}

func jsString(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	if len(v) == 0 {
		return "undefined"
	}
	return string(v)
}

func runResponses(ctx context.Context, b *llm.Builder, m *llm.Model, body io.Reader) *llm.Message {
	return runResponsesStream(ctx, b, m, body, false)
}

// runResponsesStream parses a Responses event stream; codex applies the Codex backend's event
// mapping (its error texts, response.done, statuses it may send that pi drops).
func runResponsesStream(ctx context.Context, b *llm.Builder, m *llm.Model, body io.Reader, codex bool) *llm.Message {
	msg := b.Msg()
	msg.StopReason = "pending"
	slots := map[int]*slot{}
	reasoningByID := map[string]int{}
	terminal := false
	create := func(oi int, it *item) *slot {
		var s *slot
		switch it.Type {
		case "reasoning":
			s = &slot{kind: llm.TypeThinking, index: b.Add(llm.Content{Type: llm.TypeThinking})}
			b.At(llm.EventThinkingStart, s.index)
		case "message":
			if it.Phase == "final_answer" {
				msg.StopReason = llm.StopStop
			}
			s = &slot{kind: llm.TypeText, index: b.Add(llm.Content{Type: llm.TypeText})}
			b.At(llm.EventTextStart, s.index)
		case "function_call":
			s = &slot{kind: llm.TypeToolCall, index: b.Add(llm.Content{Type: llm.TypeToolCall, ID: it.CallID + "|" + it.ID, Name: it.Name, Arguments: json.RawMessage("{}")}),
				partial: &llm.PartialJSON{}}
			s.partial.Feed(it.Arguments)
			b.At(llm.EventToolCallStart, s.index)
		default:
			return nil
		}
		slots[oi] = s
		return s
	}
	get := func(oi int, kind string) *slot {
		if s := slots[oi]; s != nil && s.kind == kind {
			return s
		}
		return nil
	}
	err := llm.EachSSE(ctx, b, body, func(sev sse.Event) error {
		if strings.HasPrefix(sev.Data, "[DONE]") {
			return nil
		}
		if codex && terminal {
			return nil // the Codex stream ends at its terminal event
		}
		var ev event
		if err := json.Unmarshal([]byte(sev.Data), &ev); err != nil {
			if codex {
				return llm.Failure("Invalid Codex SSE JSON: " + err.Error())
			}
			return llm.Failure("Unexpected token in JSON: " + err.Error())
		}
		if codex {
			if err := codexEvent(sev.Data, &ev); err != nil {
				return err
			}
		} else if e := strings.TrimSpace(string(ev.Error)); e != "" && e != "null" && e != "false" {
			return llm.Failure(llm.StreamErrorMessage(ev.Error))
		}
		switch ev.Type {
		case "response.created":
			if ev.Response != nil {
				msg.ResponseID = ev.Response.ID
			}
		case "response.output_item.added":
			var it item
			if json.Unmarshal(ev.Item, &it) == nil {
				create(ev.OutputIndex, &it)
			}
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			if s := get(ev.OutputIndex, llm.TypeThinking); s != nil {
				b.Append(s.index, ev.Delta)
				b.Delta(llm.EventThinkingDelta, s.index, ev.Delta)
			}
		case "response.reasoning_summary_part.done":
			if s := get(ev.OutputIndex, llm.TypeThinking); s != nil {
				b.Append(s.index, "\n\n")
				b.Delta(llm.EventThinkingDelta, s.index, "\n\n")
			}
		case "response.output_text.delta", "response.refusal.delta":
			if s := get(ev.OutputIndex, llm.TypeText); s != nil {
				b.Append(s.index, ev.Delta)
				b.Delta(llm.EventTextDelta, s.index, ev.Delta)
			}
		case "response.function_call_arguments.delta":
			if s := get(ev.OutputIndex, llm.TypeToolCall); s != nil {
				s.partial.Feed(ev.Delta)
				blk := b.Block(s.index)
				blk.Arguments = s.partial.Snapshot()
				b.SetBlock(s.index, blk)
				b.Delta(llm.EventToolCallDelta, s.index, ev.Delta)
			}
		case "response.function_call_arguments.done":
			if s := get(ev.OutputIndex, llm.TypeToolCall); s != nil && ev.Arguments != nil {
				prev := s.partial.Raw()
				s.partial = &llm.PartialJSON{}
				s.partial.Feed(*ev.Arguments)
				blk := b.Block(s.index)
				blk.Arguments = llm.ParseStreamingJSON(*ev.Arguments)
				b.SetBlock(s.index, blk)
				if strings.HasPrefix(*ev.Arguments, prev) && len(*ev.Arguments) > len(prev) {
					b.Delta(llm.EventToolCallDelta, s.index, (*ev.Arguments)[len(prev):])
				}
			}
		case "response.output_item.done":
			var it item
			if json.Unmarshal(ev.Item, &it) != nil {
				return nil
			}
			if it.Type == "message" && it.Phase == "final_answer" {
				msg.StopReason = llm.StopStop
			}
			s := slots[ev.OutputIndex]
			if s == nil {
				s = create(ev.OutputIndex, &it)
			}
			if s == nil {
				return nil
			}
			switch {
			case it.Type == "reasoning" && s.kind == llm.TypeThinking:
				var sum, con []string
				for _, x := range it.Summary {
					sum = append(sum, x.Text)
				}
				for _, x := range it.Content {
					con = append(con, x.Text)
				}
				blk := b.Block(s.index)
				if t := strings.Join(sum, "\n\n"); t != "" {
					b.SetText(s.index, t)
				} else if t := strings.Join(con, "\n\n"); t != "" {
					b.SetText(s.index, t)
				}
				blk = b.Block(s.index)
				sig, err := llm.JSONStringify(ev.Item)
				if err != nil {
					sig = ev.Item
				}
				blk.ThinkingSignature = string(sig)
				b.SetBlock(s.index, blk)
				reasoningByID[it.ID] = s.index
				b.EndText(s.index)
				delete(slots, ev.OutputIndex)
			case it.Type == "message" && s.kind == llm.TypeText:
				var parts []string
				for _, x := range it.Content {
					if x.Type == "output_text" {
						parts = append(parts, x.Text)
					} else {
						parts = append(parts, x.Refusal)
					}
				}
				b.SetText(s.index, strings.Join(parts, ""))
				blk := b.Block(s.index)
				sig := llm.Obj{{K: "v", V: 1}, {K: "id", V: it.ID}}
				if it.Phase != "" {
					sig = append(sig, llm.Field{K: "phase", V: it.Phase})
				}
				blk.TextSignature = string(llm.AppendJSON(nil, sig))
				b.SetBlock(s.index, blk)
				b.EndText(s.index)
				delete(slots, ev.OutputIndex)
			case it.Type == "function_call" && s.kind == llm.TypeToolCall:
				args := it.Arguments
				if args == "" {
					args = s.partial.Raw()
				}
				if args == "" {
					args = "{}"
				}
				blk := b.Block(s.index)
				blk.Arguments = llm.ParseStreamingJSON(args)
				b.SetBlock(s.index, blk)
				b.EndToolCall(s.index)
				delete(slots, ev.OutputIndex)
			}
		case "response.completed", "response.incomplete":
			terminal = true
			finalize(b, m, ev.Response, reasoningByID)
		case "error":
			return llm.Failure(fmt.Sprintf("Error Code %s: %s", jsString(ev.Code), ev.Message))
		case "response.failed":
			terminal = true
			res := ev.Response
			em := "Unknown error (no error details in response)"
			if res != nil {
				msg.RawStopReason = res.Status
				if res.Error != nil {
					code, text := res.Error.Code, res.Error.Message
					if code == "" {
						code = "unknown"
					}
					if text == "" {
						text = "no message"
					}
					em = code + ": " + text
				} else if res.IncompleteDetails != nil && res.IncompleteDetails.Reason != "" {
					em = "incomplete: " + res.IncompleteDetails.Reason
				}
			}
			return llm.Failure(em)
		}
		return nil
	})
	if err != nil {
		return b.Fail(ctx, err.Error())
	}
	if ctx.Err() != nil {
		return b.Fail(ctx, llm.StreamAborted)
	}
	if !terminal {
		return b.Fail(ctx, "OpenAI Responses stream ended before a terminal response event")
	}
	if msg.StopReason == "pending" {
		if m.API == AzureResponsesAPI {
			return b.Fail(ctx, "Azure OpenAI Responses stream ended without a stop reason")
		}
		return b.Fail(ctx, "OpenAI Responses stream ended without a stop reason")
	}
	if msg.StopReason == llm.StopError || msg.StopReason == llm.StopAborted {
		em := msg.ErrorMessage
		if em == "" {
			em = "An unknown error occurred"
		}
		return b.Fail(ctx, em)
	}
	return b.Done()
}

func finalize(b *llm.Builder, m *llm.Model, res *response, reasoningByID map[string]int) {
	msg := b.Msg()
	if res == nil {
		llm.CalculateCost(m, msg.Usage)
		msg.StopReason = llm.StopStop
		return
	}
	for _, raw := range res.Output {
		var it item
		if json.Unmarshal(raw, &it) != nil || it.Type != "reasoning" || it.EncryptedContent == "" {
			continue
		}
		i, ok := reasoningByID[it.ID]
		if !ok {
			continue
		}
		blk := b.Block(i)
		if blk.ThinkingSignature == "" {
			continue
		}
		v, err := llm.DecodeOrdered([]byte(blk.ThinkingSignature))
		o, isObj := v.(llm.Obj)
		if err != nil || !isObj {
			continue
		}
		if ec, ok := o.Get("encrypted_content"); ok && ec != nil && ec != "" {
			continue
		}
		blk.ThinkingSignature = string(llm.AppendJSON(nil, o.Set("encrypted_content", it.EncryptedContent)))
		b.SetBlock(i, blk)
	}
	if res.ID != "" {
		msg.ResponseID = res.ID
	}
	if u := res.Usage; u != nil {
		cached, write, reasoning := 0, 0, 0
		if u.InputTokensDetails != nil {
			cached, write = u.InputTokensDetails.CachedTokens, u.InputTokensDetails.CacheWriteTokens
		}
		if u.OutputTokensDetails != nil {
			reasoning = u.OutputTokensDetails.ReasoningTokens
		}
		msg.Usage = &llm.Usage{Input: max(0, u.InputTokens-cached-write), Output: u.OutputTokens, CacheRead: cached, CacheWrite: write,
			Reasoning: &reasoning, TotalTokens: u.TotalTokens}
	}
	llm.CalculateCost(m, msg.Usage)
	reason := ""
	if res.IncompleteDetails != nil {
		reason = res.IncompleteDetails.Reason
	}
	msg.RawStopReason = res.Status
	if reason != "" {
		msg.RawStopReason = res.Status + "." + reason
	}
	stop, em := MapStatus(res.Status, reason)
	msg.StopReason, msg.ErrorMessage = stop, em
	if stop == llm.StopStop && len(msg.ToolCalls()) > 0 {
		msg.StopReason = llm.StopToolUse
	}
}

func init() { llm.Register(ResponsesAPI, Responses{}) }
