package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/pigo-agent/pigo/internal/llm"
)

// params are the per-request values pi's streamSimple derives before building the body.
type params struct {
	maxTokens       int
	reasoningEffort string // "" = off
	retention       string
	sessionID       string
	budgets         map[string]int
	memo            *llm.BodyMemo
}

func resolveParams(m *llm.Model, c *llm.Context, o *llm.Options) params {
	p := params{maxTokens: llm.RequestMaxTokens(m, c, o), retention: o.Retention()}
	if o != nil {
		if o.ThinkingLevel != "" && o.ThinkingLevel != "off" {
			if l := m.ClampThinkingLevel(o.ThinkingLevel); l != "off" {
				p.reasoningEffort = l
			}
		}
		p.sessionID = o.SessionID
		p.budgets = o.ThinkingBudgets
		p.memo = o.Memo
	}
	return p
}

// normalizeToolCallID is pi's openai-completions id normalisation for calls from another
// model: "call|item" ids (Responses) become one ≤40-char id, openai's are cut to 40.
func normalizeToolCallID(m *llm.Model) func(string, *llm.Message) string {
	return func(id string, _ *llm.Message) string {
		if i := strings.IndexByte(id, '|'); i >= 0 {
			callID := llm.SanitizeID(id[:i])
			itemID := llm.SanitizeID(id[i+1:])
			combined := callID
			if itemID != "" {
				combined = callID + "_" + itemID
			}
			if len(combined) <= 40 {
				return combined
			}
			h := llm.ShortHash(id)[:8]
			return callID[:min(len(callID), max(1, 40-len(h)-1))] + "_" + h
		}
		if m.Provider == "openai" && llm.JSLen(id) > 40 {
			return jsSlice(id, 40)
		}
		return id
	}
}

// jsSlice cuts s to n UTF-16 units.
func jsSlice(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}

func isReasoningField(s string) bool {
	return s == "reasoning" || s == "reasoning_content" || s == "reasoning_text"
}

func imageURL(c llm.Content) llm.Obj {
	return llm.Obj{{K: "type", V: "image_url"}, {K: "image_url", V: llm.Obj{{K: "url", V: "data:" + c.MimeType + ";base64," + c.Data}}}}
}

// reasoningDetails parses a thinking signature holding OpenRouter reasoning_details (a JSON
// array of reasoning.summary / reasoning.encrypted / reasoning.text entries).
func reasoningDetails(sig string) json.RawMessage {
	if sig == "" || sig[0] != '[' {
		return nil
	}
	var arr []map[string]any
	if json.Unmarshal([]byte(sig), &arr) != nil || len(arr) == 0 {
		return nil
	}
	for _, d := range arr {
		switch d["type"] {
		case "reasoning.summary":
			if _, ok := d["summary"].(string); !ok {
				return nil
			}
		case "reasoning.encrypted":
			if _, ok := d["data"].(string); !ok {
				return nil
			}
		case "reasoning.text":
			if _, ok := d["text"].(string); !ok {
				return nil
			}
		default:
			return nil
		}
	}
	return json.RawMessage(sig)
}

// convertParallelMin is the number of messages from which convertMessages transforms and
// converts the two halves of a context on two cores.
var convertParallelMin = 4096

// convertMessages is pi's convertMessages for openai-completions. Through a memo (a session's
// turns), the messages up to the last context's last user message are not converted again
// when they are the same (convertKept).
func convertMessages(m *llm.Model, c *llm.Context, compat Compat, memo *llm.BodyMemo) []llm.Obj {
	return convertMessagesFor(m, c, compat, memo, false)
}

// convertMessagesFor is convertMessages, with the messages of the common shapes as
// llm.Direct values when direct is set (a body's: see completions_direct.go).
func convertMessagesFor(m *llm.Model, c *llm.Context, compat Compat, memo *llm.BodyMemo, direct bool) []llm.Obj {
	var out []llm.Obj
	if c.SystemPrompt != "" {
		role := "system"
		if m.Reasoning && compat.SupportsDeveloperRole {
			role = "developer"
		}
		out = append(out, llm.Obj{{K: "role", V: role}, {K: "content", V: c.SystemPrompt}})
	}
	if conv, ok := convertKept(m, c.Messages, compat, memo, direct); ok {
		return append(out, conv...)
	}
	out, _ = convertChecked(m, compat, c.Messages, out, direct)
	return out
}

