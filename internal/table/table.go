// Package table draws the command line's listings in boxes (a leaf: it imports nothing of
// pigo).
package table

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// Table draws the listings of `pigo tools`, `commands`, `agents` and `session list` in
// boxes: light box-drawing borders, the header centred, cells left-aligned with one space of
// padding, a cell with line breaks drawn over several lines. It draws what
// olekukonko/tablewriter drew with its defaults (TestTableMatchesTablewriter keeps the two
// equal); that library cost every pigo process 0.4 ms of package initialisation (a
// preallocated width cache, terminal and locale detection), for four listings.
type Table struct {
	head []string
	rows [][]string
}

// Header sets the column titles, drawn as given (the callers write them in capitals).
func (t *Table) Header(cells ...string) { t.head = cells }

// Append adds a row; each value is printed with fmt.Sprint.
func (t *Table) Append(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = fmt.Sprint(c)
	}
	t.rows = append(t.rows, row)
}

// cellLines is what a cell shows: trimmed of surrounding white space, a tab as 4 spaces,
// split at line breaks.
func cellLines(s string) []string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\t", "    ")
	return strings.Split(s, "\n")
}

// width is the number of terminal cells s takes, escape sequences not counted.
func width(s string) int {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = stripEscapes(s)
	}
	return runewidth.StringWidth(s)
}

// stripEscapes removes the CSI (ESC [ ... final byte) and OSC (ESC ] ... BEL or ESC \)
// sequences of s.
func stripEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '[':
			j := i + 2
			for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
				j++
			}
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
				i = j
				continue
			}
		case ']':
			rest := s[i+2:]
			bel, st := strings.IndexByte(rest, 0x07), strings.Index(rest, "\x1b\\")
			end := -1
			switch {
			case bel >= 0 && (st < 0 || bel < st):
				end = i + 2 + bel
			case st >= 0:
				end = i + 2 + st + 1
			}
			if end >= 0 {
				i = end
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Render writes the table to w.
func (t *Table) Render(w io.Writer) error {
	n := len(t.head)
	for _, r := range t.rows {
		n = max(n, len(r))
	}
	if n == 0 {
		return nil
	}
	split := func(r []string) [][]string {
		cells := make([][]string, n)
		for i := range cells {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			cells[i] = cellLines(c)
		}
		return cells
	}
	var head [][]string
	if len(t.head) > 0 {
		head = split(t.head)
	}
	body := make([][][]string, len(t.rows))
	for i, r := range t.rows {
		body[i] = split(r)
	}
	widths := make([]int, n)
	for _, r := range append([][][]string{head}, body...) {
		for i, c := range r {
			for _, l := range c {
				widths[i] = max(widths[i], width(l))
			}
		}
	}
	var b strings.Builder
	rule := func(left, mid, right string) {
		b.WriteString(left)
		for i, wd := range widths {
			if i > 0 {
				b.WriteString(mid)
			}
			b.WriteString(strings.Repeat("─", wd+2))
		}
		b.WriteString(right + "\n")
	}
	row := func(cells [][]string, centre bool) {
		lines := 0
		for _, c := range cells {
			lines = max(lines, len(c))
		}
		for l := 0; l < lines; l++ {
			b.WriteString("│")
			for i, c := range cells {
				s := ""
				if l < len(c) {
					s = c[l]
				}
				gap := max(widths[i]-width(s), 0)
				left := 0
				if centre {
					left = gap / 2
				}
				b.WriteString(" " + strings.Repeat(" ", left) + s + strings.Repeat(" ", gap-left) + " │")
			}
			b.WriteString("\n")
		}
	}
	rule("┌", "┬", "┐")
	if head != nil {
		row(head, true)
		if len(body) > 0 {
			rule("├", "┼", "┤")
		}
	}
	for _, r := range body {
		row(r, false)
	}
	rule("└", "┴", "┘")
	_, err := io.WriteString(w, b.String())
	return err
}

// Truncate cuts s to n runes, the last one an ellipsis (n <= 0: no limit).
func Truncate(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
