package config

import (
	"fmt"
	"io"

	"github.com/pigo-agent/pigo/internal/keypress"
)

// AskTrustTerminal asks the person at a terminal whether to trust a project folder (D5, with
// defaultProjectTrust "ask"), as pi does at session start: the question on out, one key on in,
// no Enter; a key that is not an answer asks again; the end of input is the safe answer. It is
// what a command line puts in Options.AskTrust.
func AskTrustTerminal(in io.Reader, out io.Writer, dir string) (trusted, remember bool) {
	fmt.Fprintf(out, "Trust project folder?\n%s\n\nThis lets pigo apply the project's .pi/ settings, sandbox, LSP servers, agents and extensions.\n", dir)
	const keys = "[t] trust  [o] trust this time only  [n] do not trust  [d] do not trust, remember: "
	fmt.Fprint(out, keys)
	defer keypress.Raw(in)()
	for {
		b, ok := keypress.Read(in)
		if !ok {
			fmt.Fprintln(out)
			return false, false // end of input: the safe answer
		}
		switch b {
		case 't', 'T', 'y', 'Y':
			fmt.Fprintln(out, "trust")
			return true, true
		case 'o', 'O':
			fmt.Fprintln(out, "trust this time only")
			return true, false
		case 'd', 'D':
			fmt.Fprintln(out, "do not trust, remembered")
			return false, true
		case 'n', 'N', 3, 4, 27: // n, Ctrl-C, Ctrl-D, Esc
			fmt.Fprintln(out, "do not trust")
			return false, false
		case '\n', '\r', ' ':
			continue
		default:
			fmt.Fprintf(out, "\n%q is not an answer; press t, o, n or d. %s", rune(b), keys)
		}
	}
}
