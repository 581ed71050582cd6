package llm

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// AppendMessageJSON appends m as pi writes a message (JSON.stringify of its message object,
// in session files and in --mode json's events): the keys in Message's field order with its
// omissions, a user message read as plain text written back as a string, every string with
// JSON.stringify's escapes (AppendJSString: "<", ">", "&" and U+2028 raw, where
// encoding/json writes \u003c), tool-call arguments and details as
// JSON.stringify(JSON.parse(raw)), and cost figures as JavaScript prints numbers.
//
// It is Message's MarshalJSON, written directly: encoding/json built the same object by
// reflection for every message a session appends (its first use of each type alone was
// ~0.5 ms of a short -p run) and escaped HTML characters that pi writes as they are.
// Arguments or details that are not JSON are an error, as they were.
func AppendMessageJSON(b []byte, m *Message) ([]byte, error) {
	b = append(b, `{"role":`...)
	b = AppendJSString(b, m.Role)
	b = append(b, `,"content":`...)
	var err error
	if m.StringContent && len(m.Content) == 1 && m.Content[0].Type == TypeText {
		b = AppendJSString(b, m.Content[0].Text)
	} else {
		b = append(b, '[')
		for i := range m.Content {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendContentJSON(b, &m.Content[i]); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	b = appendStrField(b, "api", m.API)
	b = appendStrField(b, "provider", m.Provider)
	b = appendStrField(b, "model", m.Model)
	b = appendStrField(b, "responseId", m.ResponseID)
	if u := m.Usage; u != nil {
		b = append(b, `,"usage":{"input":`...)
		b = strconv.AppendInt(b, int64(u.Input), 10)
		b = append(b, `,"output":`...)
		b = strconv.AppendInt(b, int64(u.Output), 10)
		b = append(b, `,"cacheRead":`...)
		b = strconv.AppendInt(b, int64(u.CacheRead), 10)
		b = append(b, `,"cacheWrite":`...)
		b = strconv.AppendInt(b, int64(u.CacheWrite), 10)
		if u.Reasoning != nil {
			b = append(b, `,"reasoning":`...)
			b = strconv.AppendInt(b, int64(*u.Reasoning), 10)
		}
		b = append(b, `,"totalTokens":`...)
		b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
		c := &u.Cost
		b = append(b, `,"cost":{"input":`...)
		b = AppendJSNumber(b, c.Input)
		b = append(b, `,"output":`...)
		b = AppendJSNumber(b, c.Output)
		b = append(b, `,"cacheRead":`...)
		b = AppendJSNumber(b, c.CacheRead)
		b = append(b, `,"cacheWrite":`...)
		b = AppendJSNumber(b, c.CacheWrite)
		b = append(b, `,"total":`...)
		b = AppendJSNumber(b, c.Total)
		b = append(b, '}')
		if u.CacheWrite1h != nil {
			b = append(b, `,"cacheWrite1h":`...)
			b = strconv.AppendInt(b, int64(*u.CacheWrite1h), 10)
		}
		b = append(b, '}')
	}
	b = appendStrField(b, "stopReason", m.StopReason)
	b = appendStrField(b, "errorMessage", m.ErrorMessage)
	b = appendStrField(b, "responseModel", m.ResponseModel)
	b = appendStrField(b, "rawStopReason", m.RawStopReason)
	b = appendStrField(b, "providerThinkingLevel", m.ProviderThinkingLevel)
	b = appendStrField(b, "toolCallId", m.ToolCallID)
	b = appendStrField(b, "toolName", m.ToolName)
	if len(m.Details) > 0 {
		b = append(b, `,"details":`...)
		if b, err = appendRawJSON(b, m.Details); err != nil {
			return b, err
		}
	}
	if m.IsError != nil {
		b = append(b, `,"isError":`...)
		b = strconv.AppendBool(b, *m.IsError)
	}
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, m.Timestamp, 10)
	return append(b, '}'), nil
}

// appendContentJSON appends one content block as Content's MarshalJSON defines it.
func appendContentJSON(b []byte, c *Content) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = AppendJSString(b, c.Type)
	switch c.Type {
	case TypeText:
		b = append(b, `,"text":`...)
		b = AppendJSString(b, c.Text)
		b = appendStrField(b, "textSignature", c.TextSignature)
	case TypeThinking:
		b = append(b, `,"thinking":`...)
		b = AppendJSString(b, c.Thinking)
		b = appendStrField(b, "thinkingSignature", c.ThinkingSignature)
		if c.Redacted {
			b = append(b, `,"redacted":true`...)
		}
	case TypeToolCall:
		b = append(b, `,"id":`...)
		b = AppendJSString(b, c.ID)
		b = append(b, `,"name":`...)
		b = AppendJSString(b, c.Name)
		b = append(b, `,"arguments":`...)
		if len(c.Arguments) == 0 {
			b = append(b, "{}"...)
		} else {
			var err error
			if b, err = appendRawJSON(b, c.Arguments); err != nil {
				return b, err
			}
		}
		b = appendStrField(b, "thoughtSignature", c.ThoughtSignature)
	default: // every field that is set, in the struct's order
		b = appendStrField(b, "text", c.Text)
		b = appendStrField(b, "textSignature", c.TextSignature)
		b = appendStrField(b, "thinking", c.Thinking)
		b = appendStrField(b, "thinkingSignature", c.ThinkingSignature)
		if c.Redacted {
			b = append(b, `,"redacted":true`...)
		}
		b = appendStrField(b, "data", c.Data)
		b = appendStrField(b, "mimeType", c.MimeType)
		b = appendStrField(b, "id", c.ID)
		b = appendStrField(b, "name", c.Name)
		if len(c.Arguments) > 0 {
			b = append(b, `,"arguments":`...)
			var err error
			if b, err = appendRawJSON(b, c.Arguments); err != nil {
				return b, err
			}
		}
		b = appendStrField(b, "thoughtSignature", c.ThoughtSignature)
	}
	return append(b, '}'), nil
}

// appendStrField appends ,"key":value for a string field that omitempty leaves out when empty.
func appendStrField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return AppendJSString(b, v)
}

// appendRawJSON appends raw JSON as JSON.stringify(JSON.parse(raw)): as it is when it
// already is in that form (arguments and details pigo and pi write are), else rewritten by
// JSONStringify.
func appendRawJSON(b, raw json.RawMessage) ([]byte, error) {
	if isStringified(raw) {
		return append(b, raw...), nil
	}
	s, err := JSONStringify(raw)
	if err != nil {
		return b, fmt.Errorf("not JSON: %w", err)
	}
	return append(b, s...), nil
}