// convertChecked appends the converted msgs to out, and reports whether a call was given
// another id (normalizeToolCallID). A long context is transformed and converted in two
// halves on two cores (convertCut).
func convertChecked(m *llm.Model, compat Compat, msgs []llm.Message, out []llm.Obj, direct bool) ([]llm.Obj, bool) {
	// About a converted message a message (more for images after tool results and bridges):
	// room for them at once, not grown by doubling (at 64 MB ~6 MB of copies).
	out = slices.Grow(out, len(msgs)+len(msgs)/64+8)
	normalize := normalizeToolCallID(m)
	checked := func(renamed *bool) func(string, *llm.Message) string {
		return func(id string, src *llm.Message) string {
			n := normalize(id, src)
			*renamed = *renamed || n != id
			return n
		}
	}
	if cut := convertCut(msgs, compat); cut > 0 {
		// The halves: the second is transformed and converted on another core.
		var second []llm.Obj
		renamed2 := false
		done := make(chan struct{})
		go func() {
			defer close(done)
			second = convertRange(m, compat, llm.TransformMessagePtrs(msgs[cut:], m, checked(&renamed2)), make([]llm.Obj, 0, len(msgs)-cut+8), direct)
		}()
		renamed := false
		first := llm.TransformMessagePtrs(msgs[:cut], m, checked(&renamed))
		if !renamed {
			out = convertRange(m, compat, first, out, direct)
			<-done
			return append(out, second...), renamed2
		}
		// A call of the first half was given another id: a tool result of the second half
		// would take it (TransformMessages' map). Converted in order.
		<-done
	}
	renamed := false
	return convertRange(m, compat, llm.TransformMessagePtrs(msgs, m, checked(&renamed)), out, direct), renamed
}

// convertMemo is what convertKept keeps in a BodyMemo between a session's bodies: the last
// context's messages, their conversion, and where its last user message's starts.
type convertMemo struct {
	model  *llm.Model
	mv     llm.Model
	compat Compat
	direct bool
	// msgs is the last context's messages: a view of the agent's transcript, whose
	// messages are never written (it is only appended to or replaced whole).
	msgs []llm.Message
	conv []llm.Obj // msgs converted (without the system prompt's message)
	// user is the index of msgs' last user message, before the number of converted
	// messages before it: conv[:before] is the conversion of msgs[:user].
	user, before int
}

// convertKept converts msgs through memo: the conversion of the messages before the last
// context's last user message is taken as it was when they are the same messages (the same
// bytes: a message's strings and blocks are never written) for the same model and compat,
// and only the messages from that user message on are converted. A further turn of a long
// session then costs what it added, not a conversion of the whole context (at 16 MB ~16,000
// messages, 10-15 ms and 12 MB a turn). It relies on what convertCut's halves do: a user
// message ends the calls waiting for results, the conversion carries nothing past it, and
// the ids given to calls before it matter only when one was renamed (then nothing is kept);
// a model that needs an assistant message after tool results (the conversion's last role)
// and OpenRouter's anthropic cache markers (set in place in the converted messages) are not
// memoised. false: convert msgs in full.
func convertKept(m *llm.Model, msgs []llm.Message, compat Compat, memo *llm.BodyMemo, direct bool) ([]llm.Obj, bool) {
	if memo == nil || compat.RequiresAssistantAfterToolResult || compat.CacheControlFormat == "anthropic" {
		return nil, false
	}
	u := len(msgs) - 1
	for u >= 0 && msgs[u].Role != llm.RoleUser {
		u--
	}
	if u < 0 {
		return nil, false
	}
	prev, _ := memo.TakeKept().(*convertMemo)
	var conv []llm.Obj
	start := 0 // the first message converted here
	if prev != nil && prev.model == m && prev.direct == direct && prev.user <= u && sameMessages(msgs[:prev.user+1], prev.msgs[:prev.user+1]) &&
		reflect.DeepEqual(prev.mv, *m) && reflect.DeepEqual(prev.compat, compat) {
		conv = append(make([]llm.Obj, 0, prev.before+len(msgs)-prev.user+8), prev.conv[:prev.before]...)
		start = prev.user
		keptReused.Add(1)
	}
	conv, renamed := convertChecked(m, compat, msgs[start:u], conv, direct)
	if renamed {
		// A result from the user message on could take an id given before it.
		return nil, false
	}
	before := len(conv)
	conv, _ = convertChecked(m, compat, msgs[u:], conv, direct)
	memo.PutKept(&convertMemo{model: m, mv: *m, compat: compat, direct: direct, msgs: msgs[:len(msgs):len(msgs)], conv: conv[:len(conv):len(conv)], user: u, before: before})
	return conv, true
}

