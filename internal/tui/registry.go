package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/termui"
)

// toolRows are indexes into the registry of the tools that pass the find filter, in
// registry order (best match first while finding).
func (m *Model) toolRows() []int {
	if m.snap == nil || m.snap.res == nil || m.snap.res.Tools == nil {
		return nil
	}
	idx := make([]int, len(m.snap.res.Tools.Tools))
	for i := range idx {
		idx[i] = i
	}
	q := strings.TrimSpace(m.find.String())
	if q == "" {
		return idx
	}
	tools := m.snap.res.Tools.Tools
	return engine.FuzzyFilter(idx, q, func(i int) string { return tools[i].Name })
}

// selectedTool returns the selected registry row, if any.
func (m *Model) selectedTool() (engine.ToolResult, int, bool) {
	rows := m.toolRows()
	if m.toolSel < 0 || m.toolSel >= len(rows) {
		return engine.ToolResult{}, -1, false
	}
	i := rows[m.toolSel]
	return m.snap.res.Tools.Tools[i], i, true
}

// modelRef is the resolved session model as provider/id ("" when there is none).
func (m *Model) modelRef() string {
	if m.snap == nil || m.snap.res == nil || m.snap.res.Model == nil {
		return ""
	}
	mi := m.snap.res.Model
	if mi.Provider == "" {
		return mi.ID
	}
	return mi.Provider + "/" + mi.ID
}

func (m *Model) registryKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case m.keys.Find.is(k):
		m.finding = true
		return m, nil
	case m.keys.Cancel.is(k):
		m.find.set("")
		m.toolSel, m.toolTop = 0, 0
		return m, nil
	case m.keys.Model.is(k):
		m.picking = true
		m.pick.set("")
		m.pickSel = 0
		return m, nil
	case m.keys.Scope.is(k):
		if m.scope() == config.Global {
			if m.snap == nil || m.snap.cfg == nil || !m.snap.cfg.ProjectTrusted() {
				m.setStatus("the project is not trusted: its .pi/settings.json does not apply, so edits stay global", true)
				return m, nil
			}
			m.writeScope = config.Project
		} else {
			m.writeScope = config.Global
		}
		m.setStatus("edits now go to "+m.scopePath(), false)
		return m, nil
	case m.keys.DisableAll.is(k), m.keys.DisableModel.is(k), m.keys.EnableAll.is(k), m.keys.EnableModel.is(k):
		return m, m.toggle(k)
	}
	m.toolSel, m.toolTop = m.move(k, m.toolSel, m.toolTop, len(m.toolRows()), m.tableHeight())
	return m, nil
}

// toggle turns a toggle key into an edit of settings.json.
//
// Disabling adds "NAME" (every model) or {"tools":["NAME"],"models":["PROVIDER/ID"]} to
// personalExtensions.disabledTools. Enabling a tool that a rule disabled adds the same shape
// to enabledTools: the rule that disabled it may be a pattern covering other tools, or live
// in a file the user wants untouched, so pigo never deletes or rewrites rules; undo (u)
// takes back the last edit byte for byte.
func (m *Model) toggle(k tea.KeyMsg) tea.Cmd {
	t, i, ok := m.selectedTool()
	if !ok || m.loading {
		return nil
	}
	disable := m.keys.DisableAll.is(k) || m.keys.DisableModel.is(k)
	if why := m.uselessToggle(t, i, disable); why != "" {
		m.setStatus(why, true)
		return nil
	}
	model := ""
	if m.keys.DisableModel.is(k) || m.keys.EnableModel.is(k) {
		model = m.modelRef()
		if model == "" || !strings.Contains(model, "/") {
			m.setStatus("no session model with a provider: pick one with m first", true)
			return nil
		}
	}
	switch {
	case disable && t.State == engine.Disabled:
		m.setStatus(fmt.Sprintf("%s is already disabled", t.Name), false)
		return nil
	case !disable && t.State != engine.Disabled:
		m.setStatus(fmt.Sprintf("%s is %s, not disabled by a rule: nothing to enable", t.Name, t.State), false)
		return nil
	}
	field := "enabledTools"
	if disable {
		field = "disabledTools"
	}
	m.keepTool = key(t)
	m.setStatus(fmt.Sprintf("writing %s to %s ...", field, m.scopePath()), false)
	return editCmd(m.opts.Load, m.scope(), field, t.Name, model)
}

