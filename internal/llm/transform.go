package llm

import (
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Texts pi puts in place of what a model cannot take.
const (
	nonVisionUserImage = "(image omitted: model does not support images)"
	nonVisionToolImage = "(tool image omitted: model does not support images)"
	noResultProvided   = "No result provided"
)

// HasInput reports whether the model takes the input kind ("text", "image").
func (m *Model) HasInput(kind string) bool {
	for _, k := range m.Input {
		if k == kind {
			return true
		}
	}
	return false
}

// TransformMessages is pi's transformMessages, the provider-independent preparation of a
// context: images become placeholders for a text-only model; thinking from another model
// becomes text (or is dropped when empty or redacted); tool-call ids from another model go
// through normalize (nil keeps them) and their results follow; errored and aborted assistant
// messages are skipped; a tool call left without a result gets "No result provided".
func TransformMessages(msgs []Message, m *Model, normalize func(id string, src *Message) string) []Message {
	ps := TransformMessagePtrs(msgs, m, normalize)
	out := make([]Message, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

// TransformMessagePtrs is TransformMessages giving pointers (TransformMessages is its
// messages copied out): a message that stays as it was
// is the input's own (msgs[i], never written), a changed or added one a new message (the
// changed ones copied into blocks of 64). A long context's transform then copies only what
// changes, not every message (at 64 MB ~60,000 messages, 18 MB of fresh pages, for a
// conversion that reads them once). TestTransformMessagePtrs keeps the two the same.
func TransformMessagePtrs(msgs []Message, m *Model, normalize func(id string, src *Message) string) []*Message {
	idMap := map[string]string{}
	out := make([]*Message, 0, len(msgs))
	vision := m.HasInput("image")
	var pending []Content
	have := map[string]bool{}
	flush := func() {
		for _, tc := range pending {
			if tc.Type == TypeToolCall && !have[tc.ID] {
				isErr := true
				out = append(out, &Message{Role: RoleToolResult, ToolCallID: tc.ID, ToolName: tc.Name,
					Content: []Content{TextBlock(noResultProvided)}, IsError: &isErr})
			}
		}
		pending = nil
		clear(have)
	}
	var slab []Message // the changed messages' copies
	own := func(msg, src *Message) *Message {
		if msg != src {
			return msg
		}
		if len(slab) == cap(slab) {
			slab = make([]Message, 0, 64)
		}
		slab = append(slab, *src)
		return &slab[len(slab)-1]
	}
	for i := range msgs {
		src := &msgs[i]
		msg := src
		if !vision && (msg.Role == RoleUser || msg.Role == RoleToolResult) {
			ph := nonVisionUserImage
			if msg.Role == RoleToolResult {
				ph = nonVisionToolImage
			}
			if c := replaceImages(msg.Content, ph); !sameSlice(c, msg.Content) {
				msg = own(msg, src)
				msg.Content = c
			}
		}
		switch msg.Role {
		case RoleToolResult:
			if n, ok := idMap[msg.ToolCallID]; ok && n != msg.ToolCallID {
				msg = own(msg, src)
				msg.ToolCallID = n
			}
			have[msg.ToolCallID] = true
		case RoleAssistant:
			if c := transformAssistant(src, msg.Provider == m.Provider && msg.API == m.API && msg.Model == m.ID, normalize, idMap); !sameSlice(c, msg.Content) {
				msg = own(msg, src)
				msg.Content = c
			}
			flush()
			if msg.StopReason == StopError || msg.StopReason == StopAborted {
				continue
			}
			if hasToolCall(msg.Content) {
				pending = msg.Content
			}
		case RoleUser:
			flush()
		}
		out = append(out, msg)
	}
	flush()
	return out
}

// sameSlice reports whether a and b are the same slice of blocks (a nil and an empty slice
// are not).
func sameSlice(a, b []Content) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}

func hasToolCall(content []Content) bool {
	for i := range content {
		if content[i].Type == TypeToolCall {
			return true
		}
	}
	return false
}

// transformAssistant is an assistant message's content as another model (same: the same
// one) is sent it. A message of the same model whose blocks all stay keeps its slice.
func transformAssistant(src *Message, same bool, normalize func(id string, src *Message) string, idMap map[string]string) []Content {
	var content []Content
	copied := false
	keep := func(i int, b Content, changed bool) {
		if !copied && !changed {
			return
		}
		if !copied {
			content = append(make([]Content, 0, len(src.Content)), src.Content[:i]...)
			copied = true
		}
		content = append(content, b)
	}
	drop := func(i int) {
		if !copied {
			content = append(make([]Content, 0, len(src.Content)), src.Content[:i]...)
			copied = true
		}
	}
	for i, b := range src.Content {
		switch b.Type {
		case TypeThinking:
			if b.Redacted {
				if same {
					keep(i, b, false)
				} else {
					drop(i)
				}
				continue
			}
			if same && b.ThinkingSignature != "" {
				keep(i, b, false)
				continue
			}
			if strings.TrimSpace(b.Thinking) == "" {
				drop(i)
				continue
			}
			if same {
				keep(i, b, false)
			} else {
				keep(i, textBlockOf(b.Thinking, &b), true)
			}
		case TypeText:
			// Another model's text is sent as a plain text block: one that is already no more
			// than that (pi's own replies) stays as it is, not copied.
			if same || plainText(&b) {
				keep(i, b, false)
			} else {
				keep(i, textBlockOf(b.Text, &b), true)
			}
		case TypeToolCall:
			// Another model's call loses its thought signature and may get another id; a call
			// that has neither to change stays as it is, not copied.
			changed := false
			if !same {
				if b.ThoughtSignature != "" {
					b.ThoughtSignature = ""
					changed = true
				}
				if normalize != nil {
					if n := normalize(b.ID, src); n != b.ID {
						idMap[b.ID] = n
						b.ID = n
						changed = true
					}
				}
			}
			keep(i, b, changed)
		default:
			keep(i, b, false)
		}
	}
	if !copied {
		content = src.Content
	}
	if len(content) == 0 {
		return nil // as a message whose every block was dropped
	}
	return content
}

// plainText reports whether the text block c is already textBlockOf(c.Text, c): it has no
// field but its type, its text and the record of its text's JSON form. A long session
// continued with another model (pi's large-session.jsonl continued by any model but Claude)
// then copies none of its replies: at 64 MB ~14 MB of blocks and messages a first body.
// TestPlainTextFields keeps it in step with Content's fields.
func plainText(c *Content) bool {
	return c.TextSignature == "" && c.Thinking == "" && c.ThinkingSignature == "" && !c.Redacted &&
		c.Data == "" && c.MimeType == "" && c.ID == "" && c.Name == "" && c.Arguments == nil && c.ThoughtSignature == ""
}

func replaceImages(content []Content, ph string) []Content {
	has := false
	for _, c := range content {
		if c.Type == TypeImage {
			has = true
		}
	}
	if !has {
		return content
	}
	var out []Content
	prevPH := false
	for _, c := range content {
		if c.Type == TypeImage {
			if !prevPH {
				out = append(out, TextBlock(ph))
			}
			prevPH = true
			continue
		}
		out = append(out, c)
		prevPH = c.Text == ph
	}
	return out
}

// JSLen is a string's length as JavaScript counts it (UTF-16 code units); pi's estimates and
// truncations count that way.
func JSLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		// Eight ASCII bytes at a time (a unit each): schemas, code and most text are ASCII.
		for i+8 <= len(s) && binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))&(0x80*ones8) == 0 {
			i += 8
			n += 8
		}
		if i == len(s) {
			break
		}
		if s[i] < utf8.RuneSelf {
			i++
			n++
			continue
		}
		// As range decodes it: an invalid byte is U+FFFD, one unit.
		r, size := utf8.DecodeRuneInString(s[i:])
		n += utf16.RuneLen(r)
		i += size
	}
	return n
}

// ShortHash is pi's shortHash (a 53-bit-ish cyrb hash over UTF-16 units, base 36), used to
// shorten long tool-call and item ids.
func ShortHash(s string) string {
	h1, h2 := uint32(0xdeadbeef), uint32(0x41c6ce57)
	for _, u := range utf16.Encode([]rune(s)) {
		ch := uint32(u)
		h1 = (h1 ^ ch) * 2654435761
		h2 = (h2 ^ ch) * 1597334677
	}
	h1 = ((h1 ^ (h1 >> 16)) * 2246822507) ^ ((h2 ^ (h2 >> 13)) * 3266489909)
	h2 = ((h2 ^ (h2 >> 16)) * 2246822507) ^ ((h1 ^ (h1 >> 13)) * 3266489909)
	return strconv.FormatUint(uint64(h2), 36) + strconv.FormatUint(uint64(h1), 36)
}

// SanitizeID replaces every byte outside [a-zA-Z0-9_-] with "_" (pi's
// id.replace(/[^a-zA-Z0-9_-]/g, "_"), which works on UTF-16 units: a non-ASCII character
// becomes one "_" per unit).
func SanitizeID(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r >= 0x10000:
			b.WriteString("__")
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
