package app

import (
	"fmt"
	"io"

	"github.com/pigo-agent/pigo/internal/keypress"
)

// AskMissingCwdTerminal is the question for a --session file whose stored working directory no
// longer exists (pi 1.6.0's start-up selector: its title and its three choices), asked on a
// terminal (in, out) before a UI owns it; it is what a front end puts in
// SessionSpec.MissingCwd. Continue keeps the file and works in cwd (the next open asks again);
// fork continues a copy here with a new id, the original kept; cancel (q, Esc, Ctrl+C, Ctrl+D,
// end of input) is "".
func AskMissingCwdTerminal(in io.Reader, out io.Writer, stored, cwd string) string {
	// The chat's selector (missingCwdQuestion), its choices keyed c, f and q.
	q := missingCwdQuestion(stored, cwd, "")
	fmt.Fprintln(out, q.Title)
	for i, key := range "cfq" {
		fmt.Fprintf(out, "  [%c] %s\n", key, q.Items[i].Label)
	}
	fmt.Fprint(out, "> ")
	defer keypress.Raw(in)()
	for {
		b, ok := keypress.Read(in)
		if !ok {
			fmt.Fprint(out, "\n")
			return ""
		}
		switch b {
		case 'c', 'C':
			fmt.Fprint(out, "continue\n")
			return MissingCwdContinue
		case 'f', 'F':
			fmt.Fprint(out, "fork\n")
			return MissingCwdFork
		case 'q', 'Q', 3, 4, 27:
			fmt.Fprint(out, "cancel\n")
			return ""
		}
	}
}
