package diag

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Style controls text rendering.
type Style struct {
	// Color adds ANSI colours to severities.
	Color bool
}

func (s Style) sev(sev Severity) string {
	if !s.Color {
		return sev.String()
	}
	code := map[Severity]string{Error: "1;31", Warning: "1;33", Info: "1;36"}[sev]
	return "\x1b[" + code + "m" + sev.String() + "\x1b[0m"
}

// WriteText prints errors and warnings one by one as `file:line:col: severity: message [code]`
// with the source line and an underline, and infos compactly, one line per file.
func WriteText(w io.Writer, list List, st Style) {
	infos := map[string][]Diagnostic{}
	var infoFiles []string
	for _, d := range list {
		if d.Severity == Info {
			if _, ok := infos[d.File()]; !ok {
				infoFiles = append(infoFiles, d.File())
			}
			infos[d.File()] = append(infos[d.File()], d)
			continue
		}
		writeOne(w, d, st)
	}
	for _, f := range infoFiles {
		ds := infos[f]
		var parts []string
		for _, d := range ds {
			p := d.Message
			if l, c := d.Pos(); l > 0 {
				p += fmt.Sprintf(" (%d:%d)", l, c)
			}
			parts = append(parts, p)
		}
		codes := uniqueCodes(ds)
		fmt.Fprintf(w, "%s: %s: %s [%s]\n", f, st.sev(Info), strings.Join(parts, "; "), strings.Join(codes, ", "))
	}
}

func uniqueCodes(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		found := false
		for _, c := range out {
			found = found || c == d.Code
		}
		if !found {
			out = append(out, d.Code)
		}
	}
	return out
}

func writeOne(w io.Writer, d Diagnostic, st Style) {
	loc := d.File()
	if l, c := d.Pos(); l > 0 {
		loc += fmt.Sprintf(":%d:%d", l, c)
	}
	fmt.Fprintf(w, "%s: %s: %s [%s]\n", loc, st.sev(d.Severity), d.Message, d.Code)
	if l, c := d.Pos(); l > 0 && d.Src.Text != nil {
		text := d.Src.Line(l)
		num := strconv.Itoa(l)
		pad := strings.Repeat(" ", len(num))
		text, c, cut := window(text, c)
		shown := expandControl(text)
		var lead strings.Builder
		if cut&cutBefore != 0 {
			shown = "…" + shown
			lead.WriteByte(' ')
		}
		if cut&cutAfter != 0 {
			shown += "…"
		}
		fmt.Fprintf(w, "    %s | %s\n", num, shown)
		// The underline follows the line's own tabs so that it stays aligned.
		for _, r := range string(text[:min(c-1, len(text))]) {
			if r == '\t' {
				lead.WriteByte('\t')
			} else {
				lead.WriteByte(' ')
			}
		}
		width := 1
		el, ec := d.EndPos()
		if cut&cutBefore != 0 && el == l {
			_, full := d.Pos()
			ec -= full - c // the window moved the columns
		}
		if el == l && ec > c {
			width = utf8.RuneCount(text[min(c-1, len(text)):min(ec-1, len(text))])
		} else if el > l {
			width = utf8.RuneCount(text[min(c-1, len(text)):])
		}
		width = max(width, 1)
		fmt.Fprintf(w, "    %s | %s^%s\n", pad, lead.String(), strings.Repeat("~", width-1))
	}
	if d.Hint != "" {
		fmt.Fprintf(w, "    = hint: %s\n", d.Hint)
	}
}

// Snippet windows: a long line is shown around the column only, so that many diagnostics on
// one huge line (a minified file of 40k duplicate keys) print kilobytes, not gigabytes.
const (
	maxSnippet    = 160
	snippetBefore = 60
	cutBefore     = 1
	cutAfter      = 2
)

// window cuts text to at most maxSnippet bytes around the 1-based byte column c, on rune
// boundaries. It returns the cut text, the column inside it, and which ends were cut.
func window(text []byte, c int) ([]byte, int, int) {
	if len(text) <= maxSnippet {
		return text, c, 0
	}
	start := max(0, min(c-1, len(text))-snippetBefore)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	end := min(len(text), start+maxSnippet)
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	cut := 0
	if start > 0 {
		cut |= cutBefore
	}
	if end < len(text) {
		cut |= cutAfter
	}
	return text[start:end], c - start, cut
}

// expandControl keeps a source line printable: control characters other than tab become '?'.
func expandControl(b []byte) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' {
			return '?'
		}
		return r
	}, string(b))
}

