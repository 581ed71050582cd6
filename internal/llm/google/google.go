// Package google is pigo's client for Google's two Gemini wire APIs, as pi 1.6 sends them
// through @google/genai: google-generative-ai (the Gemini API: POST
// {baseUrl}/models/{id}:streamGenerateContent?alt=sse with x-goog-api-key) and google-vertex
// (Vertex AI: an API key in express mode, or application default credentials with a project and
// a location). Both take the same request (contents, systemInstruction, tools with
// parametersJsonSchema, generationConfig with thinkingConfig) and stream the same
// GenerateContentResponse chunks.
package google

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/sse"
)

// APIs served.
const (
	GenerativeAI = "google-generative-ai"
	Vertex       = "google-vertex"
)

// Provider streams google-generative-ai or google-vertex responses (API says which).
type Provider struct{ API string }

var (
	gemini3OrLater = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`gemini-3(?:\.\d+)?-(?:pro|flash)|gemini-(?:[4-9]|[1-9]\d)|gemma-?4`)
	})
	geminiMajor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^gemini(?:-live)?-(\d+)`) })
	base64Sig   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`) })
)

// usesThinkingLevel is pi's usesGoogleThinkingLevel: the models that take a discrete level
// instead of a token budget.
func usesThinkingLevel(m *llm.Model) bool {
	id := strings.ToLower(m.ID)
	return gemini3OrLater().MatchString(id) || id == "gemini-flash-latest" || id == "gemini-flash-lite-latest"
}

func majorVersion(id string) (int, bool) {
	mm := geminiMajor().FindStringSubmatch(strings.ToLower(id))
	if mm == nil {
		return 0, false
	}
	n, err := strconv.Atoi(mm[1])
	return n, err == nil
}

// requiresToolCallID is pi's: models behind Google's APIs that need ids on function calls.
func requiresToolCallID(id string) bool {
	v, ok := majorVersion(id)
	return strings.HasPrefix(id, "claude-") || strings.HasPrefix(id, "gpt-oss-") || ok && v >= 3
}

func multimodalFunctionResponse(id string) bool {
	v, ok := majorVersion(id)
	return !ok || v >= 3
}

func validSignature(s string) bool { return s != "" && len(s)%4 == 0 && base64Sig().MatchString(s) }

// googleLevel is pi's resolveGoogleThinkingLevel.
func googleLevel(m *llm.Model, level string) (string, error) {
	resolved := level
	if v, present, null := m.MappedLevel(level); present && !null {
		resolved = strings.ToLower(v)
	}
	switch resolved {
	case "minimal", "low", "medium", "high":
		return strings.ToUpper(resolved), nil
	}
	mapped := "undefined"
	if v, present, null := m.MappedLevel(level); present {
		mapped = v
		if null {
			mapped = "null"
		}
	}
	return "", fmt.Errorf("Unsupported Google thinking level mapping for %s/%s: %s -> %s", m.Provider, m.ID, level, mapped)
}

