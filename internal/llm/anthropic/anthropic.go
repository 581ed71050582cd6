// Package anthropic is pigo's client for the anthropic-messages API (POST {baseUrl}/v1/messages,
// streamed): the request pi 0.84 builds (system prompt blocks, cache_control on the system
// prompt, the last tool and the last user block, thinking budgets per level, thinking blocks
// sent back verbatim with their signatures, redacted thinking) and pi's parsing of the event
// stream (message_start usage, content blocks, input_json_delta, signature_delta, ping, error
// events, stop reasons).
package anthropic

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

// API is the models.json api value this package serves.
const API = "anthropic-messages"

// Version is the anthropic-version header the Anthropic SDK sends.
const Version = "2023-06-01"

const (
	fineGrainedToolStreamingBeta = "fine-grained-tool-streaming-2025-05-14"
	interleavedThinkingBeta      = "interleaved-thinking-2025-05-14"
)

// Provider streams anthropic-messages responses.
type Provider struct{}

// Compat is pi's getAnthropicCompat (models.json compat for this API).
type Compat struct {
	SupportsEagerToolInputStreaming bool
	SupportsLongCacheRetention      bool
	SendSessionAffinityHeaders      bool
	SupportsCacheControlOnTools     bool
	AllowEmptySignature             bool
	ForceAdaptiveThinking           bool
}

// ResolveCompat reads the model's compat with pi's defaults.
func ResolveCompat(m *llm.Model) Compat {
	var r struct {
		SupportsEagerToolInputStreaming *bool `json:"supportsEagerToolInputStreaming"`
		SupportsLongCacheRetention      *bool `json:"supportsLongCacheRetention"`
		SendSessionAffinityHeaders      *bool `json:"sendSessionAffinityHeaders"`
		SupportsCacheControlOnTools     *bool `json:"supportsCacheControlOnTools"`
		AllowEmptySignature             *bool `json:"allowEmptySignature"`
		ForceAdaptiveThinking           *bool `json:"forceAdaptiveThinking"`
	}
	if len(m.Compat) > 0 {
		_ = json.Unmarshal(m.Compat, &r)
	}
	or := func(p *bool, d bool) bool {
		if p != nil {
			return *p
		}
		return d
	}
	return Compat{
		SupportsEagerToolInputStreaming: or(r.SupportsEagerToolInputStreaming, true),
		SupportsLongCacheRetention:      or(r.SupportsLongCacheRetention, true),
		SendSessionAffinityHeaders:      or(r.SendSessionAffinityHeaders, false),
		SupportsCacheControlOnTools:     or(r.SupportsCacheControlOnTools, true),
		AllowEmptySignature:             or(r.AllowEmptySignature, false),
		ForceAdaptiveThinking:           r.ForceAdaptiveThinking != nil && *r.ForceAdaptiveThinking,
	}
}

// params are the values pi's streamSimple derives.
type params struct {
	maxTokens      int
	thinking       bool // thinkingEnabled: true / false
	budget         int
	effort         string
	cacheControl   llm.Obj
	retention      string
	sessionID      string
	thinkingOption bool // a reasoning level was requested
	// oauth: the key is a Claude subscription token (sk-ant-oat…), sent as Claude Code sends it.
	oauth bool
	memo  *llm.BodyMemo
}

// IsOAuthToken reports a Claude Pro/Max access token, which pi sends as Claude Code does
// (bearer auth, Claude Code's identity headers and betas, its system prompt line and tool
// names).
func IsOAuthToken(key string) bool { return strings.Contains(key, "sk-ant-oat") }

// claudeCodeVersion is the Claude Code release pi 1.6 presents itself as with a subscription.
const claudeCodeVersion = "2.1.322"

// claudeCodeTools are Claude Code 2.x's tool names: a tool of the same name (any case) is sent
// with this casing under a subscription, and mapped back when the model calls it.
var claudeCodeTools = []string{"Read", "Write", "Edit", "Bash", "Grep", "Glob", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode",
	"KillShell", "NotebookEdit", "Skill", "Task", "TaskOutput", "TodoWrite", "WebFetch", "WebSearch"}