// keptReused counts the conversions convertKept took from the last context (for tests).
var keptReused atomic.Int64

// sameMessages reports whether a and b hold the same messages, byte for byte (the same
// strings and slices: what they point to is never written).
func sameMessages(a, b []llm.Message) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	n := len(a) * int(unsafe.Sizeof(a[0]))
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), n), unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), n))
}

// convertCut is where convertMessages cuts msgs in two halves that transform and convert
// apart, 0 for no cut (msgs is short, there is one core, or a message the halves would not
// convert the same). TransformMessages carries from one message to the next the calls
// waiting for results, which a user message ends, and the ids it gave calls (convertMessages
// checks that the first half gave none); the conversion carries the last message's role (only
// a model that needs an assistant message after tool results looks at it) and a run of tool
// results (their images after the run). A user message starts the second half.
func convertCut(msgs []llm.Message, compat Compat) int {
	if len(msgs) < max(2, convertParallelMin) || compat.RequiresAssistantAfterToolResult || runtime.GOMAXPROCS(0) < 2 {
		return 0
	}
	for d := 0; d < len(msgs)/2; d++ {
		for _, i := range []int{len(msgs)/2 + d, len(msgs)/2 - d} {
			if i > 0 && i < len(msgs) && msgs[i].Role == llm.RoleUser {
				return i
			}
		}
	}
	return 0
}

