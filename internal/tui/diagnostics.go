package tui

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/diag"
)

var severityFilters = []string{"all", "errors", "warnings", "infos"}

func (m *Model) diagKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case m.keys.Severity.is(k):
		m.sevFilter = (m.sevFilter + 1) % len(severityFilters)
		m.diagSel, m.diagTop = 0, 0
	case m.keys.File.is(k):
		files := m.diagFiles()
		i := slices.Index(files, m.fileFilter)
		m.fileFilter = files[(i+1)%len(files)]
		m.diagSel, m.diagTop = 0, 0
	default:
		m.diagSel, m.diagTop = m.move(k, m.diagSel, m.diagTop, len(m.diagRows()), m.listHeight())
	}
	return m, nil
}

// diagFiles are the filter choices: "" (all), then every file with a diagnostic, sorted.
func (m *Model) diagFiles() []string {
	files := []string{""}
	if m.snap == nil {
		return files
	}
	for _, d := range m.snap.diags {
		if f := d.File(); f != "" {
			files = append(files, f)
		}
	}
	slices.Sort(files[1:])
	return slices.Compact(files)
}

// snippetHeight is the height of the source snippet pane (diagnostics) or the detail pane
// (commands).
func (m *Model) snippetHeight() int { return max(min(m.bodyHeight()/3, 8), 3) }

// listHeight is the number of list rows on the diagnostics and commands tabs.
func (m *Model) listHeight() int { return max(m.bodyHeight()-2-m.snippetHeight(), 1) }

func sevLetter(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "E"
	case diag.Warning:
		return "W"
	}
	return "I"
}

func (m *Model) diagView() []string {
	if m.snap == nil {
		return nil
	}
	rows := m.diagRows()
	e, w, i := m.snap.diags.Count()
	file := m.short(m.fileFilter)
	if file == "" {
		file = "all"
	}
	out := []string{trunc(fmt.Sprintf("severity: %s · file: %s · %d shown of %d (%d errors, %d warnings, %d infos)",
		severityFilters[m.sevFilter], file, len(rows), len(m.snap.diags), e, w, i), m.width)}
	h := m.listHeight()
	for r := m.diagTop; r < len(rows) && r < m.diagTop+h; r++ {
		d := rows[r]
		loc := m.short(d.File())
		if l, c := d.Pos(); l > 0 {
			loc += fmt.Sprintf(":%d:%d", l, c)
		}
		text := fmt.Sprintf("%s %s %s [%s]", sevLetter(d.Severity), loc, d.Message, d.Code)
		if r == m.diagSel {
			out = append(out, m.st.selected.Render(fit(text, m.width)))
			continue
		}
		st := m.st.info
		switch d.Severity {
		case diag.Error:
			st = m.st.err
		case diag.Warning:
			st = m.st.warn
		}
		out = append(out, st.Render(sevLetter(d.Severity))+trunc(text[1:], m.width-1))
	}
	if len(rows) == 0 {
		out = append(out, m.st.faint.Render("  no diagnostics"))
	}
	out = padLines(out, 1+h)
	out = append(out, m.st.faint.Render(strings.Repeat("─", m.width)))
	if m.diagSel >= 0 && m.diagSel < len(rows) {
		var buf bytes.Buffer
		d := rows[m.diagSel]
		if d.Severity == diag.Info {
			d.Severity = diag.Warning // WriteText prints infos compactly, without their snippet
		}
		diag.WriteText(&buf, diag.List{d}, diag.Style{})
		var sn []string
		for _, l := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
			if d.Severity != rows[m.diagSel].Severity {
				l = strings.Replace(l, "warning:", "info:", 1)
			}
			sn = append(sn, trunc(m.short(strings.ReplaceAll(l, "\t", "    ")), m.width))
		}
		out = append(out, padLines(sn, m.snippetHeight())...)
	}
	return out
}
