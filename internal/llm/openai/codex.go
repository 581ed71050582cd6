// The Codex Responses API (openai-codex-responses): ChatGPT Plus/Pro accounts' endpoint
// ({baseUrl}/codex/responses), the Responses wire with Codex's request shape (the system prompt
// as a leading developer item, store false, low verbosity, encrypted reasoning included,
// parallel tool calls, strict left null), its headers (the account id from the token, the
// originator, the session), and its event mapping. pigo speaks SSE only: pi 1.6 first tries a
// WebSocket and compresses the SSE body with zstd, both optional for the backend.

package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// CodexAPI is the models.json api value of the Codex Responses API.
const CodexAPI = "openai-codex-responses"

// Codex streams openai-codex-responses responses.
type Codex struct{}

const codexDefaultBaseURL = "https://chatgpt.com/backend-api"

// codexCompat are the catalogue's compat flags the Codex request reads.
type codexCompat struct {
	SupportsStrictMode             *bool `json:"supportsStrictMode"`
	SupportsMaxOutputTokens        *bool `json:"supportsMaxOutputTokens"`
	SupportsMidConvoEffort         bool  `json:"supportsMidConvoEffort"`
	SupportsMidConvoSystemMessages bool  `json:"supportsMidConvoSystemMessages"`
	SupportsAdditionalTools        bool  `json:"supportsAdditionalTools"`
	SupportsDeveloperRole          *bool `json:"supportsDeveloperRole"`
}

func resolveCodexCompat(m *llm.Model) codexCompat {
	var c codexCompat
	if len(m.Compat) > 0 {
		_ = json.Unmarshal(m.Compat, &c)
	}
	return c
}

// CodexURL is pi's resolveCodexUrl: {base}/codex/responses, whatever part of it the base has.
func CodexURL(base string) string {
	if strings.TrimSpace(base) == "" {
		base = codexDefaultBaseURL
	}
	n := strings.TrimRight(base, "/")
	switch {
	case strings.HasSuffix(n, "/codex/responses"):
		return n
	case strings.HasSuffix(n, "/codex"):
		return n + "/responses"
	}
	return n + "/codex/responses"
}

// CodexAccountID reads the ChatGPT account id from an access token's claims.
func CodexAccountID(token string) (string, error) {
	parts := strings.Split(token, ".")
	if len(parts) == 3 {
		payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
		if err != nil {
			payload, err = base64.StdEncoding.DecodeString(parts[1])
		}
		if err == nil {
			var claims struct {
				Auth struct {
					Account string `json:"chatgpt_account_id"`
				} `json:"https://api.openai.com/auth"`
			}
			if json.Unmarshal(payload, &claims) == nil && claims.Auth.Account != "" {
				return claims.Auth.Account, nil
			}
		}
	}
	return "", fmt.Errorf("Failed to extract accountId from token")
}

// codexEffort is pi's streamSimple choice: the clamped level, "none" for off on a reasoning
// model, nothing otherwise.
func codexEffort(m *llm.Model, o *llm.Options) string {
	level := "off"
	if o != nil && o.ThinkingLevel != "" {
		level = m.ClampThinkingLevel(o.ThinkingLevel)
	}
	if level != "off" {
		return level
	}
	if m.Reasoning {
		return "none"
	}
	return ""
}

// resolveEffort is pi's resolveReasoningEffort: the model's own value for a level; ok is false
// when the model takes no reasoning field for it (a null in its map).
func resolveEffort(m *llm.Model, effort string) (string, bool) {
	key := effort
	if effort == "none" {
		key = "off"
	}
	v, present, null := m.MappedLevel(key)
	switch {
	case null:
		return "", false
	case present:
		return v, true
	}
	return effort, true
}

// BuildCodexBody is the request body pi 1.6 sends to the Codex endpoint, in its key order.
func BuildCodexBody(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
	return llm.AppendJSON(nil, buildCodexBody(m, c, o))
}