func toClaudeCodeName(name string) string {
	for _, t := range claudeCodeTools {
		if strings.EqualFold(t, name) {
			return t
		}
	}
	return name
}

func fromClaudeCodeName(name string, tools []llm.Tool) string {
	for _, t := range tools {
		if strings.EqualFold(t.Name, name) {
			return t.Name
		}
	}
	return name
}

func resolveParams(m *llm.Model, c *llm.Context, o *llm.Options, compat Compat) params {
	p := params{maxTokens: llm.RequestMaxTokens(m, c, o), retention: o.Retention(), oauth: IsOAuthToken(m.APIKey)}
	level := ""
	var budgets map[string]int
	if o != nil {
		if o.ThinkingLevel != "off" {
			level = o.ThinkingLevel
		}
		p.sessionID = o.SessionID
		budgets = o.ThinkingBudgets
		p.memo = o.Memo
	}
	if p.retention != "none" {
		p.cacheControl = llm.Obj{{K: "type", V: "ephemeral"}}
		if p.retention == "long" && compat.SupportsLongCacheRetention {
			p.cacheControl = append(p.cacheControl, llm.Field{K: "ttl", V: "1h"})
		}
	}
	if level == "" {
		return p
	}
	p.thinking, p.thinkingOption = true, true
	if compat.ForceAdaptiveThinking {
		p.effort = llm.ThinkingEffort(m, level)
		return p
	}
	mt, budget := llm.AdjustMaxTokensForThinking(p.maxTokens, m.MaxTokens, level, budgets)
	p.maxTokens = llm.ClampMaxTokens(m, c, mt)
	p.budget = min(budget, max(0, p.maxTokens-1024))
	return p
}

func normalizeToolCallID(id string, _ *llm.Message) string {
	id = llm.SanitizeID(id)
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}

// contentBlocks is pi's convertContentBlocks for user/tool-result content: a string when
// there are no images, else text and image blocks (with a placeholder text when only images).
func contentBlocks(cs []llm.Content) any {
	hasImages := false
	for _, c := range cs {
		if c.Type == llm.TypeImage {
			hasImages = true
		}
	}
	if !hasImages && len(cs) == 1 {
		// One block (a tool's output): its text as the session file wrote it, when it is.
		return cs[0].TextJSON()
	}
	if !hasImages {
		var ts []string
		for _, c := range cs {
			ts = append(ts, c.Text)
		}
		return strings.Join(ts, "\n")
	}
	var out []any
	hasText := false
	for _, c := range cs {
		if c.Type == llm.TypeText {
			hasText = true
			out = append(out, llm.Obj{{K: "type", V: "text"}, {K: "text", V: c.Text}})
		} else {
			out = append(out, image(c))
		}
	}
	if !hasText {
		out = append([]any{llm.Obj{{K: "type", V: "text"}, {K: "text", V: "(see attached image)"}}}, out...)
	}
	return out
}

func image(c llm.Content) llm.Obj {
	return llm.Obj{{K: "type", V: "image"}, {K: "source", V: llm.Obj{{K: "type", V: "base64"}, {K: "media_type", V: c.MimeType}, {K: "data", V: c.Data}}}}
}