// budget is pi's getGoogleBudget: the 2.5 models' budgets per level, -1 (dynamic) otherwise.
func budget(m *llm.Model, level string, custom map[string]int) int {
	if v, ok := custom[level]; ok {
		return v
	}
	table := map[string]int(nil)
	switch {
	case strings.Contains(m.ID, "2.5-pro"):
		table = map[string]int{"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}
	case strings.Contains(m.ID, "2.5-flash-lite"):
		table = map[string]int{"minimal": 512, "low": 2048, "medium": 8192, "high": 24576}
	case strings.Contains(m.ID, "2.5-flash"):
		table = map[string]int{"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}
	}
	if table == nil {
		return -1
	}
	return table[level]
}

// thinkingConfig is pi's streamSimple choice for the thinking config (nil: none sent).
func thinkingConfig(m *llm.Model, o *llm.Options) (llm.Obj, error) {
	if !m.Reasoning {
		return nil, nil
	}
	level := ""
	if o != nil && o.ThinkingLevel != "" && o.ThinkingLevel != "off" {
		level = m.ClampThinkingLevel(o.ThinkingLevel)
	}
	if level == "" || level == "off" {
		if !usesThinkingLevel(m) {
			return llm.Obj{{K: "thinkingBudget", V: 0}}, nil
		}
		fallback := m.ClampThinkingLevel("off")
		if fallback == "off" {
			return llm.Obj{{K: "thinkingBudget", V: 0}}, nil
		}
		gl, err := googleLevel(m, fallback)
		if err != nil {
			return nil, err
		}
		return llm.Obj{{K: "thinkingLevel", V: gl}}, nil
	}
	gl, err := googleLevel(m, level)
	if err != nil {
		return nil, err
	}
	if usesThinkingLevel(m) {
		return llm.Obj{{K: "includeThoughts", V: true}, {K: "thinkingLevel", V: gl}}, nil
	}
	var custom map[string]int
	if o != nil {
		custom = o.ThinkingBudgets
	}
	return llm.Obj{{K: "includeThoughts", V: true}, {K: "thinkingBudget", V: budget(m, strings.ToLower(gl), custom)}}, nil
}

func sanitizeID(id string) string {
	id = llm.SanitizeID(id)
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}

// contents is pi's convertMessages for Google: user, model and function-response turns.
func contents(m *llm.Model, c *llm.Context) []any {
	norm := func(id string, _ *llm.Message) string {
		if !requiresToolCallID(m.ID) {
			return id
		}
		return sanitizeID(id)
	}
	msgs := llm.TransformMessages(c.Messages, m, norm)
	var out []any
	lastFR := -1 // index of the last user turn, when it holds function responses
	for i := range msgs {
		msg := &msgs[i]
		switch msg.Role {
		case llm.RoleUser:
			var parts []any
			for _, b := range msg.Content {
				if b.Type == llm.TypeText {
					parts = append(parts, llm.Obj{{K: "text", V: b.Text}})
				} else if b.Type == llm.TypeImage {
					parts = append(parts, llm.Obj{{K: "inlineData", V: llm.Obj{{K: "mimeType", V: b.MimeType}, {K: "data", V: b.Data}}}})
				}
			}
			if len(parts) == 0 {
				continue
			}
			out = append(out, llm.Obj{{K: "parts", V: parts}, {K: "role", V: "user"}})
			lastFR = -1
		case llm.RoleAssistant:
			same := msg.Provider == m.Provider && msg.Model == m.ID
			sig := func(s string) string {
				if same && validSignature(s) {
					return s
				}
				return ""
			}
			var parts []any
			for _, b := range msg.Content {
				switch b.Type {
				case llm.TypeText:
					s := sig(b.TextSignature)
					if strings.TrimSpace(b.Text) == "" && s == "" {
						continue
					}
					p := llm.Obj{{K: "text", V: b.Text}}
					if s != "" {
						p = append(p, llm.Field{K: "thoughtSignature", V: s})
					}
					parts = append(parts, p)
				case llm.TypeThinking:
					if same {
						s := sig(b.ThinkingSignature)
						if strings.TrimSpace(b.Thinking) == "" && s == "" {
							continue
						}
						p := llm.Obj{{K: "thought", V: true}, {K: "text", V: b.Thinking}}
						if s != "" {
							p = append(p, llm.Field{K: "thoughtSignature", V: s})
						}
						parts = append(parts, p)
					} else if strings.TrimSpace(b.Thinking) != "" {
						parts = append(parts, llm.Obj{{K: "text", V: b.Thinking}})
					}
				case llm.TypeToolCall:
					args := b.Arguments
					if len(args) == 0 {
						args = json.RawMessage("{}")
					}
					fc := llm.Obj{{K: "name", V: b.Name}, {K: "args", V: args}}
					if requiresToolCallID(m.ID) {
						fc = append(fc, llm.Field{K: "id", V: b.ID})
					}
					p := llm.Obj{{K: "functionCall", V: fc}}
					if s := sig(b.ThoughtSignature); s != "" {
						p = append(p, llm.Field{K: "thoughtSignature", V: s})
					}
					parts = append(parts, p)
				}
			}
			if len(parts) == 0 {
				continue
			}
			out = append(out, llm.Obj{{K: "parts", V: parts}, {K: "role", V: "model"}})
			lastFR = -1
		case llm.RoleToolResult:
			var texts []string
			var images []llm.Content
			for _, b := range msg.Content {
				if b.Type == llm.TypeText {
					texts = append(texts, b.Text)
				} else if b.Type == llm.TypeImage && m.HasInput("image") {
					images = append(images, b)
				}
			}
			text := strings.Join(texts, "\n")
			value := ""
			switch {
			case strings.TrimSpace(text) != "":
				value = text
			case len(images) > 0:
				value = "(see attached image)"
			}
			var imageParts []any
			for _, im := range images {
				imageParts = append(imageParts, llm.Obj{{K: "inlineData", V: llm.Obj{{K: "mimeType", V: im.MimeType}, {K: "data", V: im.Data}}}})
			}
			resp := llm.Obj{{K: "output", V: value}}
			if msg.IsError != nil && *msg.IsError {
				resp = llm.Obj{{K: "error", V: value}}
			}
			fr := llm.Obj{{K: "name", V: msg.ToolName}, {K: "response", V: resp}}
			if len(images) > 0 && multimodalFunctionResponse(m.ID) {
				fr = append(fr, llm.Field{K: "parts", V: imageParts})
			}
			if requiresToolCallID(m.ID) {
				fr = append(fr, llm.Field{K: "id", V: msg.ToolCallID})
			}
			part := llm.Obj{{K: "functionResponse", V: fr}}
			if lastFR >= 0 && lastFR == len(out)-1 {
				// All function responses go in one user turn.
				turn := out[lastFR].(llm.Obj)
				ps, _ := turn.Get("parts")
				out[lastFR] = turn.Set("parts", append(ps.([]any), part))
			} else {
				out = append(out, llm.Obj{{K: "parts", V: []any{part}}, {K: "role", V: "user"}})
				lastFR = len(out) - 1
			}
			if len(images) > 0 && !multimodalFunctionResponse(m.ID) {
				out = append(out, llm.Obj{{K: "parts", V: append([]any{llm.Obj{{K: "text", V: "Tool result image:"}}}, imageParts...)}, {K: "role", V: "user"}})
				lastFR = -1
			}
		}
	}
	return out
}

// BuildBody is the REST request body @google/genai sends for pi 1.6's params, in its order.
func BuildBody(m *llm.Model, c *llm.Context, o *llm.Options) ([]byte, error) {
	body, err := buildBody(m, c, o)
	if err != nil {
		return nil, err
	}
	return llm.AppendJSON(nil, body), nil
}

func buildBody(m *llm.Model, c *llm.Context, o *llm.Options) (llm.Obj, error) {
	cs := contents(m, c)
	if cs == nil {
		cs = []any{}
	}
	var contents any = cs
	if o != nil && o.Memo != nil {
		contents = llm.MemoArray(o.Memo, cs)
	}
	body := llm.Obj{{K: "contents", V: contents}}
	if c.SystemPrompt != "" {
		body = append(body, llm.Field{K: "systemInstruction", V: llm.Obj{{K: "parts", V: []any{llm.Obj{{K: "text", V: c.SystemPrompt}}}}, {K: "role", V: "user"}}})
	}
	if len(c.Tools) > 0 {
		var decls []any
		for _, t := range c.Tools {
			decls = append(decls, llm.Obj{{K: "name", V: t.Name}, {K: "description", V: t.Description}, {K: "parametersJsonSchema", V: constAsEnum(t.Parameters)}})
		}
		body = append(body, llm.Field{K: "tools", V: []any{llm.Obj{{K: "functionDeclarations", V: decls}}}})
		if o != nil && (o.ToolChoice == "none" || o.ToolChoice == "any" || o.ToolChoice == "auto") {
			body = append(body, llm.Field{K: "toolConfig", V: llm.Obj{{K: "functionCallingConfig", V: llm.Obj{{K: "mode", V: strings.ToUpper(o.ToolChoice)}}}}})
		}
	}
	gen := llm.Obj{{K: "maxOutputTokens", V: llm.RequestMaxTokens(m, c, o)}}
	tc, err := thinkingConfig(m, o)
	if err != nil {
		return nil, err
	}
	if tc != nil {
		gen = append(gen, llm.Field{K: "thinkingConfig", V: tc})
	}
	body = append(body, llm.Field{K: "generationConfig", V: gen})
	return body, nil
}

// constAsEnum is pi's rewriteConstAsEnum: Gemini ignores a string or number `const` in
// parametersJsonSchema but honours a one-value enum.
func constAsEnum(raw json.RawMessage) any {
	v, err := llm.DecodeOrdered(raw)
	if err != nil {
		return raw
	}
	return rewriteConst(v, false)
}

var nameMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true, "dependencies": true}
var subschemas = map[string]bool{"additionalProperties": true, "unevaluatedProperties": true, "propertyNames": true, "items": true, "prefixItems": true,
	"additionalItems": true, "unevaluatedItems": true, "contains": true, "allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true, "contentSchema": true}

func rewriteConst(v any, nameMap bool) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = rewriteConst(e, false)
		}
		return out
	case llm.Obj:
		out := make(llm.Obj, 0, len(t))
		for _, f := range t {
			switch {
			case nameMap || subschemas[f.K]:
				out = append(out, llm.Field{K: f.K, V: rewriteConst(f.V, false)})
			case nameMaps[f.K]:
				out = append(out, llm.Field{K: f.K, V: rewriteConst(f.V, true)})
			default:
				out = append(out, f)
			}
		}
		if !nameMap {
			if cv, ok := out.Get("const"); ok {
				if _, hasEnum := out.Get("enum"); !hasEnum {
					switch cv.(type) {
					case string, json.Number:
						var kept llm.Obj
						for _, f := range out {
							if f.K != "const" {
								kept = append(kept, f)
							}
						}
						out = append(kept, llm.Field{K: "enum", V: []any{cv}})
					}
				}
			}
		}
		return out
	}
	return v
}

