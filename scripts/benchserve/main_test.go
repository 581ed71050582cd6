package main

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestToolResultsSinceUser: only the tool results after the last user message count, however
// the body is split into reads.
func TestToolResultsSinceUser(t *testing.T) {
	body := `{"messages":[{"role":"user"},{"role":"tool"},{"role":"tool"},{"role":"user","content":"x"},{"role":"assistant"},{"role":"tool"},{"role":"tool"}],"x":1}`
	for name, r := range map[string]io.Reader{"whole": strings.NewReader(body), "byte by byte": iotest.OneByteReader(strings.NewReader(body)),
		"halves": iotest.HalfReader(strings.NewReader(body))} {
		if n := toolResults(r); n != 2 {
			t.Errorf("%s: %d tool results, want 2", name, n)
		}
	}
	if n := toolResults(strings.NewReader(`{"role":"tool"}`)); n != 1 {
		t.Errorf("a short body: %d", n)
	}
}
