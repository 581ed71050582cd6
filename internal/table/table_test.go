package table

import (
	"bytes"
	"testing"

	"github.com/olekukonko/tablewriter"
)

// The listings' tables are drawn by pigo's own renderer; olekukonko/tablewriter, which drew
// them before, is the oracle: the same header and rows must give the same bytes.
func TestTableMatchesTablewriter(t *testing.T) {
	cases := []struct {
		name string
		head []string
		rows [][]any
	}{
		{"tools", []string{"TOOL", "STATE", "SOURCE", "WHY"}, [][]any{
			{"read", "active", "builtin", "default built-in selection (read, bash, edit, write)"},
			{"powershell", "unavailable", "builtin", "condition `os == \"windows\"` is false (toolsets/pi.cue:140:14)"},
		}},
		{"numbers and empty cells", []string{"ID", "MODIFIED", "MESSAGES", "NAME", "FIRST MESSAGE"}, [][]any{
			{"0197a", "2026-12-02 02:04", 914, "", "fix the tests"},
			{"0197b", "2026-12-01 23:59", 0, "a name", ""},
		}},
		{"wide and combining characters", []string{"A", "B"}, [][]any{
			{"日本語のテキスト", "e\u0301té"},
			{"emoji 🎉 here", "ascii"},
		}},
		{"line breaks and surrounding space", []string{"COMMAND", "DESCRIPTION"}, [][]any{
			{"  /x  ", "first line\nsecond, longer line\nthird"},
			{"/y\n/z", " padded "},
		}},
		{"escape sequences and tabs", []string{"K", "V"}, [][]any{
			{"\x1b[1mbold\x1b[0m", "a\tb"},
			{"\x1b]8;;http://x\x07link\x1b]8;;\x07", "plain"},
		}},
		{"odd centring", []string{"AB", "ODD"}, [][]any{{"abcdefg", "abcdef"}}},
		{"header only", []string{"AGENT", "SCOPE"}, nil},
		{"header wider than cells", []string{"A LONG HEADER", "X"}, [][]any{{"a", "b"}}},
	}
	for _, c := range cases {
		var want, got bytes.Buffer
		tw := tablewriter.NewTable(&want)
		hs := make([]any, len(c.head))
		for i, h := range c.head {
			hs[i] = h
		}
		tw.Header(hs...)
		mine := &Table{}
		mine.Header(c.head...)
		for _, r := range c.rows {
			if err := tw.Append(r...); err != nil {
				t.Fatal(err)
			}
			mine.Append(r...)
		}
		if err := tw.Render(); err != nil {
			t.Fatal(err)
		}
		if err := mine.Render(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: pigo drew\n%s\ntablewriter drew\n%s", c.name, got.String(), want.String())
		}
	}
}