func convertMessages(msgs []llm.Message, cc llm.Obj, compat Compat, oauth bool) []llm.Obj {
	var out []llm.Obj
	for i := 0; i < len(msgs); i++ {
		msg := &msgs[i]
		switch msg.Role {
		case llm.RoleUser:
			if msg.StringContent {
				if t := msg.Text(); strings.TrimSpace(t) != "" {
					out = append(out, llm.Obj{{K: "role", V: "user"}, {K: "content", V: t}})
				}
				continue
			}
			var blocks []any
			for _, c := range msg.Content {
				if c.Type == llm.TypeText {
					if strings.TrimSpace(c.Text) != "" {
						blocks = append(blocks, llm.Obj{{K: "type", V: "text"}, {K: "text", V: c.Text}})
					}
				} else if c.Type == llm.TypeImage {
					blocks = append(blocks, image(c))
				}
			}
			if len(blocks) == 0 {
				continue
			}
			out = append(out, llm.Obj{{K: "role", V: "user"}, {K: "content", V: blocks}})
		case llm.RoleAssistant:
			var blocks []any
			for k := range msg.Content {
				b := &msg.Content[k]
				switch b.Type {
				case llm.TypeText:
					if strings.TrimSpace(b.Text) == "" {
						continue
					}
					blocks = append(blocks, llm.Obj{{K: "type", V: "text"}, {K: "text", V: b.TextJSON()}})
				case llm.TypeThinking:
					if b.Redacted {
						blocks = append(blocks, llm.Obj{{K: "type", V: "redacted_thinking"}, {K: "data", V: b.ThinkingSignature}})
						continue
					}
					hasSig := strings.TrimSpace(b.ThinkingSignature) != ""
					if strings.TrimSpace(b.Thinking) == "" && !hasSig {
						continue
					}
					switch {
					case hasSig:
						blocks = append(blocks, llm.Obj{{K: "type", V: "thinking"}, {K: "thinking", V: b.ThinkingJSON()}, {K: "signature", V: b.ThinkingSignature}})
					case compat.AllowEmptySignature:
						blocks = append(blocks, llm.Obj{{K: "type", V: "thinking"}, {K: "thinking", V: b.ThinkingJSON()}, {K: "signature", V: ""}})
					default:
						blocks = append(blocks, llm.Obj{{K: "type", V: "text"}, {K: "text", V: b.ThinkingJSON()}})
					}
				case llm.TypeToolCall:
					args := b.Arguments
					if len(args) == 0 {
						args = json.RawMessage("{}")
					}
					name := b.Name
					if oauth {
						name = toClaudeCodeName(name)
					}
					blocks = append(blocks, llm.Obj{{K: "type", V: "tool_use"}, {K: "id", V: b.ID}, {K: "name", V: name}, {K: "input", V: args}})
				}
			}
			if len(blocks) == 0 {
				continue
			}
			out = append(out, llm.Obj{{K: "role", V: "assistant"}, {K: "content", V: blocks}})
		case llm.RoleToolResult:
			var results []any
			j := i
			for ; j < len(msgs) && msgs[j].Role == llm.RoleToolResult; j++ {
				tr := &msgs[j]
				r := llm.Obj{{K: "type", V: "tool_result"}, {K: "tool_use_id", V: tr.ToolCallID}, {K: "content", V: contentBlocks(tr.Content)}}
				if tr.IsError != nil {
					r = append(r, llm.Field{K: "is_error", V: *tr.IsError})
				}
				results = append(results, r)
			}
			i = j - 1
			out = append(out, llm.Obj{{K: "role", V: "user"}, {K: "content", V: results}})
		}
	}
	if cc != nil && len(out) > 0 {
		last := out[len(out)-1]
		if r, _ := last.Get("role"); r == "user" {
			content, _ := last.Get("content")
			switch t := content.(type) {
			case []any:
				if lb, ok := t[len(t)-1].(llm.Obj); ok {
					if ty, _ := lb.Get("type"); ty == "text" || ty == "image" || ty == "tool_result" {
						t[len(t)-1] = lb.Set("cache_control", cc)
					}
				}
			case string:
				out[len(out)-1] = last.Set("content", []any{llm.Obj{{K: "type", V: "text"}, {K: "text", V: t}, {K: "cache_control", V: cc}}})
			}
		}
	}
	return out
}

