package openai

import (
	"encoding/json"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// A message of the common shapes is written into the body straight from the message
// (llm.Direct) instead of through an llm.Obj of its fields: a user prompt, a user message of
// text blocks, an assistant reply of texts and tool calls without thinking, a tool result
// without images. Each type below writes exactly what appendObj writes for convertRange's
// object of such a message (TestDirectSameBody); anything else is converted as before.
// At 64 MB of session the objects, their fields and boxed values were ~17 MB of fresh pages
// and a pass over every message and block, for bytes written once.

// directOff turns the direct messages off (tests compare bodies written both ways).
var directOff bool

// userStringMsg is a user message whose content was a string: {"role":"user","content":...}.
type userStringMsg llm.Message

// userTextsMsg is a user message of text blocks only (at least one).
type userTextsMsg llm.Message

// assistantMsg is an assistant message without thinking blocks, with a non-blank text or a
// tool call, for a compat that neither sends "" as an empty content nor needs
// reasoning_content.
type assistantMsg llm.Message

// toolMsg is a tool result without images; toolNamedMsg one that also gives its tool's name.
type (
	toolMsg      llm.Message
	toolNamedMsg llm.Message
)

func (m *userStringMsg) AppendDirect(b []byte) []byte {
	b = append(b, `{"role":"user","content":`...)
	b = appendJoined(b, m.Content, "", false)
	return append(b, '}')
}

func (m *userStringMsg) DirectHint() int { return 28 + joinedHint(m.Content) }

func (m *userStringMsg) SameDirect(d llm.Direct) bool {
	o, ok := d.(*userStringMsg)
	return ok && o == m
}

func (m *userTextsMsg) AppendDirect(b []byte) []byte {
	b = append(b, `{"role":"user","content":[`...)
	for k := range m.Content {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		b = m.Content[k].AppendText(b)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func (m *userTextsMsg) DirectHint() int {
	n := 30
	for k := range m.Content {
		n += 24 + m.Content[k].TextHint()
	}
	return n
}

func (m *userTextsMsg) SameDirect(d llm.Direct) bool {
	o, ok := d.(*userTextsMsg)
	return ok && o == m
}

func (m *assistantMsg) AppendDirect(b []byte) []byte {
	b = append(b, `{"role":"assistant","content":`...)
	var one *llm.Content
	n := 0
	for k := range m.Content {
		if c := &m.Content[k]; c.Type == llm.TypeText && strings.TrimSpace(c.Text) != "" {
			if n++; n == 1 {
				one = c
			}
		}
	}
	switch n {
	case 0:
		b = append(b, "null"...)
	case 1:
		b = one.AppendText(b)
	default:
		// convertRange's text: the non-blank texts joined.
		var text strings.Builder
		for k := range m.Content {
			if c := &m.Content[k]; c.Type == llm.TypeText && strings.TrimSpace(c.Text) != "" {
				text.WriteString(c.Text)
			}
		}
		b = llm.AppendJSString(b, text.String())
	}
	calls := 0
	for k := range m.Content {
		c := &m.Content[k]
		if c.Type != llm.TypeToolCall {
			continue
		}
		if calls == 0 {
			b = append(b, `,"tool_calls":[`...)
		} else {
			b = append(b, ',')
		}
		calls++
		b = append(b, `{"id":`...)
		b = llm.AppendJSString(b, c.ID)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = llm.AppendJSString(b, c.Name)
		b = append(b, `,"arguments":`...)
		args := c.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		b = llm.AppendJSONText(b, args)
		b = append(b, "}}"...)
	}
	if calls > 0 {
		b = append(b, ']')
	}
	return append(b, '}')
}

func (m *assistantMsg) DirectHint() int {
	n := 36
	for k := range m.Content {
		switch c := &m.Content[k]; c.Type {
		case llm.TypeText:
			n += c.TextHint()
		case llm.TypeToolCall:
			a := max(len(c.Arguments), 2)
			n += 64 + len(c.ID) + len(c.Name) + a + a/8 + 2
		}
	}
	return n
}

func (m *assistantMsg) SameDirect(d llm.Direct) bool {
	o, ok := d.(*assistantMsg)
	return ok && o == m
}

func (m *toolMsg) AppendDirect(b []byte) []byte {
	return append(appendToolResult(b, (*llm.Message)(m)), '}')
}

func (m *toolMsg) DirectHint() int { return 48 + joinedHint(m.Content) + len(m.ToolCallID) }

func (m *toolMsg) SameDirect(d llm.Direct) bool {
	o, ok := d.(*toolMsg)
	return ok && o == m
}

func (m *toolNamedMsg) AppendDirect(b []byte) []byte {
	b = appendToolResult(b, (*llm.Message)(m))
	b = append(b, `,"name":`...)
	b = llm.AppendJSString(b, m.ToolName)
	return append(b, '}')
}

func (m *toolNamedMsg) DirectHint() int {
	return 58 + joinedHint(m.Content) + len(m.ToolCallID) + len(m.ToolName)
}

func (m *toolNamedMsg) SameDirect(d llm.Direct) bool {
	o, ok := d.(*toolNamedMsg)
	return ok && o == m
}

// appendToolResult appends a tool result's object without its closing brace.
func appendToolResult(b []byte, m *llm.Message) []byte {
	b = append(b, `{"role":"tool","content":`...)
	b = appendJoined(b, m.Content, "\n", true)
	b = append(b, `,"tool_call_id":`...)
	return llm.AppendJSString(b, m.ToolCallID)
}

// appendJoined appends AppendJSON(b, joinTexts(content, sep)), or "(no tool output)" for a
// tool result whose text is "" (convertRange's text for one without images).
func appendJoined(b []byte, content []llm.Content, sep string, tool bool) []byte {
	var one *llm.Content
	n := 0
	for k := range content {
		if content[k].Type == llm.TypeText {
			if n++; n == 1 {
				one = &content[k]
			}
		}
	}
	switch {
	case n == 0 || n == 1 && one.Text == "":
		if tool {
			return append(b, `"(no tool output)"`...)
		}
		return append(b, `""`...)
	case n == 1:
		return one.AppendText(b)
	}
	texts := make([]string, 0, n)
	for k := range content {
		if content[k].Type == llm.TypeText {
			texts = append(texts, content[k].Text)
		}
	}
	return llm.AppendJSString(b, strings.Join(texts, sep))
}

// joinedHint is about the length appendJoined writes.
func joinedHint(content []llm.Content) int {
	n := 2
	for k := range content {
		if content[k].Type == llm.TypeText {
			n += content[k].TextHint() + 1
		}
	}
	return n + 16
}

// directUser is the Direct for a user message, or nil when convertRange converts it.
func directUser(msg *llm.Message) llm.Direct {
	if msg.StringContent {
		return (*userStringMsg)(msg)
	}
	if len(msg.Content) == 0 {
		return nil
	}
	for k := range msg.Content {
		if msg.Content[k].Type != llm.TypeText {
			return nil
		}
	}
	return (*userTextsMsg)(msg)
}

// directAssistant is the Direct for an assistant message, or nil when convertRange converts
// it (it has thinking, or the compat asks for what the Direct does not write). skip: the
// message has no non-blank text and no tool call, so convertRange leaves it out.
func directAssistant(m *llm.Model, compat Compat, msg *llm.Message) (d llm.Direct, skip bool) {
	if compat.RequiresAssistantAfterToolResult || compat.RequiresReasoningContentOnAssistant && m.Reasoning {
		return nil, false
	}
	has := false
	for k := range msg.Content {
		switch c := &msg.Content[k]; c.Type {
		case llm.TypeThinking:
			return nil, false
		case llm.TypeToolCall:
			has = true
		case llm.TypeText:
			has = has || strings.TrimSpace(c.Text) != ""
		}
	}
	if !has {
		return nil, true
	}
	return (*assistantMsg)(msg), false
}

// directTool is the Direct for a tool result without images.
func directTool(compat Compat, msg *llm.Message) llm.Direct {
	if compat.RequiresToolResultName && msg.ToolName != "" {
		return (*toolNamedMsg)(msg)
	}
	return (*toolMsg)(msg)
}

// convertDirect appends to out the Directs of msgs[i] (of the run of tool results it starts),
// and returns how many messages it took (a left-out assistant message is taken with none
// appended); ok is false when convertRange converts msgs[i] itself.
func convertDirect(m *llm.Model, compat Compat, msgs []*llm.Message, i int, slab *llm.DirectSlab, out *[]llm.Obj) (n int, ok bool) {
	msg := msgs[i]
	switch msg.Role {
	case llm.RoleUser:
		if d := directUser(msg); d != nil {
			*out = append(*out, slab.Obj(d))
			return 1, true
		}
	case llm.RoleAssistant:
		d, skip := directAssistant(m, compat, msg)
		if skip {
			return 1, true
		}
		if d != nil {
			*out = append(*out, slab.Obj(d))
			return 1, true
		}
	case llm.RoleToolResult:
		// The run as convertRange takes it: any image in it, and the run is converted
		// (its images follow it in a user message).
		j := i
		for ; j < len(msgs) && msgs[j].Role == llm.RoleToolResult; j++ {
			for k := range msgs[j].Content {
				if msgs[j].Content[k].Type == llm.TypeImage {
					return 0, false
				}
			}
		}
		for k := i; k < j; k++ {
			*out = append(*out, slab.Obj(directTool(compat, msgs[k])))
		}
		return j - i, true
	}
	return 0, false
}
