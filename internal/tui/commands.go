package tui

import (
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/engine"
)

// commandRows is the autocomplete menu for the typed text: everything after the leading "/"
// is the query, filtered and ranked with the session's own fuzzy filter.
func (m *Model) commandRows() []engine.AutocompleteItem {
	if m.snap == nil || m.snap.res == nil || m.snap.res.Commands == nil {
		return nil
	}
	q := strings.TrimPrefix(m.cmdIn.String(), "/")
	return engine.FuzzyFilter(m.snap.res.Commands.Autocomplete, q, func(it engine.AutocompleteItem) string { return it.Name })
}

func (m *Model) commandsView() []string {
	if m.snap == nil || m.snap.res == nil || m.snap.res.Commands == nil {
		return nil
	}
	rows := m.commandRows()
	cur := ""
	if m.cmdFocus {
		cur = "▏"
	}
	text := m.cmdIn.String()
	if text == "" && !m.cmdFocus {
		text = "(press / to type, as in a session)"
	}
	out := []string{trunc(fmt.Sprintf("> %s%s   %d of %d commands", text, cur, len(rows), len(m.snap.res.Commands.Autocomplete)), m.width)}
	h := m.listHeight()
	sel, top := clampView(m.cmdSel, m.cmdTop, len(rows), h)
	nameW := max(min(m.width/4, 28), 12)
	hintW := max(min(m.width/5, 24), 8)
	for r := top; r < len(rows) && r < top+h; r++ {
		it := rows[r]
		desc := it.Description
		if it.Tag != "" {
			desc = it.Tag + " " + desc
		}
		line := "  " + fit("/"+it.Name, nameW) + " " + fit(it.ArgumentHint, hintW) + " — " + desc
		if r == sel {
			out = append(out, m.st.selected.Render(fit(line, m.width)))
		} else {
			out = append(out, trunc(line, m.width))
		}
	}
	if len(rows) == 0 {
		out = append(out, m.st.faint.Render("  no command matches (the text would go to the model as is)"))
	}
	out = padLines(out, 1+h)
	out = append(out, m.st.faint.Render(strings.Repeat("─", m.width)))
	var det []string
	if sel >= 0 && sel < len(rows) {
		it := rows[sel]
		det = append(det, m.st.title.Render(trunc(fmt.Sprintf("/%s %s", it.Name, it.ArgumentHint), m.width)))
		det = append(det, trunc(fmt.Sprintf("source: %s %s", it.Source, it.Tag), m.width))
		det = append(det, wrap(it.Description, m.width, "")...)
	}
	if ws := m.snap.res.Commands.Warnings; len(ws) > 0 {
		det = append(det, m.st.warn.Render(trunc(fmt.Sprintf("%d warning(s): %s", len(ws), ws[0].Message), m.width)))
	}
	return append(out, padLines(det, m.snippetHeight())...)
}