// uselessToggle says why a toggle cannot take effect, so that no rule is written that changes
// nothing: the tool is not available at all (a condition, the file toolset, an override or
// --exclude-tools), or an enabledTools rule wins over any disabledTools rule.
func (m *Model) uselessToggle(t engine.ToolResult, i int, disable bool) string {
	rule := "an enabledTools"
	if disable {
		rule = "a disabledTools"
	}
	switch t.State {
	case engine.Unavailable, engine.Excluded, engine.Overridden:
		return fmt.Sprintf("%s is %s (%s): %s rule would change nothing", t.Name, t.State, t.Reason, rule)
	}
	if !disable || i < 0 || i >= len(m.snap.explains) {
		return ""
	}
	for _, st := range m.snap.explains[i].Steps {
		if st.Step == "enabled" && st.Rule != nil {
			return fmt.Sprintf("an enabledTools rule wins over disabledTools: %q at %s:%d; remove it there to disable %s",
				st.Rule.Text, st.Rule.File, st.Rule.Line, t.Name)
		}
	}
	return ""
}

func (m *Model) scopePath() string {
	if m.snap == nil || m.snap.cfg == nil {
		return string(m.scope())
	}
	return fmt.Sprintf("%s %s", m.scope(), m.snap.cfg.Path(config.Settings, m.scope()))
}

func (m *Model) findKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case m.keys.Cancel.is(k):
		m.finding = false
		m.find.set("")
	case m.keys.Accept.is(k):
		m.finding = false
	case k.Type == tea.KeyUp || k.Type == tea.KeyDown || k.Type == tea.KeyPgUp || k.Type == tea.KeyPgDown:
		m.toolSel, m.toolTop = m.move(k, m.toolSel, m.toolTop, len(m.toolRows()), m.tableHeight())
		return m, nil
	default:
		m.find.handle(k)
	}
	m.toolSel, m.toolTop = clampView(0, 0, len(m.toolRows()), m.tableHeight())
	return m, nil
}

// pickRows are the model choices matching the typed text, with the typed provider/id
// itself first when it is not one of them.
func (m *Model) pickRows() []modelChoice {
	if m.snap == nil {
		return nil
	}
	q := strings.TrimSpace(m.pick.String())
	rows := engine.FuzzyFilter(m.snap.models, q, func(c modelChoice) string { return c.Ref })
	// The typed provider/id is offered too: first when no listed model starts with it, else
	// after the list (so that "local/qwen" picks local/qwen-coder with enter).
	if p, id, ok := strings.Cut(q, "/"); ok && p != "" && id != "" && !strings.ContainsAny(q, " ") {
		prefix := false
		for _, r := range rows {
			if r.Ref == q {
				return rows
			}
			prefix = prefix || strings.HasPrefix(strings.ToLower(r.Ref), strings.ToLower(q))
		}
		typed := modelChoice{Ref: q, Source: "typed"}
		if prefix {
			return append(rows, typed)
		}
		rows = append([]modelChoice{typed}, rows...)
	}
	return rows
}

func (m *Model) pickKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	rows := m.pickRows()
	switch {
	case m.keys.Cancel.is(k):
		m.picking = false
		return m, nil
	case m.keys.Accept.is(k):
		m.picking = false
		if m.pickSel < 0 || m.pickSel >= len(rows) {
			m.setStatus("no model matches: type provider/id", true)
			return m, nil
		}
		m.model = rows[m.pickSel].Ref
		if t, _, ok := m.selectedTool(); ok {
			m.keepTool = key(t)
		}
		return m, m.reload("model: " + m.model)
	case k.Type == tea.KeyUp || k.Type == tea.KeyDown || k.Type == tea.KeyPgUp || k.Type == tea.KeyPgDown:
		m.pickSel, _ = m.move(k, m.pickSel, 0, len(rows), m.tableHeight())
		return m, nil
	default:
		m.pick.handle(k)
		m.pickSel = 0
	}
	return m, nil
}

// ---- view -------------------------------------------------------------------------------

// wide reports whether the registry shows the table and the explain trace side by side.
func (m *Model) wide() bool { return m.width >= 120 }

func (m *Model) bodyHeight() int { return max(m.height-4, 3) }

// explainHeight is the height of the explain pane below the table (narrow layout).
func (m *Model) explainHeight() int {
	if m.wide() {
		return 0
	}
	return max(m.bodyHeight()*2/5, 4) - 1
}

// tableHeight is the number of table rows on screen.
func (m *Model) tableHeight() int { return max(m.bodyHeight()-3-m.explainHeight(), 1) }

