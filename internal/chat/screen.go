package chat

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pigo-agent/pigo/internal/editor"
	"github.com/pigo-agent/pigo/internal/termui"
)

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func ansiStrip(s string) string { return ansi.Strip(s) }

// View draws the screen. Fullscreen: the transcript window, then the bottom area (queued
// messages, the todo widget, the editor or a dialog, the slash menu, the footer). Regular:
// the entries not yet printed into the scrollback, then the bottom area.
func (m *Model) View() string {
	if m.quitting {
		if m.fullscreen {
			return ""
		}
		// The last frame stays in the terminal as pi leaves it: what is not printed yet, the
		// editor and the footer.
		lines := append(m.unprinted(m.width), "")
		lines = append(lines, m.editorLines(m.width)...)
		lines = append(lines, m.footer(m.width)...)
		for i, l := range lines {
			lines[i] = termui.Fit(l, m.width)
		}
		// The program erases the row the cursor ends on when it stops: an empty last row
		// keeps the footer, and the resume line follows it directly, as pi prints it.
		return strings.Join(append(lines, ""), "\n")
	}
	if m.embed != nil {
		return m.embed.View()
	}
	w := m.width
	bottom := m.bottom(w)
	if len(bottom) > m.height {
		// A dialog taller than the screen keeps its end (the options) visible.
		bottom = bottom[len(bottom)-m.height:]
	}
	var top []string
	if m.fullscreen {
		top = m.window(w, m.height-len(bottom))
	} else {
		top = m.unprinted(w)
		if avail := m.height - len(bottom); len(top) > avail {
			top = top[len(top)-max(avail, 0):]
		}
	}
	lines := append(top, bottom...)
	for i, l := range lines {
		lines[i] = termui.Fit(l, w)
	}
	return strings.Join(lines, "\n")
}

// live is regular mode's unprinted entries.
func (m *Model) unprinted(w int) []string {
	var out []string
	for _, it := range m.items[m.printed:] {
		out = append(out, m.lines(it, w)...)
	}
	return out
}

// bottom is everything under the transcript.
func (m *Model) bottom(w int) []string {
	// One blank line separates the transcript from what is under it.
	out := []string{""}
	for _, s := range m.steering {
		out = append(out, m.st.Fg("dim", termui.Truncate(" Steering: "+s, w, "…")))
	}
	for _, s := range m.followUp {
		out = append(out, m.st.Fg("dim", termui.Truncate(" Follow-up: "+s, w, "…")))
	}
	if len(m.todo) > 0 {
		for _, l := range m.todo {
			out = append(out, termui.Truncate(" "+l, w, "…"))
		}
	}
	if m.dialog != nil {
		out = append(out, m.st.Fg("border", strings.Repeat("─", w)))
		out = append(out, m.dialog.lines(m, w)...)
		out = append(out, m.st.Fg("border", strings.Repeat("─", w)))
	} else {
		out = append(out, m.editorLines(w)...)
		if m.menu != nil {
			out = append(out, m.menu.render(m, w)...)
		}
	}
	if m.search != nil {
		out = append(out, m.search.line(m, w))
	}
	return append(out, m.footer(w)...)
}

// editorLines draws the editor with its border in the thinking level's colour and the
// working indicator in its top border while the agent works.
func (m *Model) editorLines(w int) []string {
	label := ""
	if m.running {
		label = m.st.Fg("accent", spinner[m.frame%len(spinner)]) + " " + m.st.Fg("muted", "Working")
		if m.hosting {
			label = m.st.Fg("accent", spinner[m.frame%len(spinner)]) + " " + m.st.Fg("muted", "Running command")
		}
	}
	border := "border"
	if m.state.Reasoning {
		border = thinkingRole(m.state.Thinking)
	}
	if m.bashMode() {
		border = "bashMode"
	}
	pad := min(max(m.o.UI.EditorPadding, 0), 3)
	inner := w - 2*pad
	lines := m.ed.Render(max(inner, 2), editor.Styles{
		Border: func(s string) string { return m.st.Fg(border, s) },
		Cursor: func(s string) string { return m.st.Reverse(s) },
	}, label)
	if pad > 0 {
		side := strings.Repeat(" ", pad)
		for i := 1; i < len(lines)-1; i++ {
			lines[i] = side + lines[i] + side
		}
		lines[0] = m.st.Fg(border, strings.Repeat("─", pad)) + lines[0] + m.st.Fg(border, strings.Repeat("─", pad))
		lines[len(lines)-1] = m.st.Fg(border, strings.Repeat("─", pad)) + lines[len(lines)-1] + m.st.Fg(border, strings.Repeat("─", pad))
	}
	if m.status != "" {
		lines = append(lines, m.st.Fg("dim", termui.Truncate(" "+m.status, w, "…")))
	}
	return lines
}

