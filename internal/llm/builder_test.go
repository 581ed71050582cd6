package llm

import (
	"runtime"
	"strings"
	"testing"
)

// TestBuilderLive: with Options.LivePartials every event carries the live message (no copy
// per event: a reply with 10,000 tool calls streamed in quadratic time); without it each
// event keeps its own snapshot, unchanged by later blocks.
func TestBuilderLive(t *testing.T) {
	m := &Model{API: "openai-completions", Provider: "p", ID: "m"}
	for _, live := range []bool{true, false} {
		var evs []Event
		b := NewBuilder(m, func(e Event) { evs = append(evs, e) }).Live(&Options{LivePartials: live})
		b.Start()
		for i := 0; i < 3; i++ {
			j := b.Add(Content{Type: TypeToolCall, ID: "c", Name: "ls"})
			b.At(EventToolCallStart, j)
		}
		if live {
			if evs[1].Partial != evs[3].Partial || len(evs[1].Partial.Content) != 3 {
				t.Error("live: the events do not share the live message")
			}
		} else if evs[1].Partial == evs[3].Partial || len(evs[1].Partial.Content) != 1 || len(evs[3].Partial.Content) != 3 {
			t.Error("copies: a snapshot changed after its event")
		}
	}
	if b := NewBuilder(m, nil).Live(nil); b.live {
		t.Error("nil options turned live mode on")
	}
}

// TestBuilderAppend: a streamed text equals its deltas joined, each event's snapshot keeps
// the text it had, and a text replaced with SetText grows from its new value.
func TestBuilderAppend(t *testing.T) {
	m := &Model{API: "openai-completions", Provider: "p", ID: "m"}
	var snaps []string
	b := NewBuilder(m, func(e Event) {
		if e.Partial != nil && len(e.Partial.Content) > 0 {
			snaps = append(snaps, e.Partial.Content[0].Text)
		}
	})
	i := b.Add(Content{Type: TypeText, Text: "pre:"})
	th := b.Add(Content{Type: TypeThinking})
	var want strings.Builder
	want.WriteString("pre:")
	var lens []int
	for n := 0; n < 3000; n++ {
		d := strings.Repeat(string(rune('a'+n%26)), n%700)
		b.Append(i, d)
		b.Append(th, "t")
		want.WriteString(d)
		lens = append(lens, want.Len())
		b.Delta(EventTextDelta, i, d)
	}
	if b.Block(i).Text != want.String() || b.Block(th).Thinking != strings.Repeat("t", 3000) {
		t.Fatal("texts differ from their deltas joined")
	}
	for n, s := range snaps {
		if s != want.String()[:lens[n]] {
			t.Fatalf("snapshot %d changed", n)
		}
	}
	b.SetText(i, "new")
	b.Append(i, "er")
	if b.Block(i).Text != "newer" || b.size != len("newer")+3000 {
		t.Errorf("after SetText: %q, size %d", b.Block(i).Text, b.size)
	}
}

// TestBuilderAppendGrowth: a text streamed to the reply's byte bound is copied into fresh
// memory about twice its size in all (append's quarter growth at these sizes made it five),
// and its last buffer is the bound plus a margin, not twice the bound.
func TestBuilderAppendGrowth(t *testing.T) {
	const bound = 8 << 20
	m := &Model{API: "openai-completions", Provider: "p", ID: "m"}
	b := NewBuilder(m, nil)
	b.SetLimits(&Limits{MaxBytes: bound})
	i := b.Add(Content{Type: TypeText})
	d := strings.Repeat("x", 4096)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Exceeded() == nil {
		b.Append(i, d)
	}
	runtime.ReadMemStats(&after)
	n := len(b.Block(i).Text)
	if n != bound+len(d) {
		t.Fatalf("stopped at %d bytes", n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(n)*22/10 {
		t.Errorf("allocated %d bytes for a text of %d (%.2f×)", alloc, n, float64(alloc)/float64(n))
	}
	if c := cap(b.bufs[i]); c > bound+64<<10+len(d) {
		t.Errorf("last buffer %d bytes for a text of %d", c, n)
	}
}
