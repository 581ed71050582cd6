package llm

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"sync"
	"unsafe"
)

// Thinking levels in pi's order.
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"}

// DefaultThinkingBudgets are pi's token budgets per thinking level.
var DefaultThinkingBudgets = map[string]int{"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}

// minAnswerTokens is what pi always leaves for the answer under a shared ceiling.
const minAnswerTokens = 1024

// SupportedThinkingLevels is pi's getSupportedThinkingLevels.
func (m *Model) SupportedThinkingLevels() []string {
	if !m.Reasoning {
		return []string{"off"}
	}
	var out []string
	for _, l := range thinkingLevels {
		v, ok := m.ThinkingLevelMap[l]
		if ok && v == nil {
			continue
		}
		if (l == "xhigh" || l == "max") && !ok {
			continue
		}
		out = append(out, l)
	}
	return out
}

// ClampThinkingLevel is pi's clampThinkingLevel: the level itself when the model supports it,
// else the nearest supported level above, else below.
func (m *Model) ClampThinkingLevel(level string) string {
	avail := m.SupportedThinkingLevels()
	has := func(l string) bool {
		for _, a := range avail {
			if a == l {
				return true
			}
		}
		return false
	}
	if has(level) {
		return level
	}
	idx := -1
	for i, l := range thinkingLevels {
		if l == level {
			idx = i
		}
	}
	if idx >= 0 {
		for i := idx; i < len(thinkingLevels); i++ {
			if has(thinkingLevels[i]) {
				return thinkingLevels[i]
			}
		}
		for i := idx - 1; i >= 0; i-- {
			if has(thinkingLevels[i]) {
				return thinkingLevels[i]
			}
		}
	}
	if len(avail) > 0 {
		return avail[0]
	}
	return "off"
}

// MappedLevel returns thinkingLevelMap[level]: the value, whether the key is present, and
// whether it is null.
func (m *Model) MappedLevel(level string) (value string, present, null bool) {
	v, ok := m.ThinkingLevelMap[level]
	if !ok {
		return "", false, false
	}
	if v == nil {
		return "", true, true
	}
	return *v, true, false
}

// ThinkingEffort is pi's mapping of a thinking level to an Anthropic-style effort: the model's
// thinking level map when it names one, else minimal and low are low, medium is medium, and
// anything else is high.
func ThinkingEffort(m *Model, level string) string {
	if v, present, null := m.MappedLevel(level); present && !null {
		return v
	}
	switch level {
	case "minimal", "low":
		return "low"
	case "medium":
		return "medium"
	}
	return "high"
}

// ThinkingBudget is pi's thinkingBudgetForLevel (xhigh and max count as high).
func ThinkingBudget(level string, custom map[string]int) int {
	if level == "xhigh" || level == "max" {
		level = "high"
	}
	if v, ok := custom[level]; ok {
		return v
	}
	return DefaultThinkingBudgets[level]
}

// ClampBudgetToAnswerRoom keeps minAnswerTokens free under ceiling.
func ClampBudgetToAnswerRoom(budget, ceiling int) int {
	return min(budget, max(0, ceiling-minAnswerTokens))
}

// AdjustMaxTokensForThinking is pi's adjustMaxTokensForThinking; base 0 means no caller cap.
func AdjustMaxTokensForThinking(base, modelMax int, level string, custom map[string]int) (maxTokens, budget int) {
	budget = ThinkingBudget(level, custom)
	if base == 0 {
		maxTokens = modelMax
	} else {
		maxTokens = min(base+budget, modelMax)
	}
	if maxTokens <= budget {
		budget = ClampBudgetToAnswerRoom(budget, maxTokens)
	}
	return maxTokens, budget
}

// ClampMaxTokens is pi 1.6's clampMaxTokensToContext: the output cap shrinks so the estimated
// input plus a safety margin fits the window — 15% of the input, at least 4096 tokens, while
// that leaves 32768 tokens of output; else only the 4096 and at most 32768 (never below 1).
func ClampMaxTokens(m *Model, c *Context, maxTokens int) int {
	if m.ContextWindow <= 0 {
		return max(1, maxTokens)
	}
	if len(c.Tools) > 0 && clampRoom(m.ContextWindow, estimateRequestTokens(c, toolsLenBound)) >= maxTokens {
		// The room only shrinks as the input grows: when the tools' longest possible JSON
		// leaves room for maxTokens, so does their JSON, and the clamp changes nothing. A
		// session's first request then neither counts the ~40 KB array nor waits for
		// warmTools' goroutine counting it (~0.1 ms on its path).
		return maxTokens
	}
	return min(maxTokens, max(1, clampRoom(m.ContextWindow, EstimateRequestTokens(c))))
}

// clampRoom is the output room pi leaves a window for an input estimate: non-increasing in
// input.
func clampRoom(window, input int) int {
	margin := max(4096, int(math.Ceil(float64(input)*0.15)))
	room := window - input - margin
	if room < 32768 {
		room = min(32768, window-input-4096)
	}
	return room
}

// toolsLenBound is at least toolsLen(tools), from the lengths of their strings alone: no
// byte of a name, description or schema becomes more than six characters of the JSON (an
// escape \u00XX; JSON.stringify's longest rewrite of a number, 1e20's 21 digits, is 5.25 a
// byte), an empty schema is null, and each tool adds its keys, quotes, braces and a comma.
func toolsLenBound(tools []Tool) int {
	n := 2 + len(tools)
	for _, t := range tools {
		n += len(`{"name":,"description":,"parameters":}""""`) + 6*(len(t.Name)+len(t.Description)) + max(len("null"), 6*len(t.Parameters))
	}
	return n
}

// EstimateRequestTokens is pi 1.6's estimateContextTokens for a request: 3.5 characters a
// token, rounded up per message, the system prompt and the tools counted as its leading
// system message; after a reply with usage, that usage plus what follows it.
func EstimateRequestTokens(c *Context) int { return estimateRequestTokens(c, toolsLen) }

// estimateRequestTokens is EstimateRequestTokens with the tools' length from toolsLen; the
// system message is counted only when no usage replaces it.
func estimateRequestTokens(c *Context, toolsLen func([]Tool) int) int {
	est := func(chars int) int { return int(math.Ceil(float64(chars) / 3.5)) }
	message := func(msg *Message) int { return est(messageChars(msg)) }
	hasSystem := c.SystemPrompt != "" || len(c.Tools) > 0
	last := -1
	latest := int64(math.MinInt64)
	if hasSystem {
		latest = 0 // the leading system message's timestamp
	}
	for i := range c.Messages {
		msg := &c.Messages[i]
		if msg.Role == RoleAssistant && msg.Usage != nil && msg.Timestamp >= latest &&
			msg.StopReason != StopAborted && msg.StopReason != StopError && contextTokens(msg.Usage) > 0 {
			last = i
		}
		latest = max(latest, msg.Timestamp)
	}
	if last >= 0 {
		n := contextTokens(c.Messages[last].Usage)
		for i := last + 1; i < len(c.Messages); i++ {
			n += message(&c.Messages[i])
		}
		return n
	}
	n := 0
	if hasSystem {
		n = est(JSLen(c.SystemPrompt))
		if len(c.Tools) > 0 {
			n += est(toolsLen(c.Tools))
		}
	}
	for i := range c.Messages {
		n += message(&c.Messages[i])
	}
	return n
}

// RequestMaxTokens is the max tokens pi's streamSimple starts from: the option, else the
// model's, clamped to the context.
func RequestMaxTokens(m *Model, c *Context, o *Options) int {
	mt := m.MaxTokens
	if o != nil && o.MaxTokens > 0 {
		mt = o.MaxTokens
	}
	return ClampMaxTokens(m, c, mt)
}

func ceilDiv4(n int) int { return (n + 3) / 4 }

func contentChars(cs []Content) int {
	n := 0
	for _, c := range cs {
		if c.Type == TypeText {
			n += JSLen(c.Text)
		} else {
			n += 4800
		}
	}
	return n
}

// EstimateMessageTokens is pi's estimateMessageTokens (chars/4, images as 4800 chars).
func EstimateMessageTokens(msg *Message) int { return ceilDiv4(messageChars(msg)) }

// messageChars is the characters pi's estimates count of a message: its text (images as 4800),
// an assistant's thinking, and its tool calls' names and JSON arguments.
func messageChars(msg *Message) int {
	if msg.Role != RoleAssistant {
		return contentChars(msg.Content)
	}
	n := 0
	for _, b := range msg.Content {
		switch b.Type {
		case TypeText:
			n += JSLen(b.Text)
		case TypeThinking:
			n += JSLen(b.Thinking)
		default:
			args := b.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			if s, err := JSONStringify(args); err == nil {
				args = s
			}
			n += JSLen(b.Name) + JSLen(string(args))
		}
	}
	return n
}

func contextTokens(u *Usage) int {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// EstimateContextTokens is pi's estimateContextTokens: the last valid assistant usage plus
// estimates of what follows it, or estimates of everything (system prompt and tools
// included) when no usage applies.
func EstimateContextTokens(c *Context) int {
	last := -1
	latest := int64(-1 << 62)
	for i := range c.Messages {
		msg := &c.Messages[i]
		if msg.Role == RoleAssistant && msg.Usage != nil && msg.Timestamp >= latest &&
			msg.StopReason != StopAborted && msg.StopReason != StopError && contextTokens(msg.Usage) > 0 {
			last = i
		}
		latest = max(latest, msg.Timestamp)
	}
	if last >= 0 {
		n := contextTokens(c.Messages[last].Usage)
		for i := last + 1; i < len(c.Messages); i++ {
			n += EstimateMessageTokens(&c.Messages[i])
		}
		return n
	}
	n := 0
	for i := range c.Messages {
		n += EstimateMessageTokens(&c.Messages[i])
	}
	if c.SystemPrompt != "" {
		n += ceilDiv4(JSLen(c.SystemPrompt))
	}
	if len(c.Tools) > 0 {
		n += ceilDiv4(toolsJSLen(c.Tools))
	}
	return n
}

// CalculateCost is pi's calculateCost: dollars from the model's per-million rates, in pi's
// order of operations so the floats are the same.
func CalculateCost(m *Model, u *Usage) {
	long := 0
	if u.CacheWrite1h != nil {
		long = *u.CacheWrite1h
	}
	short := u.CacheWrite - long
	u.Cost.Input = (m.Cost.Input / 1000000) * float64(u.Input)
	u.Cost.Output = (m.Cost.Output / 1000000) * float64(u.Output)
	u.Cost.CacheRead = (m.Cost.CacheRead / 1000000) * float64(u.CacheRead)
	u.Cost.CacheWrite = (m.Cost.CacheWrite*float64(short) + m.Cost.Input*2*float64(long)) / 1000000
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
}

// CacheRetention resolves the option: none|short|long, PI_CACHE_RETENTION=long as pi reads it.
func (o *Options) Retention() string {
	if o != nil && o.CacheRetention != "" {
		return o.CacheRetention
	}
	if os.Getenv("PI_CACHE_RETENTION") == "long" {
		return "long"
	}
	return "short"
}

// toolsLenMemo is the last tools measured and their length: a session sends the same tools with
// every request (20 by default, with their schemas; codemode's description alone is kilobytes),
// and comparing them byte for byte is a fraction of measuring them again. The memo holds its own
// copy, so a caller changing a tool's bytes in place later cannot make it stale.
var toolsLenMemo toolsMemo[int]

// WarmToolsLen measures tools for pi's estimate now, into the memo every request reads: a
// session does it beside its start (app's warmTools), not before its first request.
func WarmToolsLen(tools []Tool) { toolsLen(tools) }

// ToolsLenKnown reports whether the memo holds tools' length (what WarmToolsLen leaves).
func ToolsLenKnown(tools []Tool) bool { return toolsLenMemo.has(tools, "") }

// toolsLen is toolsJSLen, memoised for the last tools.
func toolsLen(tools []Tool) int {
	return toolsLenMemo.get(tools, "", func() int { return toolsJSLen(tools) })
}

// toolsMemo keeps what was made of the last tools it was given (and of key: what else the
// making depends on). It holds its own copy of the tools, so a caller changing a tool's bytes
// in place cannot make it stale (the tools' length and a provider's tools JSON). The zero
// value is ready; it is safe for concurrent use.
type toolsMemo[T any] struct {
	mu    sync.Mutex
	tools []Tool
	key   string
	v     T
}

// get returns the value made of tools and key, made anew by build only when they differ from
// the last call's.
func (m *toolsMemo[T]) get(tools []Tool, key string, build func() T) T {
	m.mu.Lock()
	defer m.mu.Unlock()
	if key == m.key && sameTools(m.tools, tools) {
		return m.v
	}
	m.v, m.key, m.tools = build(), key, cloneTools(tools)
	return m.v
}

// has reports whether the memo holds the value of tools and key.
func (m *toolsMemo[T]) has(tools []Tool, key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return key == m.key && sameTools(m.tools, tools)
}

// cloneTools is a copy of tools that shares no bytes with them.
func cloneTools(tools []Tool) []Tool {
	out := make([]Tool, len(tools))
	for i, t := range tools {
		out[i] = Tool{Name: t.Name, Description: t.Description, Parameters: bytes.Clone(t.Parameters)}
	}
	return out
}

// ToolsJSON keeps a provider's JSON of the last tools it was given, for the next request with
// the same tools: a session sends the same ~20 tools, their schemas and codemode's kilobytes of
// description with every request, and converting and writing them again was ~40-80 µs of each
// request's body; comparing them byte for byte is a few. Like the length's memo it is a
// toolsMemo. The zero value is ready; it is safe for concurrent use.
type ToolsJSON struct{ memo toolsMemo[[]byte] }

// Get returns render's JSON of tools, rendered anew only when tools or key (what else the
// rendering depends on) differ from the last call's. The bytes are shared: write them, never
// change them.
func (j *ToolsJSON) Get(tools []Tool, key string, render func() []byte) []byte {
	return j.memo.get(tools, key, render)
}

func sameTools(a, b []Tool) bool {
	if len(a) != len(b) || a == nil {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !bytes.Equal(a[i].Parameters, b[i].Parameters) ||
			(a[i].Parameters == nil) != (b[i].Parameters == nil) {
			return false
		}
	}
	return true
}

// toolsJSLen is the length in UTF-16 units of JSON.stringify(tools) as pi's estimates take it:
// the tools written directly (each schema in one pass), not marshalled by reflection and then
// re-serialised whole, which each request did twice. toolsJSLenMarshal is that way, kept for
// what the direct writer does not take (a schema that is not valid JSON makes the whole
// marshal "null"). The length is summed tool by tool, in one scratch buffer, and a schema
// already in JSON.stringify's form (isStringified: the shipped tools' model schemas) is
// counted where it is: writing the ~40 KB array once more for a count made a session's
// tools' JSON one more time (85 KB of garbage, ~0.2 ms of warmTools' goroutine).
func toolsJSLen(tools []Tool) int {
	n := 2 + max(len(tools)-1, 0) // the brackets and the commas
	var b []byte
	for _, t := range tools {
		n += len(`{"name":`) + len(`,"description":`) + len(`,"parameters":`) + len(`}`)
		b = AppendJSString(b[:0], t.Name)
		b = AppendJSString(b, t.Description)
		n += JSLen(unsafe.String(unsafe.SliceData(b), len(b)))
		switch {
		case len(t.Parameters) == 0:
			n += len("null")
		case isStringified(t.Parameters):
			n += JSLen(unsafe.String(unsafe.SliceData(t.Parameters), len(t.Parameters)))
		default:
			var ok bool
			if b, ok = appendStringified(b[:0], t.Parameters); !ok {
				return toolsJSLenMarshal(tools)
			}
			n += JSLen(unsafe.String(unsafe.SliceData(b), len(b)))
		}
	}
	return n
}

func toolsJSLenMarshal(tools []Tool) int {
	b, _ := json.Marshal(tools)
	if s, err := JSONStringify(b); err == nil {
		b = s
	}
	return JSLen(string(b))
}
