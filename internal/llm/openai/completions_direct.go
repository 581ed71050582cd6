package openai

import (
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// A message of the common shapes is written into the body straight from the message
// (llm.Direct) instead of through an llm.Obj of its fields: a user prompt, a user message of
// text blocks, an assistant reply of texts and tool calls without thinking, a tool result
// without images. A direct writes exactly what appendObj writes for convertRange's object
// of such a message (TestDirectSameBody); anything else is converted as before.
// At 64 MB of session the objects, their fields and boxed values were ~17 MB of fresh pages
// and a pass over every message and block, for bytes written once.

// directOff turns the direct messages off (tests compare bodies written both ways).
var directOff bool

// direct is one message written straight from it: what kind of object it is, and what
// its conversion found out while it read the message (its size hint, an assistant's one
// non-blank text), so that the body is written without reading its blocks twice more. The
// directs are made in blocks of 256 (directSlab).
type direct struct {
	m *llm.Message
	// one is an assistant's one non-blank text block (nil when it has none or several:
	// texts says which).
	one   *llm.Content
	hint  int32
	kind  directKind
	texts uint8 // an assistant's non-blank texts, up to 2
}

type directKind uint8

const (
	// userString: a user message whose content was a string: {"role":"user","content":...}.
	userString directKind = iota
	// userTexts: a user message of text blocks only (at least one).
	userTexts
	// assistantReply: an assistant message without thinking blocks, with a non-blank text
	// or a tool call, for a compat that neither sends "" as an empty content nor needs
	// reasoning_content.
	assistantReply
	// toolResult: a tool result without images; toolResultNamed one that also gives its
	// tool's name.
	toolResult
	toolResultNamed
)

// directSlab hands out directs and their objects (convertRange's, one a goroutine).
type directSlab struct {
	d    []direct
	objs llm.DirectSlab
}

func (s *directSlab) obj(d direct) llm.Obj {
	if len(s.d) == cap(s.d) {
		s.d = make([]direct, 0, 256)
	}
	s.d = append(s.d, d)
	return s.objs.Obj(&s.d[len(s.d)-1])
}

func (d *direct) DirectHint() int { return int(d.hint) }

func (d *direct) SameDirect(o llm.Direct) bool {
	e, ok := o.(*direct)
	return ok && e.m == d.m && e.kind == d.kind
}

func (d *direct) AppendDirect(b []byte) []byte {
	m := d.m
	switch d.kind {
	case userString:
		b = append(b, `{"role":"user","content":`...)
		b = appendJoined(b, m.Content, "", false)
	case userTexts:
		b = append(b, `{"role":"user","content":[`...)
		for k := range m.Content {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"text","text":`...)
			b = m.Content[k].AppendText(b)
			b = append(b, '}')
		}
		b = append(b, ']')
	case assistantReply:
		b = d.appendAssistant(b)
	case toolResult, toolResultNamed:
		b = append(b, `{"role":"tool","content":`...)
		b = appendJoined(b, m.Content, "\n", true)
		b = append(b, `,"tool_call_id":`...)
		b = llm.AppendJSString(b, m.ToolCallID)
		if d.kind == toolResultNamed {
			b = append(b, `,"name":`...)
			b = llm.AppendJSString(b, m.ToolName)
		}
	}
	return append(b, '}')
}

// appendAssistant appends an assistant reply's object without its closing brace.
func (d *direct) appendAssistant(b []byte) []byte {
	m := d.m
	b = append(b, `{"role":"assistant","content":`...)
	switch {
	case d.texts == 0:
		b = append(b, "null"...)
	case d.one != nil:
		b = d.one.AppendText(b)
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
		b = c.AppendArguments(b)
		b = append(b, "}}"...)
	}
	if calls > 0 {
		b = append(b, ']')
	}
	return b
}

// appendJoined appends AppendJSON(b, joinTexts(content, sep)), or "(no tool output)" for a
// tool result whose text is "" (convertRange's text for one without images).
func appendJoined(b []byte, content []llm.Content, sep string, tool bool) []byte {
	one, n := textBlocks(content)
	switch {
	case n == 0 || n == 1 && one.Text == "":
		if tool {
			return append(b, `"(no tool output)"`...)
		}
		return append(b, `""`...)
	case n == 1:
		return one.AppendText(b)
	}
	return llm.AppendJSString(b, joinBlocks(content, n, sep))
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

// hintOf clamps a size hint to the direct's field (a message of 2 GiB is not sent anyway).
func hintOf(n int) int32 { return int32(min(n, 1<<31-1)) }

// directUser is the direct for a user message; false when convertRange converts it.
func directUser(msg *llm.Message) (direct, bool) {
	if msg.StringContent {
		return direct{m: msg, kind: userString, hint: hintOf(28 + joinedHint(msg.Content))}, true
	}
	if len(msg.Content) == 0 {
		return direct{}, false
	}
	n := 30
	for k := range msg.Content {
		c := &msg.Content[k]
		if c.Type != llm.TypeText {
			return direct{}, false
		}
		n += 24 + c.TextHint()
	}
	return direct{m: msg, kind: userTexts, hint: hintOf(n)}, true
}

// directAssistant is the direct for an assistant message; false when convertRange converts
// it (it has thinking, or the compat asks for what the direct does not write). skip: the
// message has no non-blank text and no tool call, so convertRange leaves it out.
func directAssistant(m *llm.Model, compat Compat, msg *llm.Message) (d direct, ok, skip bool) {
	if compat.RequiresAssistantAfterToolResult || compat.RequiresReasoningContentOnAssistant && m.Reasoning {
		return direct{}, false, false
	}
	d = direct{m: msg, kind: assistantReply}
	n, calls := 36, 0
	for k := range msg.Content {
		switch c := &msg.Content[k]; c.Type {
		case llm.TypeThinking:
			return direct{}, false, false
		case llm.TypeToolCall:
			calls++
			a := max(len(c.Arguments), 2)
			n += 64 + len(c.ID) + len(c.Name) + a + a/8 + 2
		case llm.TypeText:
			n += c.TextHint()
			if strings.TrimSpace(c.Text) != "" {
				if d.texts++; d.texts == 1 {
					d.one = c
				} else {
					d.texts, d.one = 2, nil
				}
			}
		}
	}
	if d.texts == 0 && calls == 0 {
		return direct{}, false, true
	}
	d.hint = hintOf(n)
	return d, true, false
}

// directTool is the direct for a tool result without images.
func directTool(compat Compat, msg *llm.Message) direct {
	d := direct{m: msg, kind: toolResult}
	n := 48 + joinedHint(msg.Content) + len(msg.ToolCallID)
	if compat.RequiresToolResultName && msg.ToolName != "" {
		d.kind = toolResultNamed
		n += 10 + len(msg.ToolName)
	}
	d.hint = hintOf(n)
	return d
}

// convertDirect appends to out the directs of msgs[i] (of the run of tool results it starts),
// and returns how many messages it took (a left-out assistant message is taken with none
// appended); ok is false when convertRange converts msgs[i] itself.
func convertDirect(m *llm.Model, compat Compat, msgs []*llm.Message, i int, slab *directSlab, out *[]llm.Obj) (n int, ok bool) {
	msg := msgs[i]
	switch msg.Role {
	case llm.RoleUser:
		if d, ok := directUser(msg); ok {
			*out = append(*out, slab.obj(d))
			return 1, true
		}
	case llm.RoleAssistant:
		d, ok, skip := directAssistant(m, compat, msg)
		if skip {
			return 1, true
		}
		if ok {
			*out = append(*out, slab.obj(d))
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
			*out = append(*out, slab.obj(directTool(compat, msgs[k])))
		}
		return j - i, true
	}
	return 0, false
}
