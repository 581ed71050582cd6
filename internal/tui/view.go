package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// View renders the screen: the tab bar, a context line, the tab's body, the status line and
// the help line. Every line fits the window width.
func (m *Model) View() string {
	lines := []string{m.tabBar(), m.contextLine()}
	var body []string
	switch {
	case m.showHelp:
		body = m.keysView()
	case m.tab == tabRegistry:
		body = m.registryView()
	case m.tab == tabDiagnostics:
		body = m.diagView()
	case m.tab == tabCommands:
		body = m.commandsView()
	case m.tab == tabSandbox:
		body = m.sandboxView()
	}
	lines = append(lines, padLines(body, m.bodyHeight())...)
	status := m.status
	if m.loading && status == "" {
		status = "loading..."
	}
	st := m.st.status
	if m.failed {
		st = m.st.statusErr
	}
	lines = append(lines, st.Render(trunc(status, m.width)), m.st.help.Render(trunc(m.helpLine(), m.width)))
	for i, l := range lines {
		if lipgloss.Width(l) > m.width {
			lines[i] = trunc(stripANSI(l), m.width)
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) tabBar() string {
	var b strings.Builder
	for i, n := range tabNames {
		label := fmt.Sprintf(" %d %s ", i+1, n)
		if i == tabDiagnostics && m.snap != nil {
			e, w, _ := m.snap.diags.Count()
			label = fmt.Sprintf(" %d %s %dE %dW ", i+1, n, e, w)
		}
		if i == m.tab {
			b.WriteString(m.st.tabActive.Render(label))
		} else {
			b.WriteString(m.st.tab.Render(label))
		}
	}
	return b.String()
}

func (m *Model) contextLine() string {
	if m.snap == nil || m.snap.cfg == nil {
		return ""
	}
	model := "none (settings name no default model; m picks one)"
	for _, d := range m.snap.notApplied {
		if d.Code == "not-applied" && filepath.Base(d.File()) == "settings.json" {
			// The file may well name a model: say that it could not be read instead.
			model = "none (settings.json is not applied, see diagnostics; m picks one)"
		}
	}
	if r := m.modelRef(); r != "" {
		model = r + " (" + m.snap.res.Model.Source + ")"
	}
	project := "trusted"
	if !m.snap.cfg.Trusted {
		project = "untrusted"
	} else if !m.snap.cfg.HasProject {
		project = "none"
	}
	return trunc(fmt.Sprintf("model: %s · writes: %s · project: %s", model, m.scope(), project), m.width)
}

func (m *Model) helpLine() string {
	k := m.keys
	var bs []binding
	switch {
	case m.tab == tabRegistry && m.picking:
		return "type provider/id · ↑/↓ choose · enter pick · esc cancel"
	case m.tab == tabRegistry && m.finding:
		return "type to filter tools · ↑/↓ move · enter keep · esc clear"
	case m.tab == tabCommands && m.cmdFocus:
		return "type a query · ↑/↓ move · enter done · esc clear · tab next tab"
	case m.tab == tabSandbox && m.sbFocus:
		return "type a command line · enter/esc done · tab next tab"
	case m.tab == tabRegistry:
		// d/e for every model, D/E for the session model: ? spells it out. The line fits 80.
		bs = []binding{{[]string{"d/D"}, "disable"}, {[]string{"e/E"}, "enable"}, k.Undo, k.Model, k.Find, k.Scope}
	case m.tab == tabDiagnostics:
		bs = []binding{k.Severity, k.File, k.Reload}
	case m.tab == tabCommands:
		bs = []binding{binding{[]string{"/"}, "type a query"}}
	case m.tab == tabSandbox:
		bs = []binding{binding{[]string{"i"}, "type a command line"}}
	}
	bs = append(bs, k.Help, k.Quit)
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.label()
	}
	return strings.Join(parts, " · ")
}

// padLines returns exactly n lines.
func padLines(ls []string, n int) []string {
	if n <= 0 {
		return nil
	}
	if len(ls) > n {
		return ls[:n]
	}
	return append(ls, make([]string, n-len(ls))...)
}

// padStyled pads a (possibly styled) line to w cells.
func padStyled(s string, w int) string {
	if pad := w - lipgloss.Width(s); pad > 0 {
		return s + strings.Repeat(" ", pad)
	}
	return s
}

// stripANSI removes SGR escapes (used only to cut an over-long styled line safely).
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// short writes a path under the home directory as ~/..., to leave room for line numbers.
func (m *Model) short(p string) string {
	if m.snap == nil || m.snap.cfg == nil || m.snap.cfg.Home == "" {
		return p
	}
	home := strings.TrimSuffix(m.snap.cfg.Home, "/") + "/"
	return strings.ReplaceAll(p, home, "~/")
}

// keysView is the list of every key (?), in groups; any key closes it.
func (m *Model) keysView() []string {
	k := m.keys
	groups := []struct {
		title string
		bs    []binding
	}{
		{"everywhere", []binding{k.Registry, k.Diagnostics, k.Commands, k.SandboxTab, k.NextTab, k.PrevTab, k.Reload, k.Help, k.Quit}},
		{"moving", []binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}},
		{"1 registry", []binding{k.DisableAll, k.DisableModel, k.EnableAll, k.EnableModel, k.Undo, k.Model, k.Find, k.Cancel, k.Scope}},
		{"2 diagnostics", []binding{k.Severity, k.File}},
		{"3 commands, 4 sandbox", []binding{k.Edit, k.Accept, k.Cancel}},
	}
	out := []string{"keys (any key closes this list):"}
	for _, g := range groups {
		out = append(out, "", g.title+":")
		line := " "
		for _, b := range g.bs {
			item := " " + strings.Join(b.keys, ",") + " " + b.help
			if len(line) > 1 && lipgloss.Width(line+" ·"+item) > m.width {
				out = append(out, line)
				line = " "
			}
			if len(line) > 1 {
				item = " ·" + item
			}
			line += item
		}
		out = append(out, trunc(line, m.width))
	}
	return out
}