// headers are pi's: the identity, then the model's and the caller's headers.
func headers(m *llm.Model, o *llm.Options) []llm.Header {
	hs := []llm.Header{{Name: "User-Agent", Value: llm.UserAgent()}, {Name: "Content-Type", Value: "application/json"}}
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		hs = llm.SetHeader(hs, k, m.Headers[k])
	}
	if o != nil {
		for _, k := range slices.Sorted(maps.Keys(o.Headers)) {
			hs = llm.SetHeader(hs, k, o.Headers[k])
		}
	}
	return hs
}

// httpError is the message @google/genai's ApiError carries: the error body's JSON (compact),
// else its text.
func httpError(status int, text string) string {
	if b, err := llm.JSONStringify([]byte(strings.TrimSpace(text))); err == nil {
		return string(b)
	}
	if strings.TrimSpace(text) == "" {
		return fmt.Sprintf("got status: %d", status)
	}
	return text
}

// Stream implements llm.Provider.
func (p Provider) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	b := llm.NewBuilder(m, emit).Live(o)
	var url string
	hs := headers(m, o)
	if p.API == Vertex {
		target, err := vertexTarget(ctx, m, o)
		if err != nil {
			return b.Fail(ctx, err.Error())
		}
		url = target.url
		for _, h := range target.headers {
			hs = llm.SetHeader(hs, h.Name, h.Value)
		}
	} else {
		if m.APIKey == "" {
			return b.Fail(ctx, "No API key for provider: "+m.Provider)
		}
		url = strings.TrimRight(m.BaseURL, "/") + "/models/" + m.ID + ":streamGenerateContent?alt=sse"
		hs = llm.SetHeader(hs, "x-goog-api-key", m.APIKey)
	}
	body, err := BuildBody(m, c, o)
	if err != nil {
		return b.Fail(ctx, err.Error())
	}
	rc, failed := llm.Open(ctx, b, o, llm.Request{URL: url, Headers: hs, Body: body, HTTPError: httpError})
	if failed != nil {
		return failed
	}
	defer rc.Close()
	return run(ctx, b, m, rc)
}

