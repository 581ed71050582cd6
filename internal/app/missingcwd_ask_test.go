package app

import (
	"bytes"
	"strings"
	"testing"
)

func TestAskMissingCwdTerminalText(t *testing.T) {
	var out bytes.Buffer
	if got := AskMissingCwdTerminal(strings.NewReader("xf"), &out, "/old", "/new"); got != MissingCwdFork {
		t.Fatalf("answer %q", got)
	}
	want := "Session cwd does not exist: /old\n  [c] Continue in /new (asks again next time)\n  [f] Fork into /new (new session ID, original kept)\n  [q] Cancel\n> fork\n"
	if out.String() != want {
		t.Fatalf("got %q\nwant %q", out.String(), want)
	}
	out.Reset()
	if got := AskMissingCwdTerminal(strings.NewReader(""), &out, "/old", "/new"); got != "" {
		t.Fatalf("end of input answered %q", got)
	}
}
