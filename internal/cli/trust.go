package cli

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// askTrust asks the person at the terminal whether to trust a project folder (D5, with
// defaultProjectTrust "ask"), as pi does at session start: one key, no Enter; a key that is
// not an answer asks again. The answer holds for the rest of the command line, so a command
// that loads the configuration twice asks once.
func (c *CLI) askTrust(dir string) (trusted, remember bool) {
	if a, ok := c.trustAnswers[dir]; ok {
		return a[0], a[1]
	}
	defer func() {
		if c.trustAnswers == nil {
			c.trustAnswers = map[string][2]bool{}
		}
		c.trustAnswers[dir] = [2]bool{trusted, remember}
	}()
	fmt.Fprintf(c.Stderr, "Trust project folder?\n%s\n\nThis lets pigo apply the project's .pi/ settings, sandbox, LSP servers, agents and extensions.\n", dir)
	const keys = "[t] trust  [o] trust this time only  [n] do not trust  [d] do not trust, remember: "
	fmt.Fprint(c.Stderr, keys)
	restore := rawMode(c.Stdin)
	defer restore()
	for {
		var buf [1]byte
		n, err := c.Stdin.Read(buf[:]) // one byte at a time: nothing after the answer is consumed
		b := buf[0]
		if n == 0 && err == nil {
			continue
		}
		if n == 0 {
			fmt.Fprintln(c.Stderr)
			return false, false // end of input: the safe answer
		}
		switch b {
		case 't', 'T', 'y', 'Y':
			fmt.Fprintln(c.Stderr, "trust")
			return true, true
		case 'o', 'O':
			fmt.Fprintln(c.Stderr, "trust this time only")
			return true, false
		case 'd', 'D':
			fmt.Fprintln(c.Stderr, "do not trust, remembered")
			return false, true
		case 'n', 'N', 3, 4, 27: // n, Ctrl-C, Ctrl-D, Esc
			fmt.Fprintln(c.Stderr, "do not trust")
			return false, false
		case '\n', '\r', ' ':
			continue
		default:
			fmt.Fprintf(c.Stderr, "\n%q is not an answer; press t, o, n or d. %s", rune(b), keys)
		}
	}
}

// rawMode switches a terminal on r to single-key input without echo and returns what restores
// it; for anything else (a pipe, a test) it does nothing.
func rawMode(r io.Reader) func() {
	f, ok := r.(*os.File)
	if !ok {
		return func() {}
	}
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return func() {}
	}
	raw := *old
	raw.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if unix.IoctlSetTermios(fd, unix.TCSETS, &raw) != nil {
		return func() {}
	}
	return func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) }
}
