package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// App message roles: messages stored in the session that are not LLM messages. convertToLlm
// turns them into user messages (core/messages.js).
const (
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
)

// pi's wrapper texts for summaries in the context (core/messages.js).
const (
	CompactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	CompactionSummarySuffix = "\n</summary>"
	BranchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	BranchSummarySuffix     = "</summary>"
)

// Message is the message of a message entry: an LLM message (user, assistant, toolResult) or
// an app message (bashExecution; custom in files migrated from version 2). Exactly one of LLM,
// Bash and Custom is set; Role names it.
type Message struct {
	Role   string
	LLM    *llm.Message
	Bash   *BashExecution
	Custom *CustomMessage

	// raw is the message's bytes, kept for a role pigo does not know (written back as
	// they are); a pointer, so that a message is 48 bytes (D25.23).
	raw *[]byte
}

// BashExecution is a user-run `!command` and its output (pi's BashExecutionMessage).
type BashExecution struct {
	Command        string `json:"command"`
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode,omitempty"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
	Timestamp      int64  `json:"timestamp"`
	// ExcludeFromContext is set by `!!command`: shown, never sent to the model.
	ExcludeFromContext bool `json:"excludeFromContext,omitempty"`
}

// CustomMessage is an extension's message that takes part in the context.
type CustomMessage struct {
	CustomType string `json:"customType"`
	// Content is a JSON string or an array of text/image blocks.
	Content   json.RawMessage `json:"content"`
	Display   bool            `json:"display"`
	Details   json.RawMessage `json:"details,omitempty"`
	Timestamp int64           `json:"timestamp"`
}

// LLMMessage wraps an LLM message for a message entry.
func LLMMessage(m llm.Message) *Message {
	return &Message{Role: m.Role, LLM: &m}
}

// MarshalJSON writes the message (the bytes it was read from, when it was read).
func (m *Message) MarshalJSON() ([]byte, error) {
	if m.raw != nil {
		return *m.raw, nil
	}
	switch {
	case m.LLM != nil:
		return llm.AppendMessageJSON(nil, m.LLM)
	case m.Bash != nil:
		b := m.Bash
		return marshal(struct {
			Role           string `json:"role"`
			Command        string `json:"command"`
			Output         string `json:"output"`
			ExitCode       *int   `json:"exitCode,omitempty"`
			Cancelled      bool   `json:"cancelled"`
			Truncated      bool   `json:"truncated"`
			FullOutputPath string `json:"fullOutputPath,omitempty"`
			Timestamp      int64  `json:"timestamp"`
			Exclude        bool   `json:"excludeFromContext,omitempty"`
		}{RoleBashExecution, b.Command, b.Output, b.ExitCode, b.Cancelled, b.Truncated, b.FullOutputPath, b.Timestamp, b.ExcludeFromContext})
	case m.Custom != nil:
		c := m.Custom
		return marshal(struct {
			Role       string          `json:"role"`
			CustomType string          `json:"customType"`
			Content    json.RawMessage `json:"content"`
			Display    bool            `json:"display"`
			Details    json.RawMessage `json:"details,omitempty"`
			Timestamp  int64           `json:"timestamp"`
		}{RoleCustom, c.CustomType, orEmptyArray(c.Content), c.Display, c.Details, c.Timestamp})
	}
	return nil, fmt.Errorf("session: empty message")
}

