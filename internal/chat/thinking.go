package chat

import (
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/termui"
)

// thinkingLevels are the levels a thinking model offers, in cycling order.
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// cycleThinking is Shift+Tab: the next thinking level.
func (m *Model) cycleThinking() tea.Cmd {
	if !m.state.Reasoning {
		m.showStatus("Current model does not support thinking")
		return nil
	}
	if m.running {
		m.flash("Wait for the agent to finish before changing the thinking level")
		return nil
	}
	i := slices.Index(thinkingLevels, m.state.Thinking)
	next := thinkingLevels[(i+1)%len(thinkingLevels)]
	return m.setThinking(next)
}

func (m *Model) setThinking(level string) tea.Cmd {
	if _, ok := m.o.Session.Lookup("thinking"); !ok {
		m.fail("Changing the thinking level is not available in this session")
		return nil
	}
	return m.sessionCommand("thinking", level)
}

// thinkingCommand is /thinking [level]: with a level, set it; without, choose it.
func (m *Model) thinkingCommand(arg string) tea.Cmd {
	if !m.state.Reasoning {
		m.info("Current model does not support thinking")
		return nil
	}
	if arg != "" {
		if !slices.Contains(thinkingLevels, arg) {
			m.fail("Invalid thinking level \"" + arg + "\". Use one of: off, minimal, low, medium, high, xhigh")
			return nil
		}
		return m.setThinking(arg)
	}
	items := make([]termui.Item, len(thinkingLevels))
	cur := 0
	for i, l := range thinkingLevels {
		items[i] = termui.Item{Label: l, Value: l, Description: thinkingDescription[l]}
		if l == m.state.Thinking {
			cur = i
		}
	}
	l := termui.NewList(items)
	l.Max = len(items)
	l.Select(cur)
	d := &dialog{kind: "pick", title: "Select thinking level", list: l}
	d.start = func(d *dialog, _ int) tea.Cmd {
		it, ok := d.list.Selected()
		if !ok {
			return nil
		}
		return m.setThinking(it.Value)
	}
	m.dialog = d
	return nil
}

var thinkingDescription = map[string]string{
	"off": "No reasoning", "minimal": "Very brief reasoning (~1k tokens)", "low": "Light reasoning (~2k tokens)",
	"medium": "Moderate reasoning (~8k tokens)", "high": "Deep reasoning (~16k tokens)",
	"xhigh": "Maximum reasoning (~32k tokens)",
}

// cycleModel is Ctrl+P / Shift+Ctrl+P: the next or previous model of the scoped models
// (settings enabledModels), else of all configured models.
func (m *Model) cycleModel(dir int) tea.Cmd {
	if _, ok := m.o.Session.Lookup("cycle-model"); !ok {
		m.showStatus("Only one model available")
		return nil
	}
	if m.running {
		m.flash("Wait for the agent to finish before switching models")
		return nil
	}
	arg := "next"
	if dir < 0 {
		arg = "previous"
	}
	return m.sessionCommand("cycle-model", arg)
}
