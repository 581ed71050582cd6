package tui

import (
	"io"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pigo-agent/pigo/internal/chat"
)

// embedded is the explorer inside the chat (/config).
type embedded struct{ m *Model }

func (e embedded) Init() tea.Cmd { return e.m.Init() }
func (e embedded) View() string  { return e.m.View() }
func (e embedded) Done() bool    { return e.m.Done() }
func (e embedded) Update(msg tea.Msg) (chat.Embedded, tea.Cmd) {
	_, cmd := e.m.Update(msg)
	return e, cmd
}

// Embed is the chat's /config: the explorer drawn on out at the chat's size, with the options
// opts gives when it opens (the session's own agent dir, project, trust, model and theme then).
func Embed(out io.Writer, opts func() Options) func(w, h int) chat.Embedded {
	return func(w, h int) chat.Embedded {
		o := opts()
		o.Embedded = true
		rd := lipgloss.NewRenderer(out)
		if !o.Color {
			rd.SetColorProfile(termenv.Ascii)
		}
		m := New(o, rd)
		m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		return embedded{m}
	}
}
