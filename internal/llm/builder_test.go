package llm

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"unsafe"
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
// memory little more than its size in all (append's quarter growth at these sizes made it
// five, doubling two: D25.24 jumps to the bound's room past 1 MiB), and its last buffer is the
// bound plus a margin, not twice the bound.
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
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(n)*125/100 {
		t.Errorf("allocated %d bytes for a text of %d (%.2f×)", alloc, n, float64(alloc)/float64(n))
	}
	if c := cap(b.bufs[i]); c > bound+64<<10+len(d) {
		t.Errorf("last buffer %d bytes for a text of %d", c, n)
	}
}

// TestBuilderFit: a text that ends in less than half of the buffer it jumped to (past 1 MiB,
// the room of the reply's bound) is moved into one of its size when the message is done, so
// the kept message does not hold the bound's room; the strings handed out before keep theirs.
// A text at the bound stays where it is (no copy of 32 MiB).
func TestBuilderFit(t *testing.T) {
	m := &Model{API: "openai-completions", Provider: "p", ID: "m"}
	d := strings.Repeat("y", 4096)
	stream := func(n int, fail bool) (*Message, string) {
		b := NewBuilder(m, nil)
		i := b.Add(Content{Type: TypeText})
		th := b.Add(Content{Type: TypeThinking})
		var early string
		for k := 0; k < n; k++ {
			b.Append(i, d)
			b.Append(th, d)
			if k == 100 {
				early = b.Block(i).Text
			}
		}
		if fail {
			return b.Fail(context.Background(), "x"), early
		}
		return b.Done(), early
	}
	for _, fail := range []bool{false, true} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		msg, early := stream(400, fail) // 1.6 MiB each, in buffers of the bound's room
		runtime.GC()
		runtime.ReadMemStats(&after)
		if msg.Content[0].Text != strings.Repeat("y", 400*4096) || msg.Content[1].Thinking != msg.Content[0].Text || early != strings.Repeat("y", 101*4096) {
			t.Fatal("texts changed")
		}
		if live := int64(after.HeapAlloc) - int64(before.HeapAlloc); live > 2*400*4096+1<<20 {
			t.Errorf("fail %v: %d bytes live for two texts of %d", fail, live, 400*4096)
		}
		runtime.KeepAlive(early)
	}
	b := NewBuilder(m, nil)
	b.SetLimits(&Limits{MaxBytes: 4 << 20})
	i := b.Add(Content{Type: TypeText})
	for b.Exceeded() == nil {
		b.Append(i, d)
	}
	buf := b.bufs[i]
	msg := b.Fail(context.Background(), "over")
	if unsafe.StringData(msg.Content[0].Text) != unsafe.SliceData(buf) {
		t.Error("a text at the bound was copied")
	}
}

// TestBuilderAppendReturns: Append returns the delta as the text now holds it (its copy, not
// the caller's string, which may be borrowed from a reader's buffer).
func TestBuilderAppendReturns(t *testing.T) {
	b := NewBuilder(&Model{}, nil)
	i := b.Add(Content{Type: TypeText, Text: "pre"})
	src := []byte("delta")
	got := b.Append(i, string(src))
	src[0] = 'X'
	txt := b.Block(i).Text
	if got != "delta" || txt != "predelta" || unsafe.StringData(got) != unsafe.StringData(txt[3:]) {
		t.Errorf("got %q in %q", got, txt)
	}
}
