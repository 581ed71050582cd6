package chat

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/app"
)

// saveSetting writes one settings.json key through the command line's set-setting command,
// beside whatever the chat is doing: a key's own change (Ctrl+T's hideThinkingBlock, as pi
// saves it) must not wait for the agent or mark the chat busy, so the command is called
// directly rather than through Session.Run. A failure is a notice; without the command (no
// configuration to write) nothing is saved.
func (m *Model) saveSetting(key, value string) tea.Cmd {
	sess := m.o.Session
	if sess == nil {
		return nil
	}
	c, ok := sess.Lookup("set-setting")
	if !ok || c.Run == nil {
		return nil
	}
	as, _ := sess.(*app.Session) // set-setting does not use it; a test's fake session is not one
	return func() tea.Msg {
		if _, err := c.Run(context.Background(), as, key+"="+value); err != nil {
			return noticeMsg{app.Notice{Text: "could not save " + key + " to settings.json: " + err.Error(), Error: true}}
		}
		return nil
	}
}
