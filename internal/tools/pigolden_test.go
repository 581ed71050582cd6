package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// findCalls are checked only against the golden file: pi's find needs fd, which pi
// downloads, so the differential test leaves it out.
var findCalls = []diffCall{
	{"find", `{"pattern":"*.txt"}`},
	{"find", `{"pattern":"dir/**/*.txt"}`},
	{"find", `{"pattern":"*.md","path":"dir"}`},
	{"find", `{"pattern":"*.txt","limit":2}`},
	{"find", `{"pattern":"nomatch*"}`},
	{"find", `{"pattern":"*","path":"missing"}`},
}

// abbreviate keeps a long line reviewable: its head and tail, and the hash of the whole.
func abbreviate(s string) string {
	if len(s) <= 2048 {
		return s
	}
	return fmt.Sprintf("%s …[%d bytes, sha256 %s]… %s", s[:600], len(s), toolrun.Digest([]byte(s))[:16], s[len(s)-600:])
}

// TestBuiltinsGolden is every text pi's built-ins produce in pigo, from real calls on real
// files, against testdata/pi/builtins.golden (UPDATE_GOLDEN=1 rewrites it). The same calls
// are checked against the real pi by TestBuiltinsAgainstPi when pi is installed.
func TestBuiltinsGolden(t *testing.T) {
	ws := tempWS(t)
	fixture(t, ws)
	e := newEnvAt(t, ws)
	e.runner.Session.Model = &llm.Model{Provider: "local", ID: "m", Input: []string{"text"}}
	var b bytes.Buffer
	for i, c := range append(append([]diffCall{}, diffCalls...), findCalls...) {
		r := e.runner.Run(context.Background(), toolrun.Call{ID: fmt.Sprintf("call_%d", i), Name: c.name, Arguments: json.RawMessage(c.args)}, nil)
		content, _ := json.Marshal(r.Content)
		fmt.Fprintf(&b, "=== %s %s\nis_error: %v\ncontent: %s\ndetails: %s\n", c.name, c.args, r.IsError,
			abbreviate(normalise(string(content), ws)), abbreviate(normalise(canon(r.Details), ws)))
	}
	golden := filepath.Join("testdata", "pi", "builtins.golden")
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1)", err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		got := bytes.Split(b.Bytes(), []byte("\n"))
		w := bytes.Split(want, []byte("\n"))
		for i := 0; i < len(got) && i < len(w); i++ {
			if !bytes.Equal(got[i], w[i]) {
				t.Fatalf("line %d:\n got %s\nwant %s", i+1, got[i], w[i])
			}
		}
		t.Fatalf("golden differs in length: %d vs %d lines", len(got), len(w))
	}
}
