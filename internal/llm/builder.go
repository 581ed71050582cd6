package llm

import (
	"context"
	"time"
	"unsafe"
)

// Builder accumulates one assistant message as a provider streams it and emits pi's events,
// each with a snapshot of the message so far. Texts grow in buffers whose strings share memory
// with later growth without changing earlier snapshots (bytes past a string's end are only
// ever written once), so a long stream costs O(n), not O(n²).
type Builder struct {
	msg  Message
	bufs [][]byte
	emit func(Event)

	// Bounds (see bounds.go): bytes of text, thinking and arguments so far, tool calls so far,
	// the limits, and the tool-call ids given out.
	size, calls int
	lim         Limits
	ids         map[string]int
	// status is the HTTP status of a failed response (0 when none).
	status int
	// live: events carry the live message, not a copy ([Builder.Live]).
	live bool
}

// NewBuilder starts the message pi's providers start with: role assistant, the model's api,
// provider and id, zero usage, the current time.
func NewBuilder(m *Model, emit func(Event)) *Builder {
	if emit == nil {
		emit = func(Event) {}
	}
	return &Builder{
		msg: Message{Role: RoleAssistant, Content: []Content{}, API: m.API, Provider: m.Provider, Model: m.ID,
			Usage: &Usage{}, Timestamp: time.Now().UnixMilli()},
		emit: emit,
	}
}

// Live makes the events carry the live message instead of a copy when o asks for it
// ([Options.LivePartials]): a copy per event costs O(blocks), so a reply with thousands of
// tool calls took quadratic time (10,000 calls: over a minute). It returns b.
func (b *Builder) Live(o *Options) *Builder {
	b.live = o != nil && o.LivePartials
	return b
}

// Msg is the live message (providers set usage, ids and stop reasons on it directly).
func (b *Builder) Msg() *Message { return &b.msg }

// Len is the number of content blocks.
func (b *Builder) Len() int { return len(b.msg.Content) }

// Block returns content block i (a copy).
func (b *Builder) Block(i int) Content { return b.msg.Content[i] }

// SetBlock replaces content block i.
func (b *Builder) SetBlock(i int, c Content) {
	b.size += blockSize(&c) - blockSize(&b.msg.Content[i])
	b.msg.Content[i] = c
}

// Snapshot copies the message so far: a new content slice and usage, sharing strings.
func (b *Builder) Snapshot() *Message {
	cp := b.msg
	cp.Content = append([]Content(nil), b.msg.Content...)
	if b.msg.Usage != nil {
		u := *b.msg.Usage
		cp.Usage = &u
	}
	return &cp
}

// Emit sends an event carrying a snapshot as its partial (the live message in live mode).
func (b *Builder) Emit(ev Event) {
	if b.live {
		ev.Partial = &b.msg
	} else {
		ev.Partial = b.Snapshot()
	}
	b.emit(ev)
}

// At emits an event of type typ for content index i.
func (b *Builder) At(typ string, i int) {
	b.Emit(Event{Type: typ, ContentIndex: &i})
}

// Start emits "start".
func (b *Builder) Start() { b.Emit(Event{Type: EventStart}) }

// Add appends a block and returns its index (no event).
func (b *Builder) Add(c Content) int {
	b.size += blockSize(&c)
	if c.Type == TypeToolCall {
		b.calls++
	}
	b.msg.Content = append(b.msg.Content, c)
	b.bufs = append(b.bufs, nil)
	return len(b.msg.Content) - 1
}

// Append adds delta to the text or thinking of block i and returns the copy of delta the text
// now ends with (for an event: delta may be borrowed from a reader's buffer, the copy is not).
func (b *Builder) Append(i int, delta string) string {
	buf := b.bufs[i]
	c := &b.msg.Content[i]
	s := &c.Text
	if c.Type == TypeThinking {
		s = &c.Thinking
	}
	// The buffer, once there, is the text (as the strings.Builder it replaces was).
	if buf == nil {
		buf = append(make([]byte, 0, b.grownCap(len(*s), 0, len(*s)+len(delta))), *s...)
	} else if need := len(buf) + len(delta); need > cap(buf) {
		buf = append(make([]byte, 0, b.grownCap(len(buf), cap(buf), need)), buf...)
	}
	buf = append(buf, delta...)
	b.bufs[i] = buf
	b.size += len(delta)
	*s = unsafe.String(unsafe.SliceData(buf), len(buf))
	return (*s)[len(buf)-len(delta):]
}