func convertTools(tools []llm.Tool, compat Compat, cc llm.Obj, oauth bool) []any {
	var out []any
	for i, t := range tools {
		var schema struct {
			Properties json.RawMessage `json:"properties"`
			Required   json.RawMessage `json:"required"`
		}
		_ = json.Unmarshal(t.Parameters, &schema)
		props, req := any(llm.Obj{}), any([]any{})
		if len(schema.Properties) > 0 && string(schema.Properties) != "null" {
			props = schema.Properties
		}
		if len(schema.Required) > 0 && string(schema.Required) != "null" {
			req = schema.Required
		}
		name := t.Name
		if oauth {
			name = toClaudeCodeName(name)
		}
		tool := llm.Obj{{K: "name", V: name}, {K: "description", V: t.Description}}
		if compat.SupportsEagerToolInputStreaming {
			tool = append(tool, llm.Field{K: "eager_input_streaming", V: true})
		}
		tool = append(tool, llm.Field{K: "input_schema", V: llm.Obj{{K: "type", V: "object"}, {K: "properties", V: props}, {K: "required", V: req}}})
		if cc != nil && compat.SupportsCacheControlOnTools && i == len(tools)-1 {
			tool = append(tool, llm.Field{K: "cache_control", V: cc})
		}
		out = append(out, tool)
	}
	return out
}

// BuildBody is the request body pi sends (pi's buildParams plus stream:true), in pi's order.
func BuildBody(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
	compat := ResolveCompat(m)
	return llm.AppendJSON(nil, buildParams(m, c, compat, resolveParams(m, c, o, compat)))
}

func buildParams(m *llm.Model, c *llm.Context, compat Compat, p params) llm.Obj {
	msgs := llm.TransformMessages(c.Messages, m, normalizeToolCallID)
	var messages any = convertMessages(msgs, p.cacheControl, compat, p.oauth)
	if p.memo != nil {
		messages = llm.MemoArray(p.memo, messages.([]llm.Obj))
	}
	body := llm.Obj{{K: "model", V: m.ID}, {K: "messages", V: messages},
		{K: "max_tokens", V: p.maxTokens}, {K: "stream", V: true}}
	sysBlock := func(text string) llm.Obj {
		sys := llm.Obj{{K: "type", V: "text"}, {K: "text", V: text}}
		if p.cacheControl != nil {
			sys = append(sys, llm.Field{K: "cache_control", V: p.cacheControl})
		}
		return sys
	}
	var system []any
	if p.oauth {
		// A subscription token must come with Claude Code's identity.
		system = append(system, sysBlock("You are Claude Code, Anthropic's official CLI for Claude."))
	}
	if c.SystemPrompt != "" {
		system = append(system, sysBlock(c.SystemPrompt))
	}
	if len(system) > 0 {
		body = append(body, llm.Field{K: "system", V: system})
	}
	if len(c.Tools) > 0 {
		body = append(body, llm.Field{K: "tools", V: convertTools(c.Tools, compat, p.cacheControl, p.oauth)})
	}
	if m.Reasoning {
		if p.thinking {
			if compat.ForceAdaptiveThinking {
				body = append(body, llm.Field{K: "thinking", V: llm.Obj{{K: "type", V: "adaptive"}, {K: "display", V: "summarized"}}})
				if p.effort != "" {
					body = append(body, llm.Field{K: "output_config", V: llm.Obj{{K: "effort", V: p.effort}}})
				}
			} else {
				budget := p.budget
				if budget == 0 {
					budget = 1024
				}
				body = append(body, llm.Field{K: "thinking", V: llm.Obj{{K: "type", V: "enabled"}, {K: "budget_tokens", V: budget}, {K: "display", V: "summarized"}}})
			}
		} else if _, _, null := m.MappedLevel("off"); !null {
			body = append(body, llm.Field{K: "thinking", V: llm.Obj{{K: "type", V: "disabled"}}})
		}
	}
	return body
}

