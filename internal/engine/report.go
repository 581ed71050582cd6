package engine

import (
	"fmt"
	"io"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/table"
)

// The text of `pigo tools`, `pigo explain` and `pigo commands`. fit is the width left for a
// table's last column given the other columns' cells (0: no limit; the command line measures
// the terminal); a cut reason keeps its start and ends with "…".

// WriteText prints the registry as `pigo tools` does after its header lines: the table, the
// active and codemode-only tools and the diagnostics.
func (r *Result) WriteText(w io.Writer, fit func(others ...[]string) int) error {
	t := &table.Table{}
	t.Header("TOOL", "STATE", "SOURCE", "WHY")
	names, states, sources := []string{"TOOL"}, []string{"STATE"}, []string{"SOURCE"}
	for _, tool := range r.Tools {
		names, states, sources = append(names, tool.Name), append(states, string(tool.State)), append(sources, tool.Source)
	}
	// On a terminal the reasons are cut to fit; pigo explain and --format json have them whole.
	n := fit(names, states, sources)
	for _, tool := range r.Tools {
		why := tool.Reason
		if tool.Rule != nil {
			why += fmt.Sprintf(" (%s:%d:%d)", tool.Rule.File, tool.Rule.Line, tool.Rule.Column)
		}
		t.Append(tool.Name, string(tool.State), tool.Source, table.Truncate(why, n))
	}
	if err := t.Render(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "active (%d): %s\n", len(r.Active), ListOrNone(r.Active))
	fmt.Fprintf(w, "codemode-only (%d): %s\n", len(r.CodemodeOnly), ListOrNone(r.CodemodeOnly))
	WriteDiagnostics(w, r.Diagnostics)
	return nil
}

// WriteText prints the steps that decided a tool's state, as `pigo explain` does; model is the
// model line.
func (ex ExplainResult) WriteText(w io.Writer, model string) {
	fmt.Fprintf(w, "%s  (%s)   model: %s\n", ex.Tool, ex.Source, model)
	for _, st := range ex.Steps {
		fmt.Fprintf(w, "  %-14s %s\n", st.Step, st.Outcome)
		if st.Rule != nil {
			fmt.Fprintf(w, "  %-14s   rule %q at %s:%d:%d\n", "", st.Rule.Text, st.Rule.File, st.Rule.Line, st.Rule.Column)
		}
	}
	fmt.Fprintf(w, "  => %s\n", ex.State)
}

// WriteText prints the slash menu and the lookup order as `pigo commands` does.
func (r *CommandResult) WriteText(w io.Writer, fit func(others ...[]string) int) error {
	fmt.Fprintln(w, "slash menu (autocomplete order):")
	t := &table.Table{}
	t.Header("COMMAND", "TAG", "ARGUMENTS", "DESCRIPTION")
	names, tags, hints := []string{"COMMAND"}, []string{"TAG"}, []string{"ARGUMENTS"}
	for _, it := range r.Autocomplete {
		names, tags, hints = append(names, "/"+it.Name), append(tags, it.Tag), append(hints, it.ArgumentHint)
	}
	n := fit(names, tags, hints)
	for _, it := range r.Autocomplete {
		t.Append("/"+it.Name, it.Tag, it.ArgumentHint, table.Truncate(it.Description, n))
	}
	if err := t.Render(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "lookup order (what runs when several match: built-in > extension > skill > prompt):")
	for _, e := range r.Commands {
		where := e.File
		if where == "" {
			where = e.Source
		}
		fmt.Fprintf(w, "  /%-24s %-9s %-9s %s\n", e.Invocation, e.Source, e.Scope, where)
	}
	for _, e := range r.Unavailable {
		fmt.Fprintf(w, "  (unavailable) /%s: %s\n", e.Invocation, e.Reason)
	}
	WriteDiagnostics(w, r.Diagnostics)
	return nil
}

// ListOrNone joins l with commas, "(none)" when empty.
func ListOrNone(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, ", ")
}

// WriteDiagnostics prints each diagnostic as `file:line:col: severity: message [code]`.
func WriteDiagnostics(w io.Writer, list diag.List) {
	for _, d := range list {
		loc := d.File()
		if l, col := d.Pos(); l > 0 {
			loc += fmt.Sprintf(":%d:%d", l, col)
		}
		if loc != "" {
			loc += ": "
		}
		fmt.Fprintf(w, "%s%s: %s [%s]\n", loc, d.Severity, d.Message, d.Code)
	}
}
