package chat

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/keymap"
	"github.com/pigo-agent/pigo/internal/termui"
)

// search is fullscreen's transcript search (Ctrl+Shift+F): a query typed in a bar above the
// footer; Enter and Ctrl+G go to the next match (older first, from the bottom), Shift+Enter
// and Ctrl+Shift+G to the previous one, Escape closes.
type search struct {
	query []rune
	// hits are transcript line numbers that match, and cur the selected one (-1 none).
	hits []int
	cur  int
}

func (m *Model) searchKey(k keymap.Key) (tea.Cmd, bool) {
	s := m.search
	km := m.km
	switch {
	case km.Is(k.Name, keymap.SearchClose):
		m.search = nil
	case km.Is(k.Name, keymap.SearchNext):
		m.searchMove(1)
	case km.Is(k.Name, keymap.SearchPrevious):
		m.searchMove(-1)
	case k.Name == "backspace":
		if len(s.query) > 0 {
			s.query = s.query[:len(s.query)-1]
		}
		m.searchFind()
	case k.Text != "":
		s.query = append(s.query, []rune(strings.ReplaceAll(k.Text, "\n", " "))...)
		m.searchFind()
	case k.Name == "ctrl+c":
		m.search = nil
	default:
		return nil, false
	}
	return nil, true
}

// searchFind finds the query's lines and selects the newest match.
func (m *Model) searchFind() {
	s := m.search
	s.hits, s.cur = nil, -1
	q := strings.ToLower(string(s.query))
	if q == "" {
		return
	}
	for i, l := range m.transcript(m.width) {
		if strings.Contains(strings.ToLower(ansiStrip(l)), q) {
			s.hits = append(s.hits, i)
		}
	}
	if len(s.hits) > 0 {
		s.cur = len(s.hits) - 1
		m.searchShow()
	}
}

// searchMove selects the next older (1) or newer (-1) match.
func (m *Model) searchMove(d int) {
	s := m.search
	if len(s.hits) == 0 {
		return
	}
	s.cur = ((s.cur-d)%len(s.hits) + len(s.hits)) % len(s.hits)
	m.searchShow()
}

// searchShow scrolls the selected match into the middle of the window.
func (m *Model) searchShow() {
	s := m.search
	n := len(m.transcript(m.width))
	h := max(1, m.height-len(m.bottom(m.width)))
	line := s.hits[s.cur]
	m.scroll = max(0, n-line-h/2-1)
}

// line is the search bar.
func (s *search) line(m *Model, w int) string {
	count := "no matches"
	if len(s.hits) > 0 {
		count = fmt.Sprintf("%d/%d", len(s.hits)-s.cur, len(s.hits))
	}
	if len(s.query) == 0 {
		count = "type to search"
	}
	bar := " Search: " + string(s.query) + m.st.Reverse(" ") + "  " + m.st.Fg("dim", count)
	return termui.Truncate(bar, w, "…")
}

// highlight marks the window's matching lines (start is the first line's number).
func (s *search) highlight(m *Model, lines []string, start int) []string {
	q := strings.ToLower(string(s.query))
	if q == "" {
		return lines
	}
	for i, l := range lines {
		plain := ansiStrip(l)
		at := strings.Index(strings.ToLower(plain), q)
		if at < 0 {
			continue
		}
		role := "searchMatchText"
		attr := termui.Attr(0)
		if s.cur >= 0 && s.hits[s.cur] == start+i {
			attr = termui.Reverse
		}
		end := at + len(q)
		if end > len(plain) {
			end = len(plain)
		}
		lines[i] = plain[:at] + m.st.Style(role, "searchMatchBg", attr|termui.Bold, plain[at:end]) + plain[end:]
	}
	return lines
}
