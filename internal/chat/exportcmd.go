package chat

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/export"
)

// exportedMsg reports a finished /export.
type exportedMsg struct {
	path string
	err  error
}

// export is /export [path]: JSONL when the path ends in .jsonl, else an HTML page.
func (m *Model) export(arg string) tea.Cmd {
	s := m.sess()
	if s == nil {
		m.fail("Export failed: no session")
		return nil
	}
	path := strings.Trim(arg, `"'`)
	dir := m.o.Cwd
	colors := export.DefaultColors
	return func() tea.Msg {
		var p string
		var err error
		if strings.HasSuffix(path, ".jsonl") {
			p, err = export.JSONL(s, path, dir, time.Now())
		} else {
			p, err = export.HTML(s, path, dir, colors)
		}
		return exportedMsg{p, err}
	}
}
