// Package llm holds the types every part of the runtime shares: pi's messages and content
// blocks (as they appear in session files and JSON-mode events), usage, the assistant-message
// event stream, tools as the model sees them, and the Provider interface that the wire clients
// in the sub-packages (openai, anthropic, responses) implement.
//
// The JSON field names are pi's (pi-ai types.d.ts), so a Message marshals to exactly what pi
// writes in a session file and reads back what pi wrote.
package llm

import (
	"context"
	"encoding/json"
	"net/http"
)

// Roles.
const (
	RoleUser       = "user"
	RoleAssistant  = "assistant"
	RoleToolResult = "toolResult"
)

// Content block types.
const (
	TypeText     = "text"
	TypeThinking = "thinking"
	TypeImage    = "image"
	TypeToolCall = "toolCall"
)

// Content is one content block: text, thinking, image or toolCall (Type says which; only that
// kind's fields are set).
type Content struct {
	Type string `json:"type"`

	// text
	Text          string `json:"text,omitempty"`
	TextSignature string `json:"textSignature,omitempty"`

	// thinking
	Thinking          string `json:"thinking,omitempty"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	Redacted          bool   `json:"redacted,omitempty"`

	// The lengths of the record of Text's or Thinking's JSON form (see SetQuoted), in the
	// word Redacted leaves: the string's length and what its quoted form adds to it.
	qdHi uint8
	qdLo uint16
	qn   uint32

	// image (base64 data)
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`

	// toolCall
	ID               string          `json:"id,omitempty"`
	Name             string          `json:"name,omitempty"`
	Arguments        json.RawMessage `json:"arguments,omitempty"`
	ThoughtSignature string          `json:"thoughtSignature,omitempty"`

	// qs and qq are where the recorded string and its JSON form start (see SetQuoted): a
	// block is 208 bytes, a size class of its own (224 with the record as two strings).
	qs, qq *byte
}

// MarshalJSON writes a text block's "text" even when it is empty (pi always has it), and a
// tool call's "arguments" as {} when none were given (appendContentJSON).
func (c Content) MarshalJSON() ([]byte, error) { return appendContentJSON(nil, &c) }

// TextBlock returns a text content block.
func TextBlock(s string) Content { return Content{Type: TypeText, Text: s} }

// Cost is a usage's cost in dollars.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Usage is one assistant message's token usage.
type Usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	Reasoning   *int `json:"reasoning,omitempty"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
	// CacheWrite1h is the part of CacheWrite written with a one-hour TTL (anthropic-messages
	// sets it, 0 included, as pi does).
	CacheWrite1h *int `json:"cacheWrite1h,omitempty"`
}

// Stop reasons.
const (
	StopStop    = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
	StopError   = "error"
	StopAborted = "aborted"
)

// Message is one LLM message: user, assistant or toolResult (Role says which). App messages
// (bashExecution, custom, summaries) are session-level and converted to user messages before a
// provider sees them.
type Message struct {
	Role    string    `json:"role"`
	Content []Content `json:"content"`

	// assistant
	API          string `json:"api,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	ResponseID   string `json:"responseId,omitempty"`
	Usage        *Usage `json:"usage,omitempty"`
	StopReason   string `json:"stopReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	// ResponseModel is the model the provider reports when it differs from Model.
	ResponseModel string `json:"responseModel,omitempty"`
	// RawStopReason is the provider's own stop/finish reason (pi records it).
	RawStopReason string `json:"rawStopReason,omitempty"`
	// ProviderThinkingLevel is the reasoning effort a Codex reply was made with, sent back
	// before it in a configuration_update item (pi 1.6).
	ProviderThinkingLevel string `json:"providerThinkingLevel,omitempty"`

	// toolResult
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`
	IsError    *bool           `json:"isError,omitempty"`

	// Timestamp is Unix milliseconds.
	Timestamp int64 `json:"timestamp"`

	// StringContent records that a user message's content was a plain string in the file it
	// was read from; it is written back the same way.
	StringContent bool `json:"-"`

	// status is the HTTP status of the failed response an error message came from. It is an
	// int32 beside StringContent so that both take one word: a Message is 272 bytes, and a
	// session entry, its message and its LLM message fit one 448-byte allocation (D25.18).
	status int32
}

// HTTPStatus is the HTTP status of the response that failed the request, for an error message
// that came from one (0 otherwise).
func (m *Message) HTTPStatus() int { return int(m.status) }

// UnmarshalJSON accepts a user message whose content is a plain string (pi writes both forms).
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	var raw struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = Message(raw.plain)
	m.Content = nil
	if len(raw.Content) > 0 && raw.Content[0] == '"' {
		var s string
		if err := json.Unmarshal(raw.Content, &s); err != nil {
			return err
		}
		m.Content = []Content{TextBlock(s)}
		m.StringContent = true
		return nil
	}
	if len(raw.Content) > 0 && string(raw.Content) != "null" {
		return json.Unmarshal(raw.Content, &m.Content)
	}
	return nil
}

// MarshalJSON writes a user message read as a plain string back as a string, and content as
// [] rather than null.
func (m Message) MarshalJSON() ([]byte, error) { return AppendMessageJSON(nil, &m) }

// Text returns the concatenated text blocks of a message.
func (m *Message) Text() string {
	var s string
	for _, c := range m.Content {
		if c.Type == TypeText {
			s += c.Text
		}
	}
	return s
}