// JSONDiagnostic is the JSON shape of one diagnostic (cli.md). A diagnostic about a whole file
// (an unreadable file, a foreign dialect) has no position: line, column, end_line and
// end_column are then left out, never 0.
type JSONDiagnostic struct {
	File      string `json:"file"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	EndColumn int    `json:"end_column,omitempty"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Path      string `json:"path,omitempty"`
	Hint      string `json:"hint,omitempty"`
}

// ToJSON converts diagnostics into their JSON shape.
func ToJSON(list List) []JSONDiagnostic {
	out := make([]JSONDiagnostic, 0, len(list))
	for _, d := range list {
		l, c := d.Pos()
		el, ec := d.EndPos()
		out = append(out, JSONDiagnostic{File: d.File(), Line: l, Column: c, EndLine: el, EndColumn: ec,
			Severity: d.Severity.String(), Code: d.Code, Message: d.Message, Path: d.Path, Hint: d.Hint})
	}
	return out
}

// WriteGitHub prints GitHub Actions workflow commands.
func WriteGitHub(w io.Writer, list List) {
	esc := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	prop := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	for _, d := range list {
		kind := map[Severity]string{Error: "error", Warning: "warning", Info: "notice"}[d.Severity]
		var props []string
		props = append(props, "file="+prop.Replace(d.File()))
		if l, c := d.Pos(); l > 0 {
			el, ec := d.EndPos()
			props = append(props, fmt.Sprintf("line=%d", l), fmt.Sprintf("col=%d", c), fmt.Sprintf("endLine=%d", el), fmt.Sprintf("endColumn=%d", ec))
		}
		props = append(props, "title="+prop.Replace(d.Code))
		msg := d.Message
		if d.Hint != "" {
			msg += " (" + d.Hint + ")"
		}
		fmt.Fprintf(w, "::%s %s::%s\n", kind, strings.Join(props, ","), esc.Replace(msg))
	}
}

// WriteSARIF prints a SARIF 2.1.0 log.
func WriteSARIF(w io.Writer, list List, version string) error {
	type region struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
		EndLine     int `json:"endLine"`
		EndColumn   int `json:"endColumn"`
	}
	type physical struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region *region `json:"region,omitempty"`
	}
	type location struct {
		PhysicalLocation physical `json:"physicalLocation"`
	}
	type message struct {
		Text string `json:"text"`
	}
	type result struct {
		RuleID    string     `json:"ruleId"`
		Level     string     `json:"level"`
		Message   message    `json:"message"`
		Locations []location `json:"locations"`
	}
	type rule struct {
		ID string `json:"id"`
	}
	var results []result
	var rules []rule
	seen := map[string]bool{}
	for _, d := range list {
		if !seen[d.Code] {
			seen[d.Code] = true
			rules = append(rules, rule{ID: d.Code})
		}
		var loc location
		loc.PhysicalLocation.ArtifactLocation.URI = fileURI(d.File())
		if l, c := d.Pos(); l > 0 {
			el, ec := d.EndPos()
			loc.PhysicalLocation.Region = &region{l, c, el, ec}
		}
		msg := d.Message
		if d.Hint != "" {
			msg += " (" + d.Hint + ")"
		}
		level := map[Severity]string{Error: "error", Warning: "warning", Info: "note"}[d.Severity]
		results = append(results, result{RuleID: d.Code, Level: level, Message: message{msg}, Locations: []location{loc}})
	}
	if results == nil {
		results = []result{}
	}
	if rules == nil {
		rules = []rule{}
	}
	log := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs": []any{map[string]any{
			"tool":    map[string]any{"driver": map[string]any{"name": "pigo", "version": version, "informationUri": "https://github.com/pigo-agent/pigo", "rules": rules}},
			"results": results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// fileURI turns a path into the URI SARIF's artifactLocation.uri requires: a file:// URI for an
// absolute path, a relative URI reference (percent-encoded, forward slashes) otherwise.
func fileURI(p string) string {
	p = filepath.ToSlash(p)
	if path.IsAbs(p) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// Line renders the diagnostic on one line: `file:line:col: severity: message [code]`.
func (d Diagnostic) Line() string {
	where := d.File()
	if d.HasPos() {
		l, col := d.Pos()
		where = fmt.Sprintf("%s:%d:%d", where, l, col)
	}
	return fmt.Sprintf("%s: %s: %s [%s]", where, d.Severity, d.Message, d.Code)
}