func (m *Model) registryView() []string {
	bh := m.bodyHeight()
	if m.snap == nil || m.snap.res == nil {
		msg := "loading..."
		if m.snap != nil && m.snap.resErr != nil {
			msg = "cannot resolve the registry: " + m.snap.resErr.Error()
		}
		return []string{m.st.statusErr.Render(trunc(msg, m.width))}
	}
	tw := m.width
	if m.wide() {
		tw = m.width * 3 / 5
	}
	var left []string
	if m.picking {
		left = m.pickerView(tw, bh)
	} else {
		left = m.tableView(tw)
	}
	t, i, ok := m.selectedTool()
	var ex []string
	if ok {
		ex = m.explainLines(t, i, m.width-tw-3)
	}
	if m.wide() {
		if ok {
			ex = append([]string{m.st.title.Render(trunc(explainTitle(t), m.width-tw-3))}, ex...)
		}
		out := make([]string, bh)
		for r := range out {
			l, e := "", ""
			if r < len(left) {
				l = left[r]
			}
			if r < len(ex) {
				e = ex[r]
			}
			out[r] = padStyled(l, tw) + " │ " + e
		}
		return out
	}
	out := padLines(left, bh-m.explainHeight()-1)
	sep := strings.Repeat("─", m.width)
	if ok {
		ex = m.explainLines(t, i, m.width)
		title := "── " + trunc(explainTitle(t), m.width-4) + " "
		sep = m.st.title.Render(title) + m.st.faint.Render(strings.Repeat("─", max(m.width-lipglossWidth(title), 0)))
	} else {
		sep = m.st.faint.Render(sep)
	}
	out = append(out, sep)
	return append(out, padLines(ex, m.explainHeight())...)
}

func (m *Model) tableView(w int) []string {
	res := m.snap.res.Tools
	rows := m.toolRows()
	var counts []string
	for _, s := range []engine.State{engine.Active, engine.CodemodeOnly, engine.Disabled, engine.Excluded, engine.Inactive, engine.Unavailable, engine.Overridden} {
		n := 0
		for _, t := range res.Tools {
			if t.State == s {
				n++
			}
		}
		if n > 0 {
			counts = append(counts, fmt.Sprintf("%s %d", s, n))
		}
	}
	top := strings.Join(counts, " · ")
	if m.finding || m.find.String() != "" {
		cur := ""
		if m.finding {
			cur = "▏"
		}
		top = fmt.Sprintf("find: %s%s   (%d of %d)", m.find.String(), cur, len(rows), len(res.Tools))
	}
	nameW := max(min(w/4, 28), 12)
	stateW := 13
	srcW := max(min(w/4, 22), 10)
	whyW := max(w-2-nameW-stateW-srcW-3, 4)
	out := []string{trunc(top, w),
		m.st.title.Render(fit("  "+fit("TOOL", nameW)+" "+fit("STATE", stateW)+" "+fit("SOURCE", srcW)+" WHY", w))}
	h := m.tableHeight()
	for r := m.toolTop; r < len(rows) && r < m.toolTop+h; r++ {
		t := res.Tools[rows[r]]
		why := t.Reason
		if t.Rule != nil {
			why += fmt.Sprintf(" (%s:%d)", m.short(t.Rule.File), t.Rule.Line)
		}
		if r == m.toolSel {
			line := "> " + fit(t.Name, nameW) + " " + fit(string(t.State), stateW) + " " + fit(t.Source, srcW) + " " + fit(why, whyW)
			out = append(out, m.st.selected.Render(fit(line, w)))
			continue
		}
		out = append(out, "  "+fit(t.Name, nameW)+" "+m.st.word(string(t.State)).Render(fit(string(t.State), stateW))+" "+
			fit(t.Source, srcW)+" "+trunc(why, whyW))
	}
	if len(rows) == 0 {
		out = append(out, m.st.faint.Render("  no tool matches"))
	}
	return out
}

// explainTitle names the tool whose trace the explain pane shows.
func explainTitle(t engine.ToolResult) string {
	return fmt.Sprintf("explain %s (%s) => %s", t.Name, t.Source, t.State)
}

// explainLines is the explain trace: each step, its outcome and the rule with file:line:col.
func (m *Model) explainLines(t engine.ToolResult, i int, w int) []string {
	if w < 26 {
		return nil
	}
	var out []string
	if i >= len(m.snap.explains) {
		return out
	}
	indent := strings.Repeat(" ", 16)
	for _, s := range m.snap.explains[i].Steps {
		for j, l := range wrap(s.Outcome, w-16, "") {
			if j == 0 {
				out = append(out, fmt.Sprintf("  %-13s %s", s.Step, l))
			} else {
				out = append(out, indent+l)
			}
		}
		if s.Rule != nil {
			out = append(out, indent+trunc(fmt.Sprintf("rule %q at %s:%d:%d", s.Rule.Text, m.short(s.Rule.File), s.Rule.Line, s.Rule.Column), w-16))
		}
	}
	return out
}

func (m *Model) pickerView(w, h int) []string {
	rows := m.pickRows()
	out := []string{trunc(fmt.Sprintf("model: %s▏  (enter picks, esc cancels; type provider/id for any model)", m.pick.String()), w)}
	// The chat's select list draws the choices (one list component for both).
	items := make([]termui.Item, len(rows))
	for i, r := range rows {
		items[i] = termui.Item{Label: r.Ref, Description: r.Source, Value: r.Ref}
	}
	l := termui.NewList(items)
	l.Max, l.ColumnMin, l.ColumnMax = m.tableHeight(), 20, max(w-16, 20)
	l.Empty = "no model matches; type provider/id"
	l.Select(m.pickSel)
	return append(out, l.Render(w, m.st.ui)...)
}