// Headers are the request headers pi's client sets (the SDK adds x-api-key,
// anthropic-version and content-type).
func Headers(m *llm.Model, c *llm.Context, o *llm.Options, compat Compat, sessionID string) []llm.Header {
	oauth := IsOAuthToken(m.APIKey) && m.Provider != "github-copilot"
	var hs []llm.Header
	if oauth {
		// Claude Code's identity instead of pigo's.
		hs = []llm.Header{{Name: "accept", Value: "application/json"}, {Name: "anthropic-dangerous-direct-browser-access", Value: "true"},
			{Name: "user-agent", Value: "claude-cli/" + claudeCodeVersion}, {Name: "x-app", Value: "cli"}}
	} else {
		hs = []llm.Header{{Name: "User-Agent", Value: llm.UserAgent()}, {Name: "accept", Value: "application/json"},
			{Name: "anthropic-dangerous-direct-browser-access", Value: "true"}}
	}
	var betas []string
	if oauth {
		betas = append(betas, "claude-code-20250219", "oauth-2025-04-20")
	}
	if len(c.Tools) > 0 && !compat.SupportsEagerToolInputStreaming {
		betas = append(betas, fineGrainedToolStreamingBeta)
	}
	if !compat.ForceAdaptiveThinking {
		betas = append(betas, interleavedThinkingBeta)
	}
	if len(betas) > 0 {
		hs = append(hs, llm.Header{Name: "anthropic-beta", Value: strings.Join(betas, ",")})
	}
	if sessionID != "" && compat.SendSessionAffinityHeaders && !oauth {
		hs = llm.SetHeader(hs, "x-session-affinity", sessionID)
	}
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		hs = llm.SetHeader(hs, k, m.Headers[k])
	}
	if m.Provider == "github-copilot" {
		ch := llm.CopilotHeaders(c)
		for _, k := range slices.Sorted(maps.Keys(ch)) {
			hs = llm.SetHeader(hs, k, ch[k])
		}
	}
	if o != nil {
		for _, k := range slices.Sorted(maps.Keys(o.Headers)) {
			hs = llm.SetHeader(hs, k, o.Headers[k])
		}
	}
	return hs
}

// Stream implements llm.Provider.
func (Provider) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	b := llm.NewBuilder(m, emit).Live(o)
	var oh map[string]string
	if o != nil {
		oh = o.Headers
	}
	if m.APIKey == "" && !llm.HasHeader(oh, "authorization") && !llm.HasHeader(oh, "x-api-key") && !llm.HasHeader(oh, "cf-aig-authorization") &&
		!llm.HasHeader(m.Headers, "authorization") && !llm.HasHeader(m.Headers, "x-api-key") && !llm.HasHeader(m.Headers, "cf-aig-authorization") {
		return b.Fail(ctx, "No API key for provider: "+m.Provider)
	}
	compat := ResolveCompat(m)
	p := resolveParams(m, c, o, compat)
	body := llm.AppendJSON(nil, buildParams(m, c, compat, p))
	sessionID := p.sessionID
	if p.retention == "none" {
		sessionID = ""
	}
	hs := []llm.Header{{Name: "content-type", Value: "application/json"}, {Name: "anthropic-version", Value: Version}}
	switch {
	case m.APIKey == "":
	case m.Provider == "github-copilot" || IsOAuthToken(m.APIKey):
		// GitHub Copilot and a Claude subscription authenticate with a bearer token.
		hs = append(hs, llm.Header{Name: "authorization", Value: "Bearer " + m.APIKey})
	default:
		hs = append(hs, llm.Header{Name: "x-api-key", Value: m.APIKey})
	}
	for _, h := range Headers(m, c, o, compat, sessionID) {
		hs = llm.SetHeader(hs, h.Name, h.Value)
	}
	rc, failed := llm.Open(ctx, b, o, llm.Request{URL: strings.TrimRight(m.BaseURL, "/") + "/v1/messages", Headers: hs, Body: body,
		HTTPError: llm.AnthropicHTTPError})
	if failed != nil {
		return failed
	}
	defer rc.Close()
	return run(ctx, b, m, rc, c.Tools)
}

var messageEvents = map[string]bool{"message_start": true, "message_delta": true, "message_stop": true,
	"content_block_start": true, "content_block_delta": true, "content_block_stop": true}

