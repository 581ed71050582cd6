package session

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

// TestTranscriptRoom: the first Transcript after a build has room after the messages (the
// agent's first appends do not copy the transcript); every later one, and every Context,
// is clipped, so an append by a second caller copies instead of writing into the room the
// first one may be using, and nothing appended reaches the cache.
func TestTranscriptRoom(t *testing.T) {
	s := InMemory(t.TempDir())
	for i := 0; i < 3; i++ {
		s.AppendMessage(user(fmt.Sprint("u", i)))
		s.AppendMessage(assistant(fmt.Sprint("a", i)))
	}
	c := s.Context()
	first := s.Transcript()
	if len(first) != len(c.Messages) || cap(first) <= len(first) {
		t.Fatalf("first transcript: len %d cap %d, want len %d and room after it", len(first), cap(first), len(c.Messages))
	}
	second := s.Transcript()
	if cap(second) != len(second) {
		t.Fatal("a second transcript of the same build has room: two callers would append into it")
	}
	a := append(first, llm.Message{Role: "x"})
	b := append(second, llm.Message{Role: "y"})
	if &a[0] != &first[0] {
		t.Fatal("the first append copied the transcript")
	}
	if a[len(a)-1].Role != "x" || b[len(b)-1].Role != "y" {
		t.Fatal("the two callers' appends overwrote each other")
	}
	if got := s.Context(); !reflect.DeepEqual(got, c) || cap(got.Messages) != len(got.Messages) {
		t.Fatal("an append to a transcript reached the cached context")
	}
	// A new build (the leaf moved) has room again, for one caller.
	s.AppendMessage(user("u3"))
	if next := s.Transcript(); cap(next) <= len(next) || len(next) != len(c.Messages)+1 {
		t.Fatalf("after an append: len %d cap %d", len(next), cap(next))
	}
}
