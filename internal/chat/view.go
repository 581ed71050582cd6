package chat

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pigo-agent/pigo/internal/llm"
)

// styles are the chat's looks, in the configuration explorer's manner: without colour only
// bold, faint and reverse video.
type styles struct {
	title, selected, faint, err, user, tool, ok, add, del, footer lipgloss.Style
}

func newStyles(r *lipgloss.Renderer, color bool) styles {
	n := r.NewStyle
	s := styles{title: n().Bold(true), selected: n().Reverse(true), faint: n().Faint(true), err: n().Bold(true),
		user: n().Bold(true), tool: n().Bold(true), ok: n(), add: n(), del: n(), footer: n().Faint(true)}
	if color {
		s.title = n().Bold(true).Foreground(lipgloss.Color("6"))
		s.err = n().Bold(true).Foreground(lipgloss.Color("1"))
		s.user = n().Bold(true).Foreground(lipgloss.Color("4"))
		s.tool = n().Bold(true).Foreground(lipgloss.Color("5"))
		s.ok = n().Foreground(lipgloss.Color("2"))
		s.add = n().Foreground(lipgloss.Color("2"))
		s.del = n().Foreground(lipgloss.Color("1"))
	}
	return s
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// wrapLines word-wraps s to w columns (hard-wrapping long words).
func wrapLines(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	return strings.Split(ansi.Wrap(strings.ReplaceAll(s, "\t", "    "), w, ""), "\n")
}

// lines is the item's rendering at width w, cached until the item changes.
func (m *Model) lines(it *item, w int) []string {
	if !it.dirty && it.cacheW == w && it.cache != nil {
		return it.cache
	}
	it.cache, it.cacheW, it.dirty = m.render(it, w), w, false
	return it.cache
}

func (m *Model) render(it *item, w int) []string {
	st := m.st
	var out []string
	switch it.kind {
	case kindUser:
		for i, l := range wrapLines(it.text, w-2) {
			p := "  "
			if i == 0 {
				p = "› "
			}
			out = append(out, st.user.Render(p+l))
		}
	case kindInfo:
		for _, l := range wrapLines(it.text, w) {
			out = append(out, st.faint.Render(l))
		}
	case kindError:
		for _, l := range wrapLines(it.text, w) {
			out = append(out, st.err.Render(l))
		}
	case kindAssistant:
		if it.thinking != "" {
			if m.showThinking {
				for _, l := range wrapLines(it.thinking, w-2) {
					out = append(out, st.faint.Render("┊ "+l))
				}
			} else {
				n := strings.Count(strings.TrimRight(it.thinking, "\n"), "\n") + 1
				out = append(out, st.faint.Render(fmt.Sprintf("▸ Thinking (%d lines, Ctrl+T to show)", n)))
			}
		}
		if it.text != "" {
			if it.final {
				out = append(out, m.md.render(it.text, w)...)
			} else {
				out = append(out, wrapLines(it.text, w)...)
			}
		}
	case kindTool:
		mark := "●"
		switch {
		case it.done && it.isError:
			mark = "✗"
		case it.done:
			mark = "✓"
		}
		head := ansi.Truncate(mark+" "+it.tool+" "+firstLine(it.args), w, "…")
		out = append(out, st.tool.Render(head))
		body := it.result
		if !it.done {
			body = it.progress
		}
		if it.diff != "" && it.done && !it.isError {
			out = append(out, m.diffLines(it.diff, w)...)
		} else if body != "" {
			ls := strings.Split(strings.TrimRight(body, "\n"), "\n")
			const keep = 8
			if !it.done {
				// The tail of streaming output, which is what is happening now.
				if len(ls) > keep {
					ls = ls[len(ls)-keep:]
				}
			} else if len(ls) > keep {
				more := len(ls) - keep
				ls = append(ls[:keep:keep], fmt.Sprintf("… (%d more lines)", more))
			}
			for _, l := range ls {
				l = ansi.Truncate("  "+l, w, "…")
				if it.isError {
					l = st.err.Render(l)
				} else {
					l = st.faint.Render(l)
				}
				out = append(out, l)
			}
		}
		if !it.done && body == "" {
			out = append(out, st.faint.Render("  running…"))
		}
	}
	return out
}

func (m *Model) diffLines(diff string, w int) []string {
	var out []string
	ls := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	const keep = 20
	more := 0
	if len(ls) > keep {
		more = len(ls) - keep
		ls = ls[:keep]
	}
	for _, l := range ls {
		t := ansi.Truncate("  "+l, w, "…")
		switch {
		case strings.HasPrefix(l, "+"):
			t = m.st.add.Render(t)
		case strings.HasPrefix(l, "-"):
			t = m.st.del.Render(t)
		default:
			t = m.st.faint.Render(t)
		}
		out = append(out, t)
	}
	if more > 0 {
		out = append(out, m.st.faint.Render(fmt.Sprintf("  … (%d more lines)", more)))
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// View draws the transcript's tail, the todo widget, the queue, the dialog or the input, and
// the footer.
func (m *Model) View() string {
	if m.quitting {
		return ""
	}
	w := m.width
	var bottom []string
	if len(m.todo) > 0 {
		for _, l := range m.todo {
			bottom = append(bottom, ansi.Truncate(l, w, "…"))
		}
	}
	for _, s := range m.steering {
		bottom = append(bottom, m.st.faint.Render(ansi.Truncate("Steering: "+s, w, "…")))
	}
	for _, s := range m.followUp {
		bottom = append(bottom, m.st.faint.Render(ansi.Truncate("Follow-up: "+s, w, "…")))
	}
	if m.dialog != nil {
		bottom = append(bottom, strings.Repeat("─", w))
		bottom = append(bottom, m.dialog.lines(m.st, w)...)
	} else {
		if len(m.complete) > 0 {
			for i, c := range m.complete {
				if i >= 8 {
					break
				}
				l := "/" + c.Name
				if c.Tag != "" {
					l += " " + c.Tag
				}
				if c.Description != "" {
					l += "  " + c.Description
				}
				l = ansi.Truncate(l, w-2, "…")
				if i == m.compIdx%len(m.complete) {
					bottom = append(bottom, m.st.selected.Render("› "+l))
				} else {
					bottom = append(bottom, "  "+l)
				}
			}
		}
		bottom = append(bottom, strings.Repeat("─", w))
		in := "> " + string(m.input) + "█"
		bottom = append(bottom, wrapLines(in, w)...)
	}
	bottom = append(bottom, m.footer())
	avail := m.height - len(bottom)
	if avail < 0 {
		// A dialog taller than the screen keeps its options (the end) visible.
		bottom = bottom[len(bottom)-m.height:]
		avail = 0
	}
	lines := append(m.tail(avail, w), bottom...)
	// Every line is padded to the width: a shorter line must overwrite all of what the
	// previous frame had there (seen in tmux: the renderer's erase did not always follow).
	for i, l := range lines {
		if n := ansi.StringWidth(l); n < w {
			lines[i] = l + strings.Repeat(" ", w-n)
		}
	}
	return strings.Join(lines, "\n")
}

// tail is the last n lines of the transcript (above m.scroll), padded at the top, rendering
// only the items it shows.
func (m *Model) tail(n, w int) []string {
	if n == 0 {
		return nil
	}
	need := n + m.scroll
	var rev [][]string
	got := 0
	for i := len(m.items) - 1; i >= 0 && got < need; i-- {
		ls := m.lines(m.items[i], w)
		if len(ls) == 0 {
			continue
		}
		rev = append(rev, ls)
		got += len(ls) + 1
	}
	all := make([]string, 0, got)
	for i := len(rev) - 1; i >= 0; i-- {
		all = append(all, rev[i]...)
		all = append(all, "")
	}
	if len(all) > 0 {
		all = all[:len(all)-1]
	}
	if m.scroll > 0 {
		end := max(0, len(all)-m.scroll)
		all = all[:end]
	}
	if len(all) > n {
		all = all[len(all)-n:]
	}
	for len(all) < n {
		all = append([]string{""}, all...)
	}
	return all
}

// footer is the status line: work in progress, model and thinking level, context use, the
// last turn's usage and cost, and the session's.
func (m *Model) footer() string {
	var parts []string
	if m.running {
		parts = append(parts, spinner[m.frame%len(spinner)]+" Esc aborts")
	}
	mt := m.state.Model
	if m.state.Thinking != "" {
		mt += " · " + m.state.Thinking
	}
	parts = append(parts, mt)
	if m.state.ContextWindow > 0 {
		pct := float64(m.contextUsed) * 100 / float64(m.state.ContextWindow)
		parts = append(parts, fmt.Sprintf("ctx %s/%s %.0f%%", tokens(m.contextUsed), tokens(m.state.ContextWindow), pct))
	}
	parts = append(parts, "turn "+usage(m.turn), "total "+usage(m.total))
	return m.st.footer.Render(ansi.Truncate(strings.Join(parts, " · "), m.width, "…"))
}

// usage is "↑input ↓output $cost" (input counts cache reads and writes, as pi's footer).
func usage(u llm.Usage) string {
	return fmt.Sprintf("↑%s ↓%s $%.3f", tokens(u.Input+u.CacheRead+u.CacheWrite), tokens(u.Output), u.Cost.Total)
}