// ToolCalls returns the message's tool-call blocks in order.
func (m *Message) ToolCalls() []Content {
	var out []Content
	for _, c := range m.Content {
		if c.Type == TypeToolCall {
			out = append(out, c)
		}
	}
	return out
}

// Tool is a tool as the model sees it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Context is one request: the system prompt, the messages and the tools.
type Context struct {
	SystemPrompt string
	Messages     []Message
	Tools        []Tool
}

// Assistant-message event types (pi's AssistantMessageEvent).
const (
	EventStart         = "start"
	EventTextStart     = "text_start"
	EventTextDelta     = "text_delta"
	EventTextEnd       = "text_end"
	EventThinkingStart = "thinking_start"
	EventThinkingDelta = "thinking_delta"
	EventThinkingEnd   = "thinking_end"
	EventToolCallStart = "toolcall_start"
	EventToolCallDelta = "toolcall_delta"
	EventToolCallEnd   = "toolcall_end"
	EventDone          = "done"
	EventError         = "error"
)

// Event is one assistant-message stream event. Partial is the message as built so far (a
// snapshot: providers must not mutate it after emitting).
type Event struct {
	Type         string   `json:"type"`
	ContentIndex *int     `json:"contentIndex,omitempty"`
	Delta        string   `json:"delta,omitempty"`
	Content      *string  `json:"content,omitempty"`
	ToolCall     *Content `json:"toolCall,omitempty"`
	Partial      *Message `json:"partial,omitempty"`
	// Reason is set on done (stop|length|toolUse) and error (error|aborted).
	Reason string `json:"reason,omitempty"`
	// Message is the final message on done; Error the final message on error.
	Message *Message `json:"message,omitempty"`
	Error   *Message `json:"error,omitempty"`
}

// Model is everything a provider needs to talk to one model: models.json's provider entry
// merged with the model's own entry (or the shipped catalogue's facts).
type Model struct {
	Provider string
	ID       string
	Name     string
	API      string // openai-completions | anthropic-messages | openai-responses
	BaseURL  string
	APIKey   string // resolved ($VAR, !command, env) by the caller
	// Env is the stored credential's environment (auth.json "env"), read before the process
	// environment for this provider's own variables (endpoints, account ids, regions).
	Env map[string]string
	// Auth, when set, supplies the credential per request (OAuth tokens refreshed before they
	// expire and after a 401); it overrides APIKey, and BaseURL when it gives one.
	Auth          Credentials
	Headers       map[string]string
	Reasoning     bool
	Input         []string
	ContextWindow int
	MaxTokens     int
	// Cost per million tokens.
	Cost Cost
	// Compat holds models.json `compat` flags as given (provider-specific, decoded by each API).
	Compat json.RawMessage
	// ThinkingLevelMap is models.json's thinkingLevelMap: a level mapped to the provider's own
	// value; a present key with a nil value marks the level unsupported (pi's null).
	ThinkingLevelMap map[string]*string
	// ReportedCost marks a model of the seed's openai-cost provider: the provider's own
	// usage.cost is the price of a request (see Options.ReportedCost).
	ReportedCost bool
}

// Options are per-request options.
type Options struct {
	// ThinkingLevel is off|minimal|low|medium|high|xhigh.
	ThinkingLevel string
	MaxTokens     int
	// SessionID is sent where the provider supports it (and as Thread-Id by request-headers).
	SessionID string
	// Headers are extra request headers (added after the model's own).
	Headers map[string]string
	// ProxyURL is the HTTP(S) proxy to use ("" = none / environment).
	ProxyURL string
	// ThinkingBudgets overrides pi's default thinking budgets per level (settings
	// thinkingBudgets: minimal, low, medium, high).
	ThinkingBudgets map[string]int
	// CacheRetention is none|short|long ("" = short, or long when PI_CACHE_RETENTION=long).
	CacheRetention string
	// ReportedCost takes an openai-completions provider's own usage.cost (a number, {total},
	// or choices[i].usage.cost) as the request's cost total, with the breakdown zeroed (the
	// seed's openai-cost provider).
	ReportedCost bool
	// HTTPClient, when set, is used instead of the provider's default client (tests, proxies).
	HTTPClient HTTPDoer
	// ToolChoice is pi's toolChoice ("none" for compaction summaries; "" = not sent).
	ToolChoice string
	// Limits bound the streamed reply (nil: DefaultLimits).
	Limits *Limits
	// LivePartials says the caller reads each event's Partial only while its emit callback
	// runs (copying what it keeps), so the provider may pass its live message instead of a
	// copy per event ([Builder.Live]). Nothing of it is sent.
	LivePartials bool
	// Memo, when set, extends the last request body of the session instead of rebuilding its
	// message array ([BodyMemo]); the body is the same bytes either way. Nothing of it is sent.
	Memo *BodyMemo
}

// HTTPDoer is the part of *http.Client a provider uses.
type HTTPDoer interface {
	Do(*http.Request) (*http.Response, error)
}

// Provider streams one assistant message. It never returns an error: every failure ends the
// stream with an error event whose message has StopReason error (or aborted when ctx was
// cancelled) and ErrorMessage set, and that final message is returned. emit is called
// synchronously, in order, from the calling goroutine.
type Provider interface {
	Stream(ctx context.Context, m *Model, c *Context, o *Options, emit func(Event)) *Message
}