// convertRange appends the converted msgs (transformed) to out.
func convertRange(m *llm.Model, compat Compat, msgs []*llm.Message, out []llm.Obj, direct bool) []llm.Obj {
	lastRole := ""
	bridge := llm.Obj{{K: "role", V: "assistant"}, {K: "content", V: "I have processed the tool results."}}
	// The Direct values' objects; none when a bridge may follow a tool result (the
	// Directs do not write that compat's empty assistant content).
	var slab *directSlab
	if direct && !compat.RequiresAssistantAfterToolResult {
		slab = new(directSlab)
	}
	for i := 0; i < len(msgs); i++ {
		msg := msgs[i]
		if compat.RequiresAssistantAfterToolResult && lastRole == llm.RoleToolResult && msg.Role == llm.RoleUser {
			out = append(out, bridge)
		}
		if slab != nil {
			if n, ok := convertDirect(m, compat, msgs, i, slab, &out); ok {
				// (lastRole matters only to a compat without Directs.)
				i += n - 1
				continue
			}
		}
		switch msg.Role {
		case llm.RoleUser:
			if msg.StringContent {
				out = append(out, llm.Obj{{K: "role", V: "user"}, {K: "content", V: joinTexts(msg.Content, "")}})
				break
			}
			var parts []any
			for k := range msg.Content {
				b := &msg.Content[k]
				if b.Type == llm.TypeText {
					parts = append(parts, llm.Obj{{K: "type", V: "text"}, {K: "text", V: b.TextJSON()}})
				} else if b.Type == llm.TypeImage {
					parts = append(parts, imageURL(*b))
				}
			}
			if len(parts) == 0 {
				continue
			}
			out = append(out, llm.Obj{{K: "role", V: "user"}, {K: "content", V: parts}})
		case llm.RoleAssistant:
			var content any
			if compat.RequiresAssistantAfterToolResult {
				content = ""
			}
			text := ""
			// textValue is text as a body value: the one text's recorded JSON form when there
			// is one text (the usual reply).
			var textValue any
			// The blocks are referred to, not copied (a block is 224 bytes).
			var thinking, calls []*llm.Content
			for k := range msg.Content {
				b := &msg.Content[k]
				switch b.Type {
				case llm.TypeText:
					if strings.TrimSpace(b.Text) != "" {
						if text == "" {
							textValue = b.TextJSON()
						} else {
							textValue = nil
						}
						text += b.Text
					}
				case llm.TypeThinking:
					thinking = append(thinking, b)
				case llm.TypeToolCall:
					calls = append(calls, b)
				}
			}
			if textValue == nil {
				textValue = text
			}
			var details json.RawMessage
			for _, t := range thinking {
				if d := reasoningDetails(t.ThinkingSignature); d != nil {
					details = d
					break
				}
			}
			var nonEmpty []*llm.Content
			for _, t := range thinking {
				if strings.TrimSpace(t.Thinking) != "" {
					nonEmpty = append(nonEmpty, t)
				}
			}
			// Room for the fields set below (a reasoning field, tool_calls,
			// reasoning_details, reasoning_content: those that may be added), so that setting
			// them does not copy; no more (a reply with calls has three fields: room for six
			// was 3 MB of a 64 MB session's first body).
			room := 2
			if len(nonEmpty) > 0 && !compat.RequiresThinkingAsText && details == nil {
				room++
			}
			if len(calls) > 0 {
				room++
			}
			if details != nil {
				room++
			}
			if compat.RequiresReasoningContentOnAssistant && m.Reasoning {
				room++
			}
			am := append(make(llm.Obj, 0, room), llm.Field{K: "role", V: "assistant"}, llm.Field{K: "content", V: content})
			if len(nonEmpty) > 0 {
				if compat.RequiresThinkingAsText {
					var ts []string
					for _, t := range nonEmpty {
						ts = append(ts, t.Thinking)
					}
					parts := []any{llm.Obj{{K: "type", V: "text"}, {K: "text", V: strings.Join(ts, "\n\n")}}}
					for k := range msg.Content {
						if b := &msg.Content[k]; b.Type == llm.TypeText && strings.TrimSpace(b.Text) != "" {
							parts = append(parts, llm.Obj{{K: "type", V: "text"}, {K: "text", V: b.TextJSON()}})
						}
					}
					am = am.Set("content", parts)
				} else {
					if text != "" {
						am = am.Set("content", textValue)
					}
					if details == nil {
						sig := nonEmpty[0].ThinkingSignature
						if m.Provider == "opencode-go" && sig == "reasoning" {
							sig = "reasoning_content"
						}
						if isReasoningField(sig) && len(nonEmpty) == 1 {
							am = am.Set(sig, nonEmpty[0].ThinkingJSON())
						} else if isReasoningField(sig) {
							var ts []string
							for _, t := range nonEmpty {
								ts = append(ts, t.Thinking)
							}
							am = am.Set(sig, strings.Join(ts, "\n"))
						}
					}
				}
			} else if text != "" {
				am = am.Set("content", textValue)
			}
			if len(calls) > 0 {
				// A []llm.Obj (not []any: each element boxed), its objects' fields in one array.
				tcs := make([]llm.Obj, len(calls))
				fields := make([]llm.Field, 5*len(calls))
				for k, tc := range calls {
					args := tc.Arguments
					if len(args) == 0 {
						args = json.RawMessage("{}")
					}
					f := fields[5*k : 5*k+5 : 5*k+5]
					f[3], f[4] = llm.Field{K: "name", V: tc.Name}, llm.Field{K: "arguments", V: llm.JSONText(args)}
					f[0], f[1], f[2] = llm.Field{K: "id", V: tc.ID}, llm.Field{K: "type", V: "function"}, llm.Field{K: "function", V: llm.Obj(f[3:5:5])}
					tcs[k] = f[0:3:3]
				}
				am = am.Set("tool_calls", tcs)
			}
			if details != nil {
				am = am.Set("reasoning_details", details)
			}
			if compat.RequiresReasoningContentOnAssistant && m.Reasoning {
				if _, ok := am.Get("reasoning_content"); !ok {
					am = am.Set("reasoning_content", "")
				}
			}
			cv, _ := am.Get("content")
			has := false
			if t, ok := llm.StringOf(cv); ok {
				has = t != ""
			} else if t, ok := cv.([]any); ok {
				has = len(t) > 0
			}
			if _, ok := am.Get("tool_calls"); !has && !ok {
				continue
			}
			out = append(out, am)
		case llm.RoleToolResult:
			var images []any
			j := i
			for ; j < len(msgs) && msgs[j].Role == llm.RoleToolResult; j++ {
				tm := msgs[j]
				hasImages := false
				for k := range tm.Content {
					if tm.Content[k].Type == llm.TypeImage {
						hasImages = true
					}
				}
				var text any = joinTexts(tm.Content, "\n")
				if text == "" {
					text = "(no tool output)"
					if hasImages {
						text = "(see attached image)"
					}
				}
				tr := llm.Obj{{K: "role", V: "tool"}, {K: "content", V: text}, {K: "tool_call_id", V: tm.ToolCallID}}
				if compat.RequiresToolResultName && tm.ToolName != "" {
					tr = append(tr, llm.Field{K: "name", V: tm.ToolName})
				}
				out = append(out, tr)
				if hasImages && m.HasInput("image") {
					for _, b := range tm.Content {
						if b.Type == llm.TypeImage {
							images = append(images, imageURL(b))
						}
					}
				}
			}
			i = j - 1
			if len(images) > 0 {
				if compat.RequiresAssistantAfterToolResult {
					out = append(out, bridge)
				}
				out = append(out, llm.Obj{{K: "role", V: "user"}, {K: "content", V: append([]any{llm.Obj{{K: "type", V: "text"}, {K: "text", V: "Attached image(s) from tool result:"}}}, images...)}})
				lastRole = llm.RoleUser
			} else {
				lastRole = llm.RoleToolResult
			}
			continue
		}
		lastRole = msg.Role
	}
	return out
}