func buildCodexBody(m *llm.Model, c *llm.Context, o *llm.Options) llm.Obj {
	cc := resolveCodexCompat(m)
	effort := codexEffort(m, o)
	configEffort := ""
	if cc.SupportsMidConvoEffort && effort != "" {
		configEffort, _ = resolveEffort(m, effort)
	}
	strictMode := cc.SupportsStrictMode == nil || *cc.SupportsStrictMode
	tools := convertCodexTools(c.Tools, strictMode)
	opt := responsesInputOptions{configEffort: configEffort}
	changes := cc.SupportsMidConvoSystemMessages && cc.SupportsAdditionalTools
	if changes {
		opt.additionalTools = tools
	}
	compat := ResponsesCompat{SupportsDeveloperRole: cc.SupportsDeveloperRole == nil || *cc.SupportsDeveloperRole}
	var input any = convertResponsesInput(m, c, compat, opt)
	if o != nil && o.Memo != nil {
		input = llm.MemoArray(o.Memo, input.([]any))
	}
	body := llm.Obj{{K: "model", V: m.ID}, {K: "store", V: false}, {K: "stream", V: true},
		{K: "input", V: input},
		{K: "text", V: llm.Obj{{K: "verbosity", V: "low"}}},
		{K: "include", V: []string{"reasoning.encrypted_content"}}}
	if o.Retention() != "none" && o != nil && o.SessionID != "" {
		body = append(body, llm.Field{K: "prompt_cache_key", V: clampCacheKey(o.SessionID)})
	}
	toolChoice := "auto"
	if o != nil && o.ToolChoice != "" {
		toolChoice = o.ToolChoice
	}
	body = append(body, llm.Field{K: "tool_choice", V: toolChoice}, llm.Field{K: "parallel_tool_calls", V: true})
	if mt := llm.RequestMaxTokens(m, c, o); mt > 0 && (cc.SupportsMaxOutputTokens == nil || *cc.SupportsMaxOutputTokens) {
		body = append(body, llm.Field{K: "max_output_tokens", V: max(mt, 16)})
	}
	if len(tools) > 0 && !changes {
		body = append(body, llm.Field{K: "tools", V: tools})
	}
	switch {
	case effort != "":
		e, ok := resolveEffort(m, effort)
		if configEffort != "" {
			e, ok = "medium", true
		}
		if ok {
			body = append(body, llm.Field{K: "reasoning", V: llm.Obj{{K: "effort", V: e}, {K: "summary", V: "auto"}}})
		}
	case m.Reasoning:
		if off, present, null := m.MappedLevel("off"); !null {
			if !present {
				off = "none"
			}
			body = append(body, llm.Field{K: "reasoning", V: llm.Obj{{K: "effort", V: off}}})
		}
	}
	return body
}

// convertCodexTools declares tools with strict left null (Codex's default), or without strict
// when the model does not take it.
func convertCodexTools(tools []llm.Tool, strictMode bool) []any {
	var out []any
	for _, t := range tools {
		tool := llm.Obj{{K: "type", V: "function"}, {K: "name", V: t.Name}, {K: "description", V: t.Description}, {K: "parameters", V: t.Parameters}}
		if strictMode {
			tool = append(tool, llm.Field{K: "strict", V: nil})
		}
		out = append(out, tool)
	}
	return out
}

// CodexHeaders are the request headers pi 1.6 sends to the Codex endpoint, in its order: the
// identity (originator), the model's and the caller's headers, then the credential, the account
// and the stream's.
func CodexHeaders(m *llm.Model, o *llm.Options, token, account string) []llm.Header {
	hs := []llm.Header{{Name: "originator", Value: "pi"}, {Name: "User-Agent", Value: llm.UserAgent()}}
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		hs = llm.SetHeader(hs, k, m.Headers[k])
	}
	if o != nil {
		for _, k := range slices.Sorted(maps.Keys(o.Headers)) {
			hs = llm.SetHeader(hs, k, o.Headers[k])
		}
	}
	hs = llm.SetHeader(hs, "Authorization", "Bearer "+token)
	hs = llm.SetHeader(hs, "chatgpt-account-id", account)
	hs = llm.SetHeader(hs, "OpenAI-Beta", "responses=experimental")
	hs = llm.SetHeader(hs, "accept", "text/event-stream")
	hs = llm.SetHeader(hs, "content-type", "application/json")
	if o != nil && o.SessionID != "" && o.Retention() != "none" {
		sid := clampCacheKey(o.SessionID)
		hs = llm.SetHeader(hs, "session-id", sid)
		hs = llm.SetHeader(hs, "x-client-request-id", sid)
	}
	return hs
}

