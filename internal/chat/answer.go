package chat

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/keymap"
)

// dialogKey gives a key to the open dialog; an answered dialog closes and the next queued
// one opens. Saving "allow forever" rules is the session's approvals' work (its notice says
// what was saved).
func (m *Model) dialogKey(d *dialog, k keymap.Key) tea.Cmd {
	if !d.key(k, m.km) {
		out := d.out
		d.out = nil
		return out
	}
	m.dialog = nil
	m.next()
	return d.cmd
}
