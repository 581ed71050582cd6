// Package tui is `pigo tui`: an interactive terminal view of the configuration a session
// starts with. It shows the tool registry for a chosen model with each tool's explain trace,
// toggles tools through the comment-preserving editing API (with undo), lists every `check`
// diagnostic with its source snippet (re-checked when a loaded file changes), previews the
// slash-command autocomplete menu and decides command lines against the sandbox approval rules.
//
// The program is one root Bubble Tea model. Update never does I/O: loading, checking,
// resolving, editing, undoing and polling file times all run in tea.Cmds that report back
// with messages, so tests drive Update with messages and snapshot View.
package tui

import (
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/theme"
)

// Options configure the TUI.
type Options struct {
	// Load says where the configuration lives (the global flags of the command line).
	Load config.Options
	// Resolve holds pi's selection flags (--tools, --exclude-tools, ...); Resolve.Model is the
	// model the registry starts with ("" means the settings' default model).
	Resolve config.ResolveOptions
	// Color enables colours; without it only bold and reverse video mark things.
	Color bool
	// Poll is how often the loaded files' modification times are compared (0 means one
	// second; a negative value turns watching off, as tests do).
	Poll time.Duration
	// Embedded runs the explorer inside the chat (/config): quitting hands the screen back
	// (Done) instead of ending the program.
	Embedded bool
	// Theme colours it (nil: pi's system theme), as the chat is coloured.
	Theme *theme.Theme
}

// Result is what a finished session did, for the command line to report after the
// alternate screen is gone.
type Result struct {
	// Edits lists one line per write (edits and undos), in order.
	Edits []string
}

// Run runs the TUI on a terminal until the user quits.
func Run(o Options, in io.Reader, out io.Writer) (Result, error) {
	r := lipgloss.NewRenderer(out)
	if !o.Color {
		r.SetColorProfile(termenv.Ascii)
	}
	m := New(o, r)
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithInput(in), tea.WithOutput(out))
	final, err := p.Run()
	var res Result
	if fm, ok := final.(*Model); ok {
		res.Edits = append(res.Edits, fm.written...)
	}
	return res, err
}
