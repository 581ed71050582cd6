package cli

import (
	"fmt"

	"github.com/pigo-agent/pigo/internal/app"
)

// askMissingCwd is the chat's question for a --session file whose stored working directory no
// longer exists (pi 1.6.0's start-up selector: its title and its three choices), asked on the
// terminal before the chat owns it. Continue keeps the file and works in the current folder
// (the next open asks again); fork continues a copy here with a new id, the original kept;
// cancel (q, Esc, Ctrl+C, Ctrl+D, end of input) ends pigo with exit 0, as pi does.
func (c *CLI) askMissingCwd(stored, cwd string) string {
	fmt.Fprintf(c.Stderr, "Session cwd does not exist: %s\n", stored)
	fmt.Fprintf(c.Stderr, "  [c] Continue in %s (asks again next time)\n", cwd)
	fmt.Fprintf(c.Stderr, "  [f] Fork into %s (new session ID, original kept)\n", cwd)
	fmt.Fprint(c.Stderr, "  [q] Cancel\n> ")
	restore := rawMode(c.Stdin)
	defer restore()
	for {
		var buf [1]byte
		n, err := c.Stdin.Read(buf[:]) // one byte at a time: nothing after the answer is consumed
		if n == 0 && err == nil {
			continue
		}
		if n == 0 {
			fmt.Fprint(c.Stderr, "\n")
			return ""
		}
		switch buf[0] {
		case 'c', 'C':
			fmt.Fprint(c.Stderr, "continue\n")
			return app.MissingCwdContinue
		case 'f', 'F':
			fmt.Fprint(c.Stderr, "fork\n")
			return app.MissingCwdFork
		case 'q', 'Q', 3, 4, 27:
			fmt.Fprint(c.Stderr, "cancel\n")
			return ""
		}
	}
}