// grownCap is the capacity of the next buffer of a text of n bytes held in a buffer of old
// bytes that must take need. It doubles (append's growth falls to a quarter at these sizes: a
// 32 MiB text was copied about twenty times into fresh pages, 200 ms of a 100 MB reply's
// CPU), but not past the room the reply's byte bound leaves the text, plus a margin for the
// delta that crosses it: a doubled buffer would double the memory of the largest text kept.
//
// Past jumpAt it goes to that room at once: a text that long is rare, and doubling on to the
// bound copied it five more times into as many fresh buffers (1+2+…+16 MiB of page faults and
// copies before the last 32 MiB), the half of a 100 MB reply's own cost. Only the pages the
// text writes are touched; [Builder.finish] moves a text that ends in less than half of its
// buffer into one of its size, so a kept message holds no more than doubling would have.
func (b *Builder) grownCap(n, old, need int) int {
	c := max(2*old, 2*n, need, 512)
	if room := n + max(b.limits().MaxBytes-b.size, 0); c >= room || (c >= jumpAt && room <= maxJump) {
		c = max(room+64<<10, need)
	}
	return c
}

// jumpAt is the buffer size from which a text's next buffer is the room its reply's bound
// leaves (when that is at most maxJump: a bound set far higher keeps doubling).
const (
	jumpAt  = 1 << 20
	maxJump = 64 << 20
)

// SetText replaces the text or thinking of block i.
func (b *Builder) SetText(i int, s string) {
	b.bufs[i] = nil
	c := &b.msg.Content[i]
	b.size -= blockSize(c)
	defer func() { b.size += blockSize(c) }()
	if c.Type == TypeThinking {
		c.Thinking = s
	} else {
		c.Text = s
	}
}

// EndText emits text_end or thinking_end for block i with its content.
func (b *Builder) EndText(i int) {
	c := b.msg.Content[i]
	s := c.Text
	typ := EventTextEnd
	if c.Type == TypeThinking {
		s, typ = c.Thinking, EventThinkingEnd
	}
	b.Emit(Event{Type: typ, ContentIndex: &i, Content: &s})
}

// EndToolCall emits toolcall_end for block i.
func (b *Builder) EndToolCall(i int) {
	b.uniqueCallID(i)
	tc := b.msg.Content[i]
	b.Emit(Event{Type: EventToolCallEnd, ContentIndex: &i, ToolCall: &tc})
}

// Delta emits a *_delta event for block i.
func (b *Builder) Delta(typ string, i int, delta string) {
	b.Emit(Event{Type: typ, ContentIndex: &i, Delta: delta})
}

// Done ends the stream with "done" and returns the final message.
func (b *Builder) Done() *Message {
	b.finish()
	final := b.Snapshot()
	b.emit(Event{Type: EventDone, Reason: final.StopReason, Message: final})
	return final
}

// Fail ends the stream with "error": stopReason aborted when ctx was cancelled, else error.
func (b *Builder) Fail(ctx context.Context, msg string) *Message {
	b.msg.StopReason = StopError
	if ctx.Err() != nil {
		b.msg.StopReason = StopAborted
	}
	b.msg.ErrorMessage = msg
	b.msg.status = int32(b.status)
	b.finish()
	final := b.Snapshot()
	b.emit(Event{Type: EventError, Reason: final.StopReason, Error: final})
	return final
}

// finish makes the final message safe to keep: distinct tool calls have distinct ids and the
// usage numbers are sane.
func (b *Builder) finish() {
	for i := range b.msg.Content {
		b.uniqueCallID(i)
		b.fit(i)
	}
	SanitizeUsage(b.msg.Usage)
}

// fit moves the text of block i into a buffer of its size when it uses less than half of the
// one it grew in (a buffer that jumped to the bound's room, [Builder.grownCap]): the message is
// kept, and a 2 MiB text must not hold 32 MiB. Strings handed out before keep the old buffer.
func (b *Builder) fit(i int) {
	buf := b.bufs[i]
	if cap(buf) < jumpAt || cap(buf)-len(buf) <= len(buf) {
		return
	}
	c := &b.msg.Content[i]
	s := string(buf)
	if c.Type == TypeThinking {
		c.Thinking = s
	} else {
		c.Text = s
	}
	b.bufs[i] = nil
}