type usage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheCreation            *struct {
		Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
	OutputTokensDetails *struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

type event struct {
	Type    string `json:"type"`
	Index   *int   `json:"index"`
	Message *struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage usage  `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
		StopDetails *struct {
			Explanation string `json:"explanation"`
		} `json:"stop_details"`
	} `json:"delta"`
	Usage *usage `json:"usage"`
}

func val(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// MapStopReason is pi's mapStopReason for anthropic-messages; err is set for a reason pi
// does not know ("Unhandled stop reason: …").
func MapStopReason(reason, explanation string) (stop, errorMessage string, err error) {
	switch reason {
	case "end_turn", "pause_turn", "stop_sequence":
		return llm.StopStop, "", nil
	case "max_tokens":
		return llm.StopLength, "", nil
	case "tool_use":
		return llm.StopToolUse, "", nil
	case "refusal":
		if explanation == "" {
			explanation = "The model refused to complete the request"
		}
		return llm.StopError, explanation, nil
	case "sensitive":
		return llm.StopError, "Provider stopped with: sensitive", nil
	}
	return "", "", fmt.Errorf("Unhandled stop reason: %s", reason)
}

func run(ctx context.Context, b *llm.Builder, m *llm.Model, body io.Reader, tools []llm.Tool) *llm.Message {
	oauth := IsOAuthToken(m.APIKey) && m.Provider != "github-copilot"
	msg := b.Msg()
	msg.StopReason = "pending"
	idx := map[int]int{} // stream index → content index, while the block is open
	partial := map[int]*llm.PartialJSON{}
	sawStart, sawStop := false, false
	r := sse.NewReader(body)
	r.FlushAtEOF = true
	cost := func() {
		u := msg.Usage
		u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
		llm.CalculateCost(m, u)
	}
	err := llm.Each(ctx, b, r.Next, func(sev sse.Event) error {
		if ctx.Err() != nil {
			return llm.Failure(llm.StreamAborted)
		}
		if sev.Event == "error" {
			return llm.Failure(sev.Data)
		}
		if !messageEvents[sev.Event] {
			return nil
		}
		var ev event
		if err := json.Unmarshal([]byte(sev.Data), &ev); err != nil && json.Unmarshal([]byte(llm.RepairJSON(sev.Data)), &ev) != nil {
			return llm.Failure(fmt.Sprintf("Could not parse Anthropic SSE event %s: %s; data=%s", sev.Event, err, sev.Data))
		}
		switch ev.Type {
		case "message_start":
			sawStart = true
			if ev.Message == nil {
				return nil
			}
			msg.ResponseID = ev.Message.ID
			msg.Model = ev.Message.Model
			u := ev.Message.Usage
			msg.Usage.Input, msg.Usage.Output = val(u.InputTokens), val(u.OutputTokens)
			msg.Usage.CacheRead, msg.Usage.CacheWrite = val(u.CacheReadInputTokens), val(u.CacheCreationInputTokens)
			h := 0
			if u.CacheCreation != nil {
				h = u.CacheCreation.Ephemeral1h
			}
			msg.Usage.CacheWrite1h = &h
			cost()
		case "message_stop":
			sawStop = true
		case "content_block_start":
			cb := ev.ContentBlock
			if cb == nil || ev.Index == nil {
				return nil
			}
			var i int
			switch cb.Type {
			case "text":
				i = b.Add(llm.Content{Type: llm.TypeText, Text: cb.Text})
				b.At(llm.EventTextStart, i)
			case "thinking":
				i = b.Add(llm.Content{Type: llm.TypeThinking, Thinking: cb.Thinking, ThinkingSignature: cb.Signature})
				b.At(llm.EventThinkingStart, i)
			case "redacted_thinking":
				i = b.Add(llm.Content{Type: llm.TypeThinking, Thinking: "[Reasoning redacted]", ThinkingSignature: cb.Data, Redacted: true})
				b.At(llm.EventThinkingStart, i)
			case "tool_use":
				args := cb.Input
				if len(args) == 0 || string(args) == "null" {
					args = json.RawMessage("{}")
				} else if s, err := llm.JSONStringify(args); err == nil {
					args = s
				}
				name := cb.Name
				if oauth {
					name = fromClaudeCodeName(name, tools)
				}
				i = b.Add(llm.Content{Type: llm.TypeToolCall, ID: cb.ID, Name: name, Arguments: args})
				partial[i] = &llm.PartialJSON{}
				b.At(llm.EventToolCallStart, i)
			default:
				return nil
			}
			idx[*ev.Index] = i
		case "content_block_delta":
			if ev.Delta == nil || ev.Index == nil {
				return nil
			}
			i, ok := idx[*ev.Index]
			if !ok {
				return nil
			}
			blk := b.Block(i)
			switch ev.Delta.Type {
			case "text_delta":
				if blk.Type == llm.TypeText {
					b.Append(i, ev.Delta.Text)
					b.Delta(llm.EventTextDelta, i, ev.Delta.Text)
				}
			case "thinking_delta":
				if blk.Type == llm.TypeThinking {
					b.Append(i, ev.Delta.Thinking)
					b.Delta(llm.EventThinkingDelta, i, ev.Delta.Thinking)
				}
			case "input_json_delta":
				if blk.Type == llm.TypeToolCall {
					partial[i].Feed(ev.Delta.PartialJSON)
					blk.Arguments = partial[i].Snapshot()
					b.SetBlock(i, blk)
					b.Delta(llm.EventToolCallDelta, i, ev.Delta.PartialJSON)
				}
			case "signature_delta":
				if blk.Type == llm.TypeThinking {
					blk.ThinkingSignature += ev.Delta.Signature
					b.SetBlock(i, blk)
				}
			}
		case "content_block_stop":
			if ev.Index == nil {
				return nil
			}
			i, ok := idx[*ev.Index]
			if !ok {
				return nil
			}
			delete(idx, *ev.Index)
			switch blk := b.Block(i); blk.Type {
			case llm.TypeText, llm.TypeThinking:
				b.EndText(i)
			case llm.TypeToolCall:
				blk.Arguments = llm.ParseStreamingJSON(partial[i].Raw())
				b.SetBlock(i, blk)
				b.EndToolCall(i)
			}
		case "message_delta":
			if ev.Delta != nil && ev.Delta.StopReason != "" {
				msg.RawStopReason = ev.Delta.StopReason
				expl := ""
				if ev.Delta.StopDetails != nil {
					expl = ev.Delta.StopDetails.Explanation
				}
				stop, em, err := MapStopReason(ev.Delta.StopReason, expl)
				if err != nil {
					return llm.Failure(err.Error())
				}
				msg.StopReason = stop
				if em != "" {
					msg.ErrorMessage = em
				}
			}
			if u := ev.Usage; u != nil {
				if u.InputTokens != nil {
					msg.Usage.Input = *u.InputTokens
				}
				if u.OutputTokens != nil {
					msg.Usage.Output = *u.OutputTokens
				}
				if u.CacheReadInputTokens != nil {
					msg.Usage.CacheRead = *u.CacheReadInputTokens
				}
				if u.CacheCreationInputTokens != nil {
					msg.Usage.CacheWrite = *u.CacheCreationInputTokens
				}
				if u.OutputTokensDetails != nil && u.OutputTokensDetails.ThinkingTokens != nil {
					t := *u.OutputTokensDetails.ThinkingTokens
					msg.Usage.Reasoning = &t
				}
			}
			cost()
		}
		return nil
	})
	if err != nil {
		return b.Fail(ctx, err.Error())
	}
	if ctx.Err() != nil {
		return b.Fail(ctx, llm.StreamAborted)
	}
	if sawStart && !sawStop {
		return b.Fail(ctx, "Anthropic stream ended before message_stop")
	}
	if msg.StopReason == "pending" {
		return b.Fail(ctx, "Anthropic stream ended without a stop reason")
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

func init() { llm.Register(API, Provider{}) }
