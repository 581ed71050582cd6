package chat

import (
	"encoding/base64"
	"errors"
	"io"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/llm"
)

// copiedMsg reports a copy to the clipboard.
type copiedMsg struct{ err error }

// copyLast copies the last answer's text (/copy, Ctrl+X): to the system clipboard when a
// clipboard program is there, and always through OSC 52, which terminals (and tmux with
// set-clipboard) pass to the clipboard of the machine the person sits at.
func (m *Model) copyLast() tea.Cmd {
	text := ""
	{
		msgs := m.o.Session.Messages()
		for i := len(msgs) - 1; i >= 0 && text == ""; i-- {
			if msgs[i].Role == llm.RoleAssistant {
				for _, c := range msgs[i].Content {
					if c.Type == llm.TypeText {
						text += c.Text
					}
				}
			}
		}
	}
	if text == "" {
		for i := len(m.items) - 1; i >= 0 && text == ""; i-- {
			if m.items[i].kind == kindAssistant {
				text = m.items[i].text
			}
		}
	}
	if text == "" {
		m.fail("No agent messages to copy yet.")
		return nil
	}
	out, clip := m.o.Out, m.o.Clipboard
	return func() tea.Msg {
		var errs []error
		if clip != nil {
			if err := clip(text); err != nil {
				errs = append(errs, err)
			}
		}
		if out != nil {
			if _, err := io.WriteString(out, osc52(text)); err != nil {
				errs = append(errs, err)
			}
		}
		if out == nil && clip == nil {
			errs = append(errs, errors.New("no clipboard available"))
		}
		if clip != nil && len(errs) == 1 && out != nil {
			// OSC 52 went out; the missing clipboard program is not an error.
			errs = nil
		}
		return copiedMsg{errors.Join(errs...)}
	}
}

// osc52 is the terminal sequence that sets the clipboard (wrapped for tmux's passthrough
// is not needed: tmux handles OSC 52 itself when set-clipboard is on).
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
}