type part struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
}

type chunk struct {
	ResponseID string `json:"responseId"`
	Candidates []struct {
		Content *struct {
			Parts []part `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount        int `json:"promptTokenCount"`
		CandidatesTokenCount    int `json:"candidatesTokenCount"`
		ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
		CachedContentTokenCount int `json:"cachedContentTokenCount"`
		TotalTokenCount         int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
	Error json.RawMessage `json:"error"`
}

// MapFinishReason is pi's mapStopReason for Google.
func MapFinishReason(r string) (string, bool) {
	switch r {
	case "STOP":
		return llm.StopStop, true
	case "MAX_TOKENS", "CONTINUATION":
		return llm.StopLength, true
	case "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "SAFETY", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "IMAGE_OTHER",
		"RECITATION", "FINISH_REASON_UNSPECIFIED", "OTHER", "LANGUAGE", "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "NO_IMAGE":
		return llm.StopError, true
	}
	return "", false
}

var toolCallCounter atomic.Int64

func run(ctx context.Context, b *llm.Builder, m *llm.Model, body interface{ Read([]byte) (int, error) }) *llm.Message {
	msg := b.Msg()
	msg.StopReason = "pending"
	cur := -1 // open text or thinking block
	end := func() {
		if cur >= 0 {
			b.EndText(cur)
			cur = -1
		}
	}
	err := llm.EachSSE(ctx, b, body, func(ev sse.Event) error {
		if strings.TrimSpace(ev.Data) == "" {
			return nil
		}
		var ch chunk
		if err := json.Unmarshal([]byte(ev.Data), &ch); err != nil {
			return llm.Failure("Unexpected token in JSON: " + err.Error())
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			return llm.Failure(llm.StreamErrorMessage(ch.Error))
		}
		if msg.ResponseID == "" {
			msg.ResponseID = ch.ResponseID
		}
		if len(ch.Candidates) > 0 {
			cand := ch.Candidates[0]
			if cand.Content != nil {
				for _, pt := range cand.Content.Parts {
					if pt.Text != nil {
						kind := llm.TypeText
						if pt.Thought {
							kind = llm.TypeThinking
						}
						if cur < 0 || b.Block(cur).Type != kind {
							end()
							cur = b.Add(llm.Content{Type: kind})
							if kind == llm.TypeThinking {
								b.At(llm.EventThinkingStart, cur)
							} else {
								b.At(llm.EventTextStart, cur)
							}
						}
						b.Append(cur, *pt.Text)
						if pt.ThoughtSignature != "" {
							blk := b.Block(cur)
							if kind == llm.TypeThinking {
								blk.ThinkingSignature = pt.ThoughtSignature
							} else {
								blk.TextSignature = pt.ThoughtSignature
							}
							b.SetBlock(cur, blk)
						}
						if kind == llm.TypeThinking {
							b.Delta(llm.EventThinkingDelta, cur, *pt.Text)
						} else {
							b.Delta(llm.EventTextDelta, cur, *pt.Text)
						}
					}
					if fc := pt.FunctionCall; fc != nil {
						end()
						id := fc.ID
						dup := false
						for _, c := range msg.Content {
							if c.Type == llm.TypeToolCall && c.ID == id {
								dup = true
							}
						}
						if id == "" || dup {
							id = fmt.Sprintf("%s_%d_%d", fc.Name, time.Now().UnixMilli(), toolCallCounter.Add(1))
						}
						args := fc.Args
						if len(args) == 0 || string(args) == "null" {
							args = json.RawMessage("{}")
						}
						if s, err := llm.JSONStringify(args); err == nil {
							args = s
						}
						i := b.Add(llm.Content{Type: llm.TypeToolCall, ID: id, Name: fc.Name, Arguments: args, ThoughtSignature: pt.ThoughtSignature})
						b.At(llm.EventToolCallStart, i)
						b.Delta(llm.EventToolCallDelta, i, string(args))
						b.EndToolCall(i)
					}
				}
			}
			if cand.FinishReason != "" {
				msg.RawStopReason = cand.FinishReason
				stop, ok := MapFinishReason(cand.FinishReason)
				if !ok {
					return llm.Failure("Unhandled stop reason: " + cand.FinishReason)
				}
				msg.StopReason = stop
				if stop == llm.StopStop && len(msg.ToolCalls()) > 0 {
					msg.StopReason = llm.StopToolUse
				}
			}
		}
		if u := ch.UsageMetadata; u != nil {
			r := u.ThoughtsTokenCount
			msg.Usage = &llm.Usage{Input: u.PromptTokenCount - u.CachedContentTokenCount, Output: u.CandidatesTokenCount + u.ThoughtsTokenCount,
				CacheRead: u.CachedContentTokenCount, Reasoning: &r, TotalTokens: u.TotalTokenCount}
			llm.CalculateCost(m, msg.Usage)
		}
		return nil
	})
	if err != nil {
		return b.Fail(ctx, err.Error())
	}
	end()
	if ctx.Err() != nil {
		return b.Fail(ctx, llm.StreamAborted)
	}
	switch msg.StopReason {
	case "pending":
		return b.Fail(ctx, "Google stream ended without a finish reason")
	case llm.StopError, llm.StopAborted:
		em := "An unknown error occurred"
		if msg.RawStopReason != "" {
			em = "Provider stopped with: " + msg.RawStopReason
		}
		return b.Fail(ctx, em)
	}
	return b.Done()
}

func init() {
	llm.Register(GenerativeAI, Provider{API: GenerativeAI})
	llm.Register(Vertex, Provider{API: Vertex})
}
