package llm

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Limits bound what one streamed reply may make pigo hold: a model or a server that streams
// without end gets a clear error instead of pigo's memory. A real model's longest reply is a few
// megabytes (a file written through a tool call); the defaults are far above that.
type Limits struct {
	// MaxBytes bounds the text, thinking and tool-call arguments of one reply together.
	MaxBytes int
	// MaxToolCalls bounds the tool calls of one reply.
	MaxToolCalls int
}

// DefaultLimits are the bounds of a reply when Options.Limits is nil.
var DefaultLimits = Limits{MaxBytes: 32 << 20, MaxToolCalls: 16384}

// MaxUsageTokens is the largest token count a usage field keeps; a provider reporting more (or a
// negative count) is sanitized to this range, so totals and costs stay meaningful.
const MaxUsageTokens = 1_000_000_000

// ReplyTooLargeError is the failure of a reply over a bound.
type ReplyTooLargeError struct {
	What  string // "bytes" or "tool calls"
	Limit int
}

func (e *ReplyTooLargeError) Error() string {
	if e.What == "tool calls" {
		return fmt.Sprintf("the reply was stopped: it has more than %d tool calls (pigo's limit for one reply)", e.Limit)
	}
	return fmt.Sprintf("the reply was stopped: its text, thinking and tool-call arguments exceed %d MiB (pigo's limit for one reply)", e.Limit>>20)
}

func (b *Builder) limits() Limits {
	if b.lim.MaxBytes == 0 && b.lim.MaxToolCalls == 0 {
		return DefaultLimits
	}
	return b.lim
}

// SetLimits replaces the builder's bounds (zero fields keep the default).
func (b *Builder) SetLimits(l *Limits) {
	if l == nil {
		return
	}
	b.lim = *l
	if b.lim.MaxBytes <= 0 {
		b.lim.MaxBytes = DefaultLimits.MaxBytes
	}
	if b.lim.MaxToolCalls <= 0 {
		b.lim.MaxToolCalls = DefaultLimits.MaxToolCalls
	}
}

// Exceeded reports the reply going over a bound (nil while it is within them).
func (b *Builder) Exceeded() error {
	l := b.limits()
	if b.size > l.MaxBytes {
		return &ReplyTooLargeError{What: "bytes", Limit: l.MaxBytes}
	}
	if b.calls > l.MaxToolCalls {
		return &ReplyTooLargeError{What: "tool calls", Limit: l.MaxToolCalls}
	}
	return nil
}

func blockSize(c *Content) int {
	return len(c.Text) + len(c.Thinking) + len(c.Arguments)
}

// uniqueCallID gives a tool call whose id an earlier call of the same reply already has a new
// one, so two distinct calls never share the id their results are matched by. The id's part
// before a "|" (the Responses API's call id; the rest is the item id) is what must be unique;
// a duplicate gets "_2", "_3", … appended to that part.
func (b *Builder) uniqueCallID(i int) {
	c := &b.msg.Content[i]
	if c.Type != TypeToolCall {
		return
	}
	if b.ids == nil {
		b.ids = map[string]int{}
	}
	call, rest, hasRest := strings.Cut(c.ID, "|")
	if owner, seen := b.ids[call]; !seen || owner == i {
		b.ids[call] = i
		return
	}
	for n := 2; ; n++ {
		id := call + "_" + strconv.Itoa(n)
		if _, taken := b.ids[id]; !taken {
			b.ids[id] = i
			if hasRest {
				id += "|" + rest
			}
			c.ID = id
			return
		}
	}
}

// SanitizeUsage keeps every token count within [0, MaxUsageTokens] and every cost finite and not
// negative: a provider's absurd numbers never reach a session file or a total.
func SanitizeUsage(u *Usage) {
	if u == nil {
		return
	}
	for _, p := range []*int{&u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.TotalTokens, u.Reasoning, u.CacheWrite1h} {
		if p != nil {
			*p = min(max(*p, 0), MaxUsageTokens)
		}
	}
	for _, p := range []*float64{&u.Cost.Input, &u.Cost.Output, &u.Cost.CacheRead, &u.Cost.CacheWrite, &u.Cost.Total} {
		if math.IsNaN(*p) || math.IsInf(*p, 0) || *p < 0 {
			*p = 0
		}
	}
}
