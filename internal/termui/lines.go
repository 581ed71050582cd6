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

// Doubt is how many columns terminals may disagree with Width on s: a ZWJ sequence, a
// skin-tone modifier or a variation selector is one wide cluster for Width, but tmux 3.3 draws
// a skin-toned hand in 4 columns, a wcwidth terminal a ZWJ family in 6 and a heart with VS16
// in 1. A line whose real
// width exceeds the screen would wrap and shift every line below it; Fit leaves room.
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
		if strings.ContainsRune(c, '\x1b') {
			i += len(c)
			continue
		}
		sum := 0
		for _, r := range c {
			sum += runewidth.RuneWidth(r)
		}
		if n := sum - ansi.StringWidth(c); n != 0 {
			extra += max(n, -n)
		}
		i += len(c)
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
