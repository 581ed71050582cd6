package cli

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/appconfig"
	"github.com/pigo-agent/pigo/internal/chat"
	"github.com/pigo-agent/pigo/internal/theme"
	"github.com/pigo-agent/pigo/internal/tui"
)

// explorer is the configuration explorer embedded in the chat (/config) with this session's
// own options: the same agent dir, project, trust and model as the session.
type explorer struct{ m *tui.Model }

func (e explorer) Init() tea.Cmd { return e.m.Init() }
func (e explorer) View() string  { return e.m.View() }
func (e explorer) Done() bool    { return e.m.Done() }
func (e explorer) Update(msg tea.Msg) (chat.Embedded, tea.Cmd) {
	_, cmd := e.m.Update(msg)
	return e, cmd
}

func (c *CLI) configEmbed(a *args, ac *appconfig.Config, s *app.Session, color bool, th func() *theme.Theme) func(w, h int) chat.Embedded {
	return func(w, h int) chat.Embedded {
		load := c.loadOptions(a)
		trusted := ac.Files().Trusted
		load.Approve = &trusted
		load.AskTrust = nil
		o := tui.Options{Load: load, Color: color, Embedded: true, Theme: th(),
			Resolve: config.ResolveOptions{Model: s.State().Model, Tools: a.csv("--tools"),
				ExcludeTools: a.csv("--exclude-tools"), NoBuiltinTools: a.has("--no-builtin-tools"), NoTools: a.has("--no-tools")}}
		rd := lipgloss.NewRenderer(c.Stdout)
		if !color {
			rd.SetColorProfile(termenv.Ascii)
		}
		m := tui.New(o, rd)
		m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		return explorer{m}
	}
}
