package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/pigo-agent/pigo/internal/termui"
)

// paint draws text in one style.
type paint func(string) string

// Render draws s.
func (p paint) Render(s string) string { return p(s) }

// styles are the program's looks, the chat's theme roles through package termui (one set of
// styles for both): without colour they use bold, faint and reverse video only, which
// NO_COLOR allows.
type styles struct {
	tab, tabActive, title, selected, faint, err, warn, info, ok, help, status, statusErr paint
	state                                                                                map[string]paint
	ui                                                                                   *termui.Styles
}

func newStyles(st *termui.Styles) styles {
	role := func(fg string, a termui.Attr) paint { return func(x string) string { return st.Style(fg, "", a, x) } }
	s := styles{
		ui:        st,
		tab:       role("", 0),
		tabActive: role("accent", termui.Bold|termui.Reverse),
		title:     role("accent", termui.Bold),
		selected:  role("", termui.Reverse),
		faint:     role("dim", termui.Faint),
		err:       role("error", termui.Bold),
		warn:      role("warning", 0),
		info:      role("mdLink", 0),
		ok:        role("success", 0),
		help:      role("dim", termui.Faint),
		status:    role("", 0),
		statusErr: role("error", termui.Bold),
		state:     map[string]paint{},
	}
	if st.Color() {
		s.state = map[string]paint{
			"active": role("success", 0), "codemode-only": role("accent", 0), "disabled": role("error", 0),
			"excluded": role("warning", 0), "unavailable": role("dim", termui.Faint), "overridden": role("dim", termui.Faint),
			"allow": role("success", 0), "deny": role("error", 0), "ask": role("warning", 0),
		}
	} else {
		s.err, s.statusErr = role("", termui.Bold), role("", termui.Bold)
		s.warn, s.info, s.ok = role("", termui.Bold), role("", 0), role("", 0)
		s.tabActive = role("", termui.Bold|termui.Reverse)
		s.title = role("", termui.Bold)
		s.faint, s.help = role("", termui.Faint), role("", termui.Faint)
	}
	return s
}

// word styles a state or decision word.
func (s styles) word(w string) paint {
	if st, ok := s.state[w]; ok {
		return st
	}
	return func(x string) string { return x }
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