// UnmarshalJSON reads a message of any role. Roles pigo does not know are kept as they are
// (and written back) but take no part in the context.
func (m *Message) UnmarshalJSON(b []byte) error {
	role, ok := leadingRole(b)
	if !ok {
		var head struct {
			Role string `json:"role"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return err
		}
		role = head.Role
	}
	// The bytes are kept only for roles pigo does not know: an entry keeps its own line, so
	// known messages need no second copy.
	*m = Message{Role: role}
	switch role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult:
		m.LLM = new(llm.Message)
		return json.Unmarshal(b, m.LLM)
	case RoleBashExecution:
		m.Bash = new(BashExecution)
		return json.Unmarshal(b, m.Bash)
	case RoleCustom, "hookMessage":
		m.Custom = new(CustomMessage)
		return json.Unmarshal(b, m.Custom)
	}
	raw := append([]byte(nil), b...)
	m.raw = &raw
	return nil
}

// leadingRole reads the role of a message that starts with {"role":"<plain word>", as every
// message pi writes does, without a second decode.
func leadingRole(b []byte) (string, bool) {
	const p = `{"role":"`
	if !bytes.HasPrefix(b, []byte(p)) {
		return "", false
	}
	rest := b[len(p):]
	for i, c := range rest {
		switch {
		case c == '"':
			return string(rest[:i]), true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

func orEmptyArray(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || string(r) == "null" {
		return json.RawMessage("[]")
	}
	return r
}

// BashText is the text a bash execution becomes in the context (bashExecutionToText).
func BashText(b *BashExecution) string {
	var s strings.Builder
	s.WriteString("Ran `" + b.Command + "`\n")
	if b.Output != "" {
		s.WriteString("```\n" + b.Output + "\n```")
	} else {
		s.WriteString("(no output)")
	}
	if b.Cancelled {
		s.WriteString("\n\n(command cancelled)")
	} else if b.ExitCode != nil && *b.ExitCode != 0 {
		fmt.Fprintf(&s, "\n\nCommand exited with code %d", *b.ExitCode)
	}
	if b.Truncated && b.FullOutputPath != "" {
		s.WriteString("\n\n[Output truncated. Full output: " + b.FullOutputPath + "]")
	}
	return s.String()
}

// customContent decodes a custom message's content: a string becomes one text block.
func customContent(r json.RawMessage) []llm.Content {
	if len(r) == 0 || string(r) == "null" {
		return []llm.Content{}
	}
	if r[0] == '"' {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return []llm.Content{llm.TextBlock(s)}
		}
	}
	var out []llm.Content
	if json.Unmarshal(r, &out) != nil {
		return []llm.Content{}
	}
	return out
}

// millis is JavaScript's new Date(iso).getTime() (0 for an unparsable timestamp; pi gets NaN,
// which JSON.stringify writes as null).
func millis(iso string) int64 {
	t, err := ParseTimestamp(iso)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// EntryMessages returns the LLM messages one context entry contributes (pi's
// sessionEntryToContextMessages followed by convertToLlm): a message entry's message (an app
// message converted to a user message, a `!!` bash run to none), a custom_message, or a
// summary in pi's wrapper text. Other entry types contribute none.
func EntryMessages(e *Entry) []llm.Message { return appendLLM(nil, e) }

// appendLLM appends the messages of one context entry to dst.
func appendLLM(dst []llm.Message, e *Entry) []llm.Message {
	switch e.Type {
	case TypeMessage:
		m := e.Message
		if m == nil {
			return dst
		}
		switch {
		case m.LLM != nil:
			msg := *m.LLM
			if msg.Content == nil {
				msg.Content = []llm.Content{}
			}
			return append(dst, msg)
		case m.Bash != nil:
			if m.Bash.ExcludeFromContext {
				return dst
			}
			return append(dst, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(BashText(m.Bash))}, Timestamp: m.Bash.Timestamp})
		case m.Custom != nil:
			return append(dst, llm.Message{Role: llm.RoleUser, Content: customContent(m.Custom.Content), Timestamp: m.Custom.Timestamp})
		}
	case TypeCustomMessage:
		return append(dst, llm.Message{Role: llm.RoleUser, Content: customContent(e.Content), Timestamp: millis(e.Timestamp)})
	case TypeBranchSummary:
		if e.Summary == "" {
			return dst
		}
		return append(dst, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(BranchSummaryPrefix + e.Summary + BranchSummarySuffix)}, Timestamp: millis(e.Timestamp)})
	case TypeCompaction:
		return append(dst, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(CompactionSummaryPrefix + e.Summary + CompactionSummarySuffix)}, Timestamp: millis(e.Timestamp)})
	}
	return dst
}