// joinTexts is the texts of content's text blocks joined with sep, as a body value: one
// text block's recorded JSON form when it is the only one (a tool result, a user prompt).
func joinTexts(content []llm.Content, sep string) any {
	one, n := textBlocks(content)
	switch n {
	case 0:
		return ""
	case 1:
		if one.Text == "" {
			return "" // the callers compare the text with ""
		}
		return one.TextJSON()
	}
	return joinBlocks(content, n, sep)
}

// textBlocks is the first of content's text blocks and how many there are.
func textBlocks(content []llm.Content) (first *llm.Content, n int) {
	for k := range content {
		if content[k].Type == llm.TypeText {
			if n++; n == 1 {
				first = &content[k]
			}
		}
	}
	return first, n
}

// joinBlocks is the texts of content's n text blocks joined with sep.
func joinBlocks(content []llm.Content, n int, sep string) string {
	texts := make([]string, 0, n)
	for k := range content {
		if content[k].Type == llm.TypeText {
			texts = append(texts, content[k].Text)
		}
	}
	return strings.Join(texts, sep)
}

func hasToolHistory(msgs []llm.Message) bool {
	for i := range msgs {
		if msgs[i].Role == llm.RoleToolResult {
			return true
		}
		if msgs[i].Role == llm.RoleAssistant && len(msgs[i].ToolCalls()) > 0 {
			return true
		}
	}
	return false
}

func convertTools(tools []llm.Tool, compat Compat) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		fn := llm.Obj{{K: "name", V: t.Name}, {K: "description", V: t.Description}, {K: "parameters", V: rawOrEmpty(t.Parameters)}}
		if compat.SupportsStrictMode {
			fn = append(fn, llm.Field{K: "strict", V: false})
		}
		out = append(out, llm.Obj{{K: "type", V: "function"}, {K: "function", V: fn}})
	}
	return out
}

// completionsTools is the last tools' JSON (llm.ToolsJSON); toolsMemoOff turns it off (tests
// compare bodies written both ways).
var (
	completionsTools llm.ToolsJSON
	toolsMemoOff     bool
)

// rawJSON is JSON already in JSON.stringify's form, written as it is (llm.Direct).
type rawJSON []byte

func (r rawJSON) AppendDirect(b []byte) []byte { return append(b, r...) }
func (r rawJSON) DirectHint() int              { return len(r) }
func (r rawJSON) SameDirect(llm.Direct) bool   { return false }

func rawOrEmpty(r json.RawMessage) any {
	if len(r) == 0 {
		return llm.Omit
	}
	return r
}

// clampCacheKey cuts a prompt cache key to 64 code points.
func clampCacheKey(k string) string {
	if utf8.RuneCountInString(k) <= 64 {
		return k
	}
	n := 0
	for i := range k {
		if n == 64 {
			return k[:i]
		}
		n++
	}
	return k
}

// BuildBody is the request body pi sends for this context (pi's buildParams), in pi's key
// order.
func BuildBody(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
	compat := ResolveCompat(m)
	p := resolveParams(m, c, o)
	return llm.AppendJSON(nil, buildParams(m, c, compat, p))
}

