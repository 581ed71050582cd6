package chat

import (
	"fmt"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/termui"
)

// setting is one line of /settings: a settings.json key, its choices and its value now.
type setting struct {
	key, label string
	choices    []string
	value      func(m *Model) string
	// apply changes the running chat (nil: the change applies from the next start).
	apply func(m *Model, v string)
}

var settingsTable = []setting{
	{key: "tuiMode", label: "Terminal UI mode", choices: []string{"fullscreen", "regular"},
		value: func(m *Model) string { return map[bool]string{true: "fullscreen", false: "regular"}[m.fullscreen] }},
	{key: "hideThinkingBlock", label: "Hide thinking blocks", choices: []string{"false", "true"},
		value: func(m *Model) string { return strconv.FormatBool(!m.showThinking) },
		apply: func(m *Model, v string) { m.showThinking = v != "true"; m.touchAll() }},
	{key: "quietStartup", label: "Quiet startup", choices: []string{"false", "header", "true"},
		value: func(m *Model) string {
			if m.o.UI.Quiet == "" {
				return "false"
			}
			return m.o.UI.Quiet
		}},
	{key: "autocompleteMaxVisible", label: "Autocomplete entries", choices: []string{"5", "8", "10", "15", "20", "3"},
		value: func(m *Model) string { return strconv.Itoa(m.maxVisible()) },
		apply: func(m *Model, v string) { m.o.UI.MaxVisible, _ = strconv.Atoi(v) }},
	{key: "editorPaddingX", label: "Editor padding", choices: []string{"0", "1", "2", "3"},
		value: func(m *Model) string { return strconv.Itoa(m.o.UI.EditorPadding) },
		apply: func(m *Model, v string) { m.o.UI.EditorPadding, _ = strconv.Atoi(v) }},
	{key: "outputPad", label: "Transcript padding", choices: []string{"1", "0"},
		value: func(m *Model) string { return strconv.Itoa(m.pad()) },
		apply: func(m *Model, v string) { n, _ := strconv.Atoi(v); m.o.UI.OutputPad = &n; m.touchAll() }},
	{key: "doubleEscapeAction", label: "Double Escape", choices: []string{"tree", "fork", "none"},
		value: func(m *Model) string {
			if m.o.UI.DoubleEscape == "" {
				return "tree"
			}
			return m.o.UI.DoubleEscape
		},
		apply: func(m *Model, v string) { m.o.UI.DoubleEscape = v }},
	{key: "fullscreenExitOutput", label: "Fullscreen exit output", choices: []string{"transcript", "resume-hint"},
		value: func(m *Model) string {
			if m.o.UI.ExitOutput == "" {
				return "transcript"
			}
			return m.o.UI.ExitOutput
		},
		apply: func(m *Model, v string) { m.o.UI.ExitOutput = v }},
}

// settingsDialog opens /settings: each setting with its value; Enter moves to the next
// choice and saves it to settings.json through the command line's Set hook. false when the
// session cannot save settings (the command is then not the chat's).
func (m *Model) settingsDialog() bool {
	if _, ok := m.o.Session.Lookup("set-setting"); !ok {
		return false
	}
	items := make([]termui.Item, len(settingsTable))
	for i, s := range settingsTable {
		items[i] = termui.Item{Label: s.label, Description: s.value(m), Value: s.key}
	}
	l := termui.NewList(items)
	l.Max = len(items)
	d := &dialog{kind: "pick", title: "Settings", list: l, hint: "↑↓ navigate · enter change · esc close", keep: true}
	d.start = func(d *dialog, _ int) tea.Cmd {
		i := d.list.SelectedIndex()
		if i < 0 {
			return nil
		}
		s := settingsTable[i]
		cur := s.value(m)
		next := s.choices[0]
		for j, c := range s.choices {
			if c == cur {
				next = s.choices[(j+1)%len(s.choices)]
			}
		}
		if s.apply != nil {
			s.apply(m, next)
		}
		if s.key == "tuiMode" {
			m.flash(fmt.Sprintf("tuiMode %s takes effect when pigo starts again", next))
		}
		items[i].Description = next
		d.list.SetItems(items)
		d.list.Select(i)
		return m.sessionCommand("set-setting", s.key+"="+next)
	}
	m.dialog = d
	return true
}
