package session

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

// TestAppendLLMsHalves: a long entry list's messages copied in two halves are those of the
// loop in order, with the same room after them, whatever mix of entries gives a message or
// none (model and thinking changes, labels, `!!` runs, empty summaries, entries without a
// message), at every length around the halves' threshold and with messages already in dst.
func TestAppendLLMsHalves(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	entry := func(i int) *Entry {
		switch rng.IntN(12) {
		case 0:
			return &Entry{Type: TypeModelChange, EntryData: &EntryData{Provider: "p", ModelID: "m"}}
		case 1:
			return &Entry{Type: TypeThinkingLevelChange, EntryData: &EntryData{ThinkingLevel: "high"}}
		case 2:
			return &Entry{Type: TypeMessage, Message: &Message{Role: RoleBashExecution, Bash: &BashExecution{Command: "ls", Output: fmt.Sprint(i), ExcludeFromContext: rng.IntN(2) == 0}}}
		case 3:
			return &Entry{Type: TypeMessage, Message: &Message{Role: "custom", Custom: &CustomMessage{CustomType: "x", Content: json.RawMessage(`"c` + fmt.Sprint(i) + `"`)}}}
		case 4:
			return &Entry{Type: TypeCustomMessage, EntryData: &EntryData{Content: json.RawMessage(`"d"`)}, Timestamp: "2026-01-01T00:00:00.000Z"}
		case 5:
			return &Entry{Type: TypeBranchSummary, EntryData: &EntryData{Summary: []string{"", "s"}[rng.IntN(2)]}}
		case 6:
			return &Entry{Type: TypeMessage}
		case 7:
			m := assistant(fmt.Sprint("a", i))
			m.Content = nil
			return &Entry{Type: TypeMessage, Message: LLMMessage(m)}
		default:
			return &Entry{Type: TypeMessage, Message: LLMMessage(user(fmt.Sprint("u", i)))}
		}
	}
	for _, n := range []int{0, 1, halvesAbove - 1, halvesAbove, halvesAbove + 1, 5000, 9999, 20000} {
		for _, pre := range []int{0, 3} {
			es := make([]*Entry, n)
			for i := range es {
				es[i] = entry(i)
			}
			mk := func() []llm.Message {
				d := make([]llm.Message, pre, pre+n+transcriptRoom)
				for i := range d {
					d[i] = user("before")
				}
				return d
			}
			want := mk()
			for _, e := range es {
				want = appendLLM(want, e)
			}
			got := appendLLMs(mk(), es)
			if !reflect.DeepEqual(got, want) || cap(got) != cap(want) {
				t.Fatalf("%d entries after %d: %d messages (cap %d), want %d (cap %d), or different ones", n, pre, len(got), cap(got), len(want), cap(want))
			}
			if tail := got[len(got):cap(got)]; !reflect.DeepEqual(tail, make([]llm.Message, len(tail))) {
				t.Fatalf("%d entries: the room after the messages holds messages", n)
			}
		}
	}
}
