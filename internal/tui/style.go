package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// styles are the program's looks. Without colour they use bold, faint and reverse video
// only, which NO_COLOR allows.
type styles struct {
	tab, tabActive, title, selected, faint, err, warn, info, ok, help, status, statusErr lipgloss.Style
	state                                                                                map[string]lipgloss.Style
}

func newStyles(r *lipgloss.Renderer, color bool) styles {
	n := r.NewStyle
	s := styles{
		tab:       n(),
		tabActive: n().Bold(true).Reverse(true),
		title:     n().Bold(true),
		selected:  n().Reverse(true),
		faint:     n().Faint(true),
		err:       n().Bold(true),
		warn:      n().Bold(true),
		info:      n(),
		ok:        n(),
		help:      n().Faint(true),
		status:    n(),
		statusErr: n().Bold(true),
		state:     map[string]lipgloss.Style{},
	}
	if color {
		s.tabActive = n().Bold(true).Foreground(lipgloss.Color("0")).Background(lipgloss.Color("6"))
		s.title = n().Bold(true).Foreground(lipgloss.Color("6"))
		s.err = n().Bold(true).Foreground(lipgloss.Color("1"))
		s.warn = n().Foreground(lipgloss.Color("3"))
		s.info = n().Foreground(lipgloss.Color("4"))
		s.ok = n().Foreground(lipgloss.Color("2"))
		s.statusErr = n().Bold(true).Foreground(lipgloss.Color("1"))
		s.state = map[string]lipgloss.Style{
			"active":        n().Foreground(lipgloss.Color("2")),
			"codemode-only": n().Foreground(lipgloss.Color("5")),
			"disabled":      n().Foreground(lipgloss.Color("1")),
			"excluded":      n().Foreground(lipgloss.Color("3")),
			"unavailable":   n().Faint(true),
			"overridden":    n().Faint(true),
			"allow":         n().Foreground(lipgloss.Color("2")),
			"deny":          n().Foreground(lipgloss.Color("1")),
			"ask":           n().Foreground(lipgloss.Color("3")),
		}
	}
	return s
}

// word styles a state or decision word.
func (s styles) word(w string) lipgloss.Style {
	if st, ok := s.state[w]; ok {
		return st
	}
	return s.info.UnsetForeground()
}

// fit cuts or pads s (plain text) to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	cut := trunc(s, w)
	if pad := w - lipgloss.Width(cut); pad > 0 {
		cut += strings.Repeat(" ", pad)
	}
	return cut
}

// trunc cuts plain text to at most w cells, ending with "…" when it cut.
func trunc(s string, w int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if lipgloss.Width(s) <= w {
		return s
	}
	if w <= 1 {
		return strings.Repeat("…", w)
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		rw := lipgloss.Width(string(r))
		if used+rw > w-1 {
			break
		}
		b.WriteRune(r)
		used += rw
	}
	return b.String() + "…"
}

// wrap breaks plain text into lines of at most w cells at spaces; indent prefixes the
// continuation lines.
func wrap(s string, w int, indent string) []string {
	if w < 10 {
		return []string{trunc(s, max(w, 1))}
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		cand := word
		if line != "" {
			cand = line + " " + word
		}
		if lipgloss.Width(cand) <= w || line == "" {
			line = cand
			continue
		}
		lines = append(lines, line)
		line = indent + word
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	for i := range lines {
		lines[i] = trunc(lines[i], w)
	}
	return lines
}

func lipglossWidth(s string) int { return lipgloss.Width(s) }
