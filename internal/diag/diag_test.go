package diag

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestPosition(t *testing.T) {
	type pos struct{ Off, Line, Col int }
	cases := []struct {
		name string
		text string
		want []pos
	}{
		{"empty", "", []pos{{0, 1, 1}, {5, 1, 1}}},
		{"lf", "ab\ncd\n", []pos{{0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {3, 2, 1}, {4, 2, 2}, {6, 3, 1}}},
		{"crlf", "ab\r\ncd\r\n", []pos{{2, 1, 3}, {3, 1, 4}, {4, 2, 1}, {5, 2, 2}, {8, 3, 1}}},
		{"tabs count one byte", "\t\tx", []pos{{2, 1, 3}}},
		{"multibyte counts bytes", "é€x\ny", []pos{{2, 1, 3}, {5, 1, 6}, {7, 2, 1}}},
		{"no final newline", "a\nb", []pos{{2, 2, 1}, {3, 2, 2}}},
		{"past the end clamps", "a\nb", []pos{{99, 2, 2}}},
		{"negative", "a", []pos{{-1, 0, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSource("f", []byte(c.text))
			var got []pos
			for _, p := range c.want {
				l, col := s.Position(p.Off)
				got = append(got, pos{p.Off, l, col})
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestOffsetRoundTrip(t *testing.T) {
	for _, text := range []string{"", "x", "ab\ncd\n", "ab\r\ncd\r\n", "\té€\n\tz", "a\n\n\nb"} {
		s := NewSource("f", []byte(text))
		for off := 0; off <= len(text); off++ {
			l, c := s.Position(off)
			if got := s.Offset(l, c); got != off {
				t.Errorf("%q: offset %d → %d:%d → %d", text, off, l, c, got)
			}
		}
	}
}

func TestOffsetClamps(t *testing.T) {
	s := NewSource("f", []byte("ab\ncd"))
	cases := []struct{ line, col, want int }{
		{0, 1, 0}, {1, 0, 0}, {1, 99, 2}, {2, 99, 5}, {9, 1, 5},
	}
	for _, c := range cases {
		if got := s.Offset(c.line, c.col); got != c.want {
			t.Errorf("Offset(%d, %d) = %d, want %d", c.line, c.col, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	s := NewSource("f", []byte("one\r\n\ttwo é\nthree"))
	cases := []struct {
		line int
		want string
	}{{0, ""}, {1, "one"}, {2, "\ttwo é"}, {3, "three"}, {4, ""}}
	for _, c := range cases {
		if got := string(s.Line(c.line)); got != c.want {
			t.Errorf("Line(%d) = %q, want %q", c.line, got, c.want)
		}
	}
	if got := NewSource("f", nil).Line(1); len(got) != 0 {
		t.Errorf("empty file line 1 = %q", got)
	}
}

func TestSortDedup(t *testing.T) {
	a, b := NewSource("a", []byte("xxxx")), NewSource("b", []byte("yyyy"))
	var l List
	l.Add(At(b, 1, 2), Error, "schema", "", "two")
	l.Add(At(a, 3, 4), Info, "unknown-field", "", "three")
	l.Add(At(a, 3, 4), Error, "schema", "", "one")
	l.Add(At(a, 3, 4), Error, "schema", "", "one")
	l.Add(FileSpan(a), Warning, "legacy-file", "", "whole")
	var got []string
	for _, d := range l.Sort() {
		got = append(got, d.File()+" "+d.Message)
	}
	want := []string{"a whole", "a one", "a three", "b two"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if e, w, i := l.Count(); e != 3 || w != 1 || i != 1 {
		t.Errorf("Count = %d %d %d", e, w, i)
	}
}

func TestRuneOffset(t *testing.T) {
	text := []byte("aé€😀z")
	for i, want := range []int{0, 1, 3, 6, 10, 11, 11} {
		if got := RuneOffset(text, i); got != want {
			t.Errorf("RuneOffset(%d) = %d, want %d", i, got, want)
		}
	}
}

func render(list List) string {
	var b strings.Builder
	WriteText(&b, list, Style{})
	return b.String()
}

func TestWriteTextUnderline(t *testing.T) {
	cases := []struct {
		name       string
		text       string
		start, end int
		want       string
	}{
		{"spaces", "{\n  \"fileIo\": \"vim\",\n}\n", 14, 19,
			"f.json:2:13: error: bad [schema]\n    2 |   \"fileIo\": \"vim\",\n      |             ^~~~~\n"},
		{"tabs keep alignment", "{\n\t\t\"x\": \"vim\"\n}", 9, 14,
			"f.json:2:8: error: bad [schema]\n    2 | \t\t\"x\": \"vim\"\n      | \t\t     ^~~~~\n"},
		{"multibyte before and inside", "{\"é\": \"día€\"}", 7, 16,
			"f.json:1:8: error: bad [schema]\n    1 | {\"é\": \"día€\"}\n      |       ^~~~~~\n"},
		{"crlf line", "{\r\n  \"a\": 1\r\n}", 10, 11,
			"f.json:2:8: error: bad [schema]\n    2 |   \"a\": 1\n      |        ^\n"},
		{"span across lines runs to the end of the first", "[\n  1,\n  2\n]", 0, 12,
			"f.json:1:1: error: bad [schema]\n    1 | [\n      | ^\n"},
		{"end of file", "{", 1, 1,
			"f.json:1:2: error: bad [schema]\n    1 | {\n      |  ^\n"},
		{"control characters shown as ?", "a\x01b", 2, 3,
			"f.json:1:3: error: bad [schema]\n    1 | a?b\n      |   ^\n"},
		{"line 10 pads the gutter", strings.Repeat("\n", 9) + "xy", 10, 12,
			"f.json:10:2: error: bad [schema]\n    10 | xy\n       |  ^\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := NewSource("f.json", []byte(c.text))
			var l List
			l.Add(At(src, c.start, c.end), Error, "schema", "", "bad")
			if d := cmp.Diff(c.want, render(l)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestWriteTextHintsInfosAndFiles(t *testing.T) {
	src := NewSource("s.json", []byte("{\"defaultTool\": [], \"powerline\": {}, \"zz\": 1}"))
	var l List
	w := l.Add(At(src, 1, 14), Warning, "unknown-field", "", `unknown field "defaultTool"`)
	w.Hint = `did you mean "defaultTools"?`
	l.Add(At(src, 20, 31), Info, "unknown-field", "", `unknown field "powerline"`)
	l.Add(At(src, 37, 41), Info, "other", "", `unknown field "zz"`)
	l.Add(FileSpan(NewSource("bwrap.json", nil)), Warning, "legacy-file", "", "old name")
	want := `s.json:1:2: warning: unknown field "defaultTool" [unknown-field]
    1 | {"defaultTool": [], "powerline": {}, "zz": 1}
      |  ^~~~~~~~~~~~~
    = hint: did you mean "defaultTools"?
bwrap.json: warning: old name [legacy-file]
s.json: info: unknown field "powerline" (1:21); unknown field "zz" (1:38) [unknown-field, other]
`
	if d := cmp.Diff(want, render(l)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var b strings.Builder
	WriteText(&b, l[:1], Style{Color: true})
	if !strings.Contains(b.String(), "\x1b[1;33mwarning\x1b[0m") {
		t.Errorf("colour: %q", b.String())
	}
}

func TestWriteGitHub(t *testing.T) {
	src := NewSource("dir/a,b:c.json", []byte("{\n  \"x\": 1\n}"))
	var l List
	d := l.Add(At(src, 4, 7), Error, "schema", "", "100% wrong\nreally")
	d.Hint = "fix it"
	l.Add(FileSpan(src), Info, "foreign-dialect", "", "not ours")
	var b strings.Builder
	WriteGitHub(&b, l)
	want := "::error file=dir/a%2Cb%3Ac.json,line=2,col=3,endLine=2,endColumn=6,title=schema::100%25 wrong%0Areally (fix it)\n" +
		"::notice file=dir/a%2Cb%3Ac.json,title=foreign-dialect::not ours\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWriteSARIF(t *testing.T) {
	src := NewSource("a.json", []byte("{\n  \"x\": 1\n}"))
	var l List
	l.Add(At(src, 4, 7), Error, "schema", "", "bad")
	l.Add(At(src, 9, 10), Warning, "schema", "", "meh")
	l.Add(FileSpan(src), Info, "foreign-dialect", "", "not ours")
	var b bytes.Buffer
	if err := WriteSARIF(&b, l, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name    string `json:"name"`
					Version string `json:"version"`
					Rules   []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string                `json:"ruleId"`
				Level     string                `json:"level"`
				Message   struct{ Text string } `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
						Region           *struct {
							StartLine, StartColumn, EndLine, EndColumn int
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("not a SARIF 2.1.0 log: %s", b.String())
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "pigo" || run.Tool.Driver.Version != "1.2.3" || len(run.Tool.Driver.Rules) != 2 {
		t.Errorf("driver: %+v", run.Tool.Driver)
	}
	var levels []string
	for _, r := range run.Results {
		levels = append(levels, r.Level)
	}
	if d := cmp.Diff([]string{"error", "warning", "note"}, levels); d != "" {
		t.Errorf("levels (-want +got):\n%s", d)
	}
	r0 := run.Results[0].Locations[0].PhysicalLocation
	if r0.ArtifactLocation.URI != "a.json" || r0.Region == nil || r0.Region.StartLine != 2 || r0.Region.StartColumn != 3 || r0.Region.EndColumn != 6 {
		t.Errorf("location: %+v %+v", r0.ArtifactLocation, r0.Region)
	}
	if run.Results[2].Locations[0].PhysicalLocation.Region != nil {
		t.Errorf("a whole-file diagnostic has no region")
	}
	// An empty list still has the arrays (not null).
	b.Reset()
	if err := WriteSARIF(&b, nil, "v"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"results": []`) || !strings.Contains(b.String(), `"rules": []`) {
		t.Errorf("empty SARIF: %s", b.String())
	}
}

func TestToJSON(t *testing.T) {
	src := NewSource("a.json", []byte("{\"x\": 1}"))
	var l List
	d := l.Add(At(src, 6, 7), Error, "schema", "x", "bad")
	d.Hint = "h"
	l.Add(FileSpan(src), Info, "foreign-dialect", "", "whole")
	got := ToJSON(l)
	want := []JSONDiagnostic{
		{File: "a.json", Line: 1, Column: 7, EndLine: 1, EndColumn: 8, Severity: "error", Code: "schema", Message: "bad", Path: "x", Hint: "h"},
		{File: "a.json", Severity: "info", Code: "foreign-dialect", Message: "whole"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if b, _ := json.Marshal(ToJSON(nil)); string(b) != "[]" {
		t.Errorf("empty list encodes as %s", b)
	}
}

// TestSnippetWindow: a diagnostic on a huge line shows a window around its column, with the
// caret still under the offending bytes (many diagnostics on a minified 1 MB line printed the
// whole line each time: gigabytes).
func TestSnippetWindow(t *testing.T) {
	line := strings.Repeat(`"a": 1, `, 20000) + `"bad": 2`
	src := NewSource("f.json", []byte("{"+line+"}\n"))
	off := 1 + strings.Index(line, `"bad"`)
	var l List
	l.Add(At(src, off, off+5), Error, "x", "", "here")
	var b strings.Builder
	WriteText(&b, l, Style{})
	lines := strings.Split(b.String(), "\n")
	if len(b.String()) > 600 || len(lines) < 3 {
		t.Fatalf("output of %d bytes:\n%.600s", b.Len(), b.String())
	}
	code, caret := lines[1], lines[2]
	i := strings.Index(caret, "^")
	if !strings.HasPrefix(code, "    1 | …") || i < 0 {
		t.Fatalf("snippet:\n%s\n%s", code, caret)
	}
	// The caret sits under `"bad"` (count runes: "…" is one column).
	if got := string([]rune(code)[utf8.RuneCountInString(caret[:i]):][:5]); got != `"bad"` || !strings.HasSuffix(caret, "^~~~~") {
		t.Errorf("caret under %q:\n%s\n%s", got, code, caret)
	}
}
