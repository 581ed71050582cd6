package chat

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/keymap"
)

// dialogKey gives a key to the open dialog; an answered dialog closes and the next queued
// one opens. Saving "allow forever" rules is the Persist hook's work, run off the UI
// goroutine.
func (m *Model) dialogKey(d *dialog, k keymap.Key) tea.Cmd {
	if !d.key(k, m.km) {
		out := d.out
		d.out = nil
		return out
	}
	m.dialog = nil
	m.next()
	if d.cmd != nil {
		return d.cmd
	}
	if d.kind == "command" && m.o.Persist != nil {
		if p := d.persist(); len(p) > 0 && d.cur != indexOf(d.opts, optRunInSandbox) {
			persist := m.o.Persist
			return func() tea.Msg {
				if err := persist(p); err != nil {
					return hostDoneMsg{r: HostResult{Text: "approval rules: " + err.Error(), Error: true}}
				}
				return hostDoneMsg{r: HostResult{Text: "Saved allow rules: " + strings.Join(p, ", ")}}
			}
		}
	}
	return nil
}
