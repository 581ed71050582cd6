package llm

import "testing"

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
