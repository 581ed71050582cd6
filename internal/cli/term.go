package cli

import (
	"os"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// fitWidth returns the width left for the last column of a table whose other columns hold the
// given cells, when stdout is a terminal (0: no limit). Each of n columns costs 3 cells of
// borders and padding, plus 1 for the closing border.
func (c *CLI) fitWidth(others ...[]string) int {
	f, ok := c.Stdout.(*os.File)
	if !ok || !c.Terminal {
		return 0
	}
	w := termWidth(f)
	if w == 0 {
		return 0
	}
	used := 3*(len(others)+1) + 1
	for _, col := range others {
		m := 0
		for _, s := range col {
			m = max(m, utf8.RuneCountInString(s))
		}
		used += m
	}
	return max(w-used, 20)
}

// termWidth returns the width of the terminal on f, or 0 when f is not a terminal.
func termWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
