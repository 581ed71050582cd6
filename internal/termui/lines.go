package termui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/uniseg"
)

// Width is the terminal width of s (escapes ignored, grapheme clusters as one).
func Width(s string) int { return ansi.StringWidth(s) }

// Truncate cuts s to at most w columns, ending with tail when it cut.
func Truncate(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, tail)
}

// Doubt is how many columns terminals may disagree with Width on s. Width counts a grapheme
// cluster (a ZWJ sequence, a skin-toned hand, a flag) as pi does, which modern terminals
// follow; tmux 3.3 instead adds up the code points that do not follow a zero-width joiner, so
// it draws a skin-toned hand in 4 columns and a text-default symbol with VS16 in 1. A line
// whose real width exceeds the screen would wrap and shift every line below it; Fit leaves
// room for the difference.
func Doubt(s string) int {
	extra := 0
	for i := 0; i < len(s); {
		if s[i] < 0x80 {
			i++
			continue
		}
		c, _, _, _ := uniseg.FirstGraphemeClusterInString(s[i:], -1)
		if len(c) == 0 {
			i++
			continue
		}
		i += len(c)
		if strings.ContainsRune(c, '\x1b') || len([]rune(c)) == 1 {
			continue
		}
		tmux, joined := 0, false
		for _, r := range c {
			switch {
			case r == 0x200d:
				joined = true
				continue
			case r == 0xfe0f || r == 0xfe0e:
				continue
			case joined:
				joined = false
				continue
			}
			tmux += runewidth.RuneWidth(r)
		}
		if n := tmux - ansi.StringWidth(c); n != 0 {
			extra += max(n, -n)
		}
	}
	return extra
}

// Fit makes a line exactly fill w columns on any terminal: cut to fit, padded with spaces; a
// line with clusters whose width terminals disagree on is cut and padded short by that doubt,
// so the renderer erases the rest of the row instead of overflowing it.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	limit := w
	if d := Doubt(s); d > 0 {
		limit = max(1, w-d)
	}
	n := Width(s)
	if n > limit {
		s = ansi.Truncate(s, limit, "")
		n = Width(s)
	}
	if n < limit {
		s += strings.Repeat(" ", limit-n)
	}
	return s
}

// Wrap word-wraps plain or styled text to w columns (long words are broken).
func Wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}