func buildParams(m *llm.Model, c *llm.Context, compat Compat, p params) llm.Obj {
	// Direct messages but for OpenRouter's anthropic cache markers, which are set on the
	// converted objects' fields.
	messages := convertMessagesFor(m, c, compat, p.memo, !directOff && compat.CacheControlFormat != "anthropic")
	body := llm.Obj{{K: "model", V: m.ID}, {K: "messages", V: messages}, {K: "stream", V: true}}
	if p.sessionID != "" && ((strings.Contains(m.BaseURL, "api.openai.com") && p.retention != "none") ||
		(p.retention == "long" && compat.SupportsLongCacheRetention)) {
		body = append(body, llm.Field{K: "prompt_cache_key", V: clampCacheKey(p.sessionID)})
	}
	if p.retention == "long" && compat.SupportsLongCacheRetention {
		body = append(body, llm.Field{K: "prompt_cache_retention", V: "24h"})
	}
	if compat.SupportsUsageInStreaming {
		body = append(body, llm.Field{K: "stream_options", V: llm.Obj{{K: "include_usage", V: true}}})
	}
	if compat.SupportsStore {
		body = append(body, llm.Field{K: "store", V: false})
	}
	if p.maxTokens > 0 {
		if compat.MaxTokensField == "max_tokens" {
			body = append(body, llm.Field{K: "max_tokens", V: p.maxTokens})
		} else {
			body = append(body, llm.Field{K: "max_completion_tokens", V: p.maxTokens})
		}
	}
	var tools []any
	cacheControl := compat.CacheControlFormat == "anthropic" && p.retention != "none"
	if len(c.Tools) > 0 && !cacheControl && !toolsMemoOff {
		// The same tools as the last request's (a session's every request): their JSON as it
		// was written then. Not with cache markers, which are set on the converted objects.
		key := "plain"
		if compat.SupportsStrictMode {
			key = "strict"
		}
		js := completionsTools.Get(c.Tools, key, func() []byte { return llm.AppendJSON(nil, convertTools(c.Tools, compat)) })
		body = append(body, llm.Field{K: "tools", V: rawJSON(js)})
		if compat.ZaiToolStream {
			body = append(body, llm.Field{K: "tool_stream", V: true})
		}
	} else if len(c.Tools) > 0 {
		tools = convertTools(c.Tools, compat)
		body = append(body, llm.Field{K: "tools", V: tools})
		if compat.ZaiToolStream {
			body = append(body, llm.Field{K: "tool_stream", V: true})
		}
	} else if hasToolHistory(c.Messages) {
		tools = []any{}
		body = append(body, llm.Field{K: "tools", V: tools})
	}
	if cacheControl {
		cc := llm.Obj{{K: "type", V: "ephemeral"}}
		if p.retention == "long" && compat.SupportsLongCacheRetention {
			cc = append(cc, llm.Field{K: "ttl", V: "1h"})
		}
		applyCacheControl(messages, tools, cc)
	}
	effort := p.reasoningEffort
	mapped := func(level string) (string, bool) {
		v, present, null := m.MappedLevel(level)
		return v, present && !null
	}
	effortValue := func() string {
		if v, ok := mapped(effort); ok {
			return v
		}
		return effort
	}
	_, offPresent, offNull := m.MappedLevel("off")
	offValue, _ := mapped("off")
	switch {
	case compat.ThinkingFormat == "zai" && m.Reasoning:
		if effort != "" {
			body = append(body, llm.Field{K: "thinking", V: llm.Obj{{K: "type", V: "enabled"}, {K: "clear_thinking", V: false}}})
			if compat.SupportsReasoningEffort {
				body = append(body, llm.Field{K: "reasoning_effort", V: effortValue()})
			}
		} else {
			body = append(body, llm.Field{K: "thinking", V: llm.Obj{{K: "type", V: "disabled"}}})
		}
	case compat.ThinkingFormat == "qwen" && m.Reasoning:
		body = append(body, llm.Field{K: "enable_thinking", V: effort != ""})
		if effort != "" && compat.SupportsReasoningEffort {
			body = append(body, llm.Field{K: "reasoning_effort", V: effortValue()})
		}
	case compat.ThinkingFormat == "qwen-chat-template" && m.Reasoning:
		body = append(body, llm.Field{K: "chat_template_kwargs", V: llm.Obj{{K: "enable_thinking", V: effort != ""}, {K: "preserve_thinking", V: true}}})
	case compat.ThinkingFormat == "deepseek" && m.Reasoning:
		if effort != "" {
			body = append(body, llm.Field{K: "thinking", V: llm.Obj{{K: "type", V: "enabled"}}})
		} else if !offNull {
			body = append(body, llm.Field{K: "thinking", V: llm.Obj{{K: "type", V: "disabled"}}})
		}
		if effort != "" && compat.SupportsReasoningEffort {
			body = append(body, llm.Field{K: "reasoning_effort", V: effortValue()})
		}
	case compat.ThinkingFormat == "openrouter" && m.Reasoning:
		if effort != "" {
			body = append(body, llm.Field{K: "reasoning", V: llm.Obj{{K: "effort", V: effortValue()}}})
		} else if !offNull {
			v := "none"
			if offPresent {
				v = offValue
			}
			body = append(body, llm.Field{K: "reasoning", V: llm.Obj{{K: "effort", V: v}}})
		}
	case compat.ThinkingFormat == "ant-ling" && m.Reasoning && effort != "":
		if v, ok := mapped(effort); ok {
			body = append(body, llm.Field{K: "reasoning", V: llm.Obj{{K: "effort", V: v}}})
		}
	case compat.ThinkingFormat == "together" && m.Reasoning:
		body = append(body, llm.Field{K: "reasoning", V: llm.Obj{{K: "enabled", V: effort != ""}}})
		if effort != "" && compat.SupportsReasoningEffort {
			body = append(body, llm.Field{K: "reasoning_effort", V: effortValue()})
		}
	case compat.ThinkingFormat == "string-thinking" && m.Reasoning:
		if effort != "" {
			body = append(body, llm.Field{K: "thinking", V: effortValue()})
		} else if !offNull {
			v := "none"
			if offPresent {
				v = offValue
			}
			body = append(body, llm.Field{K: "thinking", V: v})
		}
	case effort != "" && m.Reasoning && compat.SupportsReasoningEffort:
		body = append(body, llm.Field{K: "reasoning_effort", V: effortValue()})
	case effort == "" && m.Reasoning && compat.SupportsReasoningEffort:
		if offPresent && !offNull {
			body = append(body, llm.Field{K: "reasoning_effort", V: offValue})
		}
	}
	field := compat.ThinkingTokenBudgetField
	if field == "" && compat.SupportsThinkingTokenBudget {
		field = "thinking_token_budget"
	}
	if field != "" && effort != "" && m.Reasoning {
		ceiling := p.maxTokens
		if ceiling == 0 {
			ceiling = m.MaxTokens
		}
		if b := llm.ClampBudgetToAnswerRoom(llm.ThinkingBudget(effort, p.budgets), ceiling); b > 0 {
			body = body.Set(field, b)
		}
	}
	if len(compat.OpenRouterRouting) > 0 {
		body = append(body, llm.Field{K: "provider", V: compat.OpenRouterRouting})
	}
	if p.memo != nil {
		// After the cache marker is placed: the memo compares what is written.
		body = body.Set("messages", llm.MemoObjs(p.memo, messages))
	}
	return body
}

