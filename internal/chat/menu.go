package chat

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/keymap"
	"github.com/pigo-agent/pigo/internal/termui"
)

// menu is the slash-command menu under the editor while a command name is typed: pi's
// list (name, then the argument hint and description), Up/Down to choose, Tab to complete,
// Enter to run, Escape to close.
type menu struct {
	list  *termui.List
	items []app.Completion
}

// updateMenu opens, refilters or closes the menu after the editor's text changed.
func (m *Model) updateMenu() {
	text := m.ed.Text()
	line, _ := m.ed.Cursor()
	if line != 0 || !strings.HasPrefix(strings.TrimLeft(text, " "), "/") || strings.ContainsAny(text, " \n") {
		m.menu = nil
		return
	}
	q := strings.TrimPrefix(strings.TrimLeft(text, " "), "/")
	var cs []app.Completion
	for _, c := range m.o.Session.Completions(q) {
		if m.runs(c) {
			cs = append(cs, c)
		}
	}
	// pigo's own commands, after pi's.
	for _, c := range engine.FuzzyFilter(ownCommands, q, func(c app.Completion) string { return c.Name }) {
		if m.runs(c) {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		m.menu = nil
		return
	}
	items := make([]termui.Item, len(cs))
	for i, c := range cs {
		d := c.Description
		if c.ArgumentHint != "" {
			d = c.ArgumentHint + " — " + d
		}
		label := c.Name
		if c.Tag != "" {
			label += " " + c.Tag
		}
		items[i] = termui.Item{Label: label, Description: d, Value: c.Name}
	}
	l := termui.NewList(items)
	l.Max = m.maxVisible()
	l.ColumnMin, l.ColumnMax = 12, 32
	// An exact name is selected first, else the first that starts with what was typed.
	for i, c := range cs {
		if c.Name == q {
			l.Select(i)
			break
		}
	}
	m.menu = &menu{list: l, items: cs}
}

func (m *Model) maxVisible() int {
	if n := m.o.UI.MaxVisible; n > 0 {
		return min(max(n, 3), 20)
	}
	return 5
}

// menuKey handles a key while the menu is open; ok false passes it on.
func (m *Model) menuKey(k keymap.Key) (tea.Cmd, bool) {
	km := m.km
	switch {
	case km.Is(k.Name, keymap.SelectCancel) && k.Name != "ctrl+c":
		m.menu = nil
		return nil, true
	case km.Is(k.Name, keymap.SelectUp):
		m.menu.list.Move(-1)
		return nil, true
	case km.Is(k.Name, keymap.SelectDown):
		m.menu.list.Move(1)
		return nil, true
	case km.Is(k.Name, keymap.SelectPageUp):
		m.menu.list.Page(-1)
		return nil, true
	case km.Is(k.Name, keymap.SelectPageDown):
		m.menu.list.Page(1)
		return nil, true
	case km.Is(k.Name, keymap.Tab):
		if it, ok := m.menu.list.Selected(); ok {
			m.ed.SetText("/" + it.Value + " ")
		}
		m.menu = nil
		return nil, true
	case km.Is(k.Name, keymap.SelectConfirm):
		it, ok := m.menu.list.Selected()
		m.menu = nil
		if !ok {
			return nil, false
		}
		m.ed.SetText("/" + it.Value)
		r := m.ed.Submit()
		m.ed.AddHistory(r.Text)
		return m.submit(r.Text, false), true
	}
	return nil, false
}

func (mn *menu) render(m *Model, w int) []string {
	return mn.list.Render(w, m.st)
}

// ownCommands are pigo's commands pi does not have.
var ownCommands = []app.Completion{
	{Name: "config", Description: "Open the configuration explorer (tools, diagnostics, commands, sandbox)"},
	{Name: "rewind", Description: "Go back to before a prompt, with the files the agent changed"},
}

// chatCommands are the commands the chat itself runs.
var chatCommands = map[string]bool{
	"quit": true, "exit": true, "config": true, "session": true, "rewind": true, "hotkeys": true,
	"copy": true, "thinking": true, "settings": true, "export": true, "share": true, "changelog": true,
}

// runs reports whether a listed command would run: the chat's own, or one the session runs
// (its commands, templates, skills, extension commands with an action).
func (m *Model) runs(c app.Completion) bool {
	if chatCommands[c.Name] {
		switch c.Name {
		case "config":
			return m.o.Config != nil
		case "rewind":
			return m.o.Rewind != nil
		}
		return true
	}
	return c.Runs
}