// Stream implements llm.Provider.
func (Codex) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	b := llm.NewBuilder(m, emit).Live(o)
	if m.APIKey == "" {
		return b.Fail(ctx, "No API key for provider: "+m.Provider)
	}
	account, err := CodexAccountID(m.APIKey)
	if err != nil {
		return b.Fail(ctx, err.Error())
	}
	body := buildCodexBody(m, c, o)
	cc := resolveCodexCompat(m)
	if effort := codexEffort(m, o); cc.SupportsMidConvoEffort && effort != "" {
		if e, ok := resolveEffort(m, effort); ok {
			b.Msg().ProviderThinkingLevel = e
		}
	}
	rc, failed := llm.Open(ctx, b, o, llm.Request{URL: CodexURL(m.BaseURL), Headers: CodexHeaders(m, o, m.APIKey, account),
		Body: llm.AppendJSON(nil, body), HTTPError: codexHTTPError})
	if failed != nil {
		return failed
	}
	defer rc.Close()
	return runResponsesStream(ctx, b, m, rc, true)
}

var usageLimit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)usage_limit_reached|usage_not_included|rate_limit_exceeded`)
})

// codexHTTPError is pi's parseErrorResponse: ChatGPT's usage-limit answer becomes a friendly
// sentence; otherwise the error's message, else the body.
func codexHTTPError(status int, text string) string {
	msg := text
	if msg == "" {
		msg = "Request failed"
	}
	var v struct {
		Error *struct {
			Code     string   `json:"code"`
			Type     string   `json:"type"`
			Message  string   `json:"message"`
			PlanType string   `json:"plan_type"`
			ResetsAt *float64 `json:"resets_at"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(text), &v) != nil || v.Error == nil {
		return msg
	}
	e := v.Error
	code := e.Code
	if code == "" {
		code = e.Type
	}
	if usageLimit().MatchString(code) || status == 429 {
		plan := ""
		if e.PlanType != "" {
			plan = " (" + strings.ToLower(e.PlanType) + " plan)"
		}
		when := ""
		if e.ResetsAt != nil {
			mins := math.Max(0, math.Round((*e.ResetsAt*1000-float64(time.Now().UnixMilli()))/60000))
			when = fmt.Sprintf(" Try again in ~%d min.", int(mins))
		}
		return strings.TrimSpace("You have hit your ChatGPT usage limit" + plan + "." + when)
	}
	if e.Message != "" {
		return e.Message
	}
	return msg
}

var codexStatuses = map[string]bool{"completed": true, "incomplete": true, "failed": true, "cancelled": true, "queued": true, "in_progress": true}

// codexEvent applies pi's mapCodexEvents to one event: an error or a failed response ends the
// stream with Codex's texts; response.done and response.incomplete count as completed, with a
// status pi does not know dropped.
func codexEvent(raw string, ev *event) error {
	switch ev.Type {
	case "error":
		var e struct {
			Code    any `json:"code"`
			Message any `json:"message"`
			Error   *struct {
				Code    any `json:"code"`
				Message any `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal([]byte(raw), &e)
		code, _ := e.Code.(string)
		msg, _ := e.Message.(string)
		if e.Error != nil {
			if code == "" {
				code, _ = e.Error.Code.(string)
			}
			if msg == "" {
				msg, _ = e.Error.Message.(string)
			}
		}
		text := msg
		if text == "" {
			text = code
		}
		if text == "" {
			if s, err := llm.JSONStringify([]byte(raw)); err == nil {
				text = string(s)
			} else {
				text = raw
			}
		}
		return llm.Failure("Codex error: " + text)
	case "response.failed":
		if ev.Response != nil && ev.Response.Error != nil && ev.Response.Error.Message != "" {
			return llm.Failure(ev.Response.Error.Message)
		}
		return llm.Failure("Codex response failed")
	case "response.done", "response.completed", "response.incomplete":
		ev.Type = "response.completed"
		if ev.Response != nil && !codexStatuses[ev.Response.Status] {
			ev.Response.Status = ""
		}
	}
	return nil
}

func init() { llm.Register(CodexAPI, Codex{}) }