// applyCacheControl marks the system prompt, the last tool and the last conversation text
// with an anthropic cache_control (OpenRouter's anthropic/* models).
func applyCacheControl(messages []llm.Obj, tools []any, cc llm.Obj) {
	for i, msg := range messages {
		if r, _ := msg.Get("role"); r == "system" || r == "developer" {
			messages[i], _ = addCacheControl(msg, cc)
			break
		}
	}
	if len(tools) > 0 {
		if t, ok := tools[len(tools)-1].(llm.Obj); ok {
			tools[len(tools)-1] = t.Set("cache_control", cc)
		}
	}
	for i := len(messages) - 1; i >= 0; i-- {
		if r, _ := messages[i].Get("role"); r == "user" || r == "assistant" || r == "tool" {
			if nm, ok := addCacheControl(messages[i], cc); ok {
				messages[i] = nm
				return
			}
		}
	}
}

func addCacheControl(msg llm.Obj, cc llm.Obj) (llm.Obj, bool) {
	content, _ := msg.Get("content")
	if t, ok := llm.StringOf(content); ok {
		if t == "" {
			return msg, false
		}
		return msg.Set("content", []any{llm.Obj{{K: "type", V: "text"}, {K: "text", V: content}, {K: "cache_control", V: cc}}}), true
	}
	switch t := content.(type) {
	case []any:
		for i := len(t) - 1; i >= 0; i-- {
			if part, ok := t[i].(llm.Obj); ok {
				if ty, _ := part.Get("type"); ty == "text" {
					t[i] = part.Set("cache_control", cc)
					return msg, true
				}
			}
		}
	}
	return msg, false
}

var _ = fmt.Sprintf