func (m *Model) bashMode() bool {
	t := strings.TrimLeft(m.ed.Text(), " ")
	return strings.HasPrefix(t, "!")
}

func thinkingRole(level string) string {
	switch level {
	case "minimal":
		return "thinkingMinimal"
	case "low":
		return "thinkingLow"
	case "medium":
		return "thinkingMedium"
	case "high":
		return "thinkingHigh"
	case "xhigh":
		return "thinkingXhigh"
	case "max":
		return "thinkingMax"
	}
	return "thinkingOff"
}

// window is fullscreen's view of the transcript: h lines ending m.scroll lines above the
// bottom, with a position mark when scrolled.
func (m *Model) window(w, h int) []string {
	if h <= 0 {
		return nil
	}
	// Only the items the window shows are joined (a long transcript costs a sum of cached
	// lengths, not a copy of every line).
	total := 0
	for _, it := range m.items {
		total += len(m.lines(it, w))
	}
	m.scroll = min(max(m.scroll, 0), max(0, total-h))
	end := total - m.scroll
	start := max(0, end-h)
	var rev [][]string
	n := total
	for i := len(m.items) - 1; i >= 0 && n > start; i-- {
		ls := m.lines(m.items[i], w)
		n -= len(ls)
		rev = append(rev, ls)
	}
	all := make([]string, 0, total-n)
	for i := len(rev) - 1; i >= 0; i-- {
		all = append(all, rev[i]...)
	}
	out := append([]string(nil), all[start-n:end-n]...)
	if m.search != nil {
		out = m.search.highlight(m, out, start)
	}
	for len(out) < h {
		out = append(out, "")
	}
	if m.scroll > 0 {
		mark := m.st.Fg("dim", " ↓ Jump to latest message · "+keyLabel(m.km.Text("tui.altScreen.bottom"))+" ")
		mw := termui.Width(ansiStrip(mark))
		last := out[len(out)-1]
		if termui.Width(ansiStrip(last)) >= w-mw {
			last = ""
		}
		out[len(out)-1] = termui.Fit(last, w-mw) + mark
	}
	return out
}

// keyLabel spells a key for reading ("ctrl+end" → "Ctrl+End").
func keyLabel(k string) string {
	if k == "" {
		return ""
	}
	k, _, _ = strings.Cut(k, "/")
	parts := strings.Split(k, "+")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "+")
}

// flush is regular mode's printing: every finished entry at the start of the unprinted ones
// goes into the terminal's scrollback, above the live part.
func (m *Model) flush() tea.Cmd {
	if m.fullscreen {
		return nil
	}
	lines := m.printable()
	if len(lines) == 0 {
		return nil
	}
	return tea.Println(strings.Join(lines, "\n"))
}

func (m *Model) printable() []string {
	var lines []string
	for m.printed < len(m.items) && m.items[m.printed].final {
		for _, l := range m.lines(m.items[m.printed], m.width) {
			lines = append(lines, termui.Fit(l, m.width))
		}
		m.printed++
	}
	return lines
}

// reprint clears the screen and the scrollback and prints every finished entry again (a new
// width, or an entry above the live part changed: Ctrl+O, Ctrl+T, a new session), as pi
// redraws a regular-mode transcript.
func (m *Model) reprint() tea.Cmd {
	if m.fullscreen {
		return nil
	}
	m.printed = 0
	return tea.Println("\x1b[2J\x1b[H\x1b[3J" + strings.Join(m.printable(), "\n"))
}
