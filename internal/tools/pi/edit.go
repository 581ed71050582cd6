package pi

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"syscall"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
	"golang.org/x/text/unicode/norm"
)

func isSingleEdit(v *toolrun.Value) bool {
	if v == nil || v.Kind != toolrun.Object {
		return false
	}
	o, n := v.Get("oldText"), v.Get("newText")
	return o != nil && o.Kind == toolrun.String && n != nil && n.Kind == toolrun.String
}

// prepareEdit is pi's prepareEditArguments: edits sent as a JSON string are parsed, a single
// edit object is wrapped in an array, and legacy top-level oldText/newText become the last edit.
func prepareEdit(v *toolrun.Value) *toolrun.Value {
	if v == nil || v.Kind != toolrun.Object {
		return v
	}
	if e := v.Get("edits"); e != nil && e.Kind == toolrun.String {
		if parsed, err := toolrun.ParseValue([]byte(e.Str)); err == nil {
			if parsed.Kind == toolrun.Array {
				v.Set("edits", parsed)
			} else if isSingleEdit(parsed) {
				v.Set("edits", &toolrun.Value{Kind: toolrun.Array, Arr: []*toolrun.Value{parsed}})
			}
		}
	} else if isSingleEdit(e) {
		v.Set("edits", &toolrun.Value{Kind: toolrun.Array, Arr: []*toolrun.Value{e}})
	}
	if !isSingleEdit(v) {
		return v
	}
	edits := &toolrun.Value{Kind: toolrun.Array, Arr: []*toolrun.Value{}}
	if e := v.Get("edits"); e != nil && e.Kind == toolrun.Array {
		edits.Arr = append(edits.Arr, e.Arr...)
	}
	edits.Arr = append(edits.Arr, &toolrun.Value{Kind: toolrun.Object, Obj: []toolrun.Member{
		{Key: "oldText", Value: v.Get("oldText")}, {Key: "newText", Value: v.Get("newText")}}})
	out := &toolrun.Value{Kind: toolrun.Object}
	for _, m := range v.Obj {
		if m.Key != "oldText" && m.Key != "newText" && m.Key != "edits" {
			out.Obj = append(out.Obj, m)
		}
	}
	out.Obj = append(out.Obj, toolrun.Member{Key: "edits", Value: edits})
	return out
}

type editPair struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

type editArgs struct {
	Path  string     `json:"path"`
	Edits []editPair `json:"edits"`
}

func piEdit(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a editArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	if len(a.Edits) == 0 {
		return toolrun.Result{}, errors.New("Edit tool input is invalid. edits must contain at least one replacement.")
	}
	abs := toolkit.ResolvePath(a.Path, inv.Session.Cwd)
	if ctx.Err() != nil {
		return toolrun.Result{}, errors.New(toolkit.ErrAborted)
	}
	couldNot := func(err error) error {
		return fmt.Errorf("Could not edit file: %s. Error code: %s.", a.Path, toolkit.NodeCode(err))
	}
	var base, updated string
	_, err := inv.Session.WriteFile(ctx, toolrun.FileWrite{Tool: "edit", Path: abs, ReadError: couldNot,
		Update: func(buf []byte, exists bool) ([]byte, error) {
			if !exists {
				return nil, couldNot(syscall.ENOENT)
			}
			if err := syscall.Access(abs, 4|2); err != nil { // R_OK|W_OK, as pi checks
				return nil, couldNot(err)
			}
			// pi decodes the file as UTF-8 and writes the decoded text back, which turns every
			// byte that is not UTF-8 into U+FFFD, also far from the edit. pigo matches on the
			// raw bytes instead (oldText and newText are UTF-8 either way), so bytes the edit
			// does not touch survive: a deliberate departure that never loses user data.
			bom, content := splitBOM(string(buf))
			ending := detectLineEnding(content)
			var err error
			base, updated, err = applyEdits(toolkit.NormalizeLF(content), a.Edits, a.Path)
			if err != nil {
				return nil, err
			}
			if ctx.Err() != nil {
				return nil, errors.New(toolkit.ErrAborted)
			}
			return []byte(bom + restoreLineEndings(updated, ending)), nil
		}})
	if err != nil {
		return toolrun.Result{}, toolkit.FsError(err)
	}
	parts := toolkit.LineDiff(base, updated)
	diff, first := toolkit.DiffStringParts(base, updated, parts, 4)
	details := editDetails{Diff: diff, Patch: toolkit.UnifiedPatchParts(a.Path, parts, 4)}
	if first > 0 {
		details.FirstChangedLine = &first
	}
	return toolrun.TextResult(fmt.Sprintf("Successfully replaced %d block(s) in %s.", len(a.Edits), a.Path), details), nil
}

// editDetails is pi's edit details, in pi's key order.
type editDetails struct {
	Diff             string `json:"diff"`
	Patch            string `json:"patch"`
	FirstChangedLine *int   `json:"firstChangedLine,omitempty"`
}

func splitBOM(s string) (string, string) {
	if rest, ok := strings.CutPrefix(s, "\uFEFF"); ok {
		return "\uFEFF", rest
	}
	return "", s
}

func detectLineEnding(s string) string {
	lf := strings.IndexByte(s, '\n')
	crlf := strings.Index(s, "\r\n")
	if lf == -1 || crlf == -1 {
		return "\n"
	}
	if crlf < lf {
		return "\r\n"
	}
	return "\n"
}

func restoreLineEndings(s, ending string) string {
	if ending == "\r\n" {
		return strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

func isJSSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// fuzzyRune maps typographic quotes, dashes and spaces to ASCII (pi's replacements).
func fuzzyRune(r rune) rune {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B':
		return '\''
	case '\u201C', '\u201D', '\u201E', '\u201F':
		return '"'
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return '-'
	case '\u00A0', '\u202F', '\u205F', '\u3000':
		return ' '
	}
	if r >= '\u2002' && r <= '\u200A' {
		return ' '
	}
	return r
}

// NormalizeFuzzy is pi's normalizeForFuzzyMatch: NFKC, trailing whitespace stripped per
// line, typographic quotes, dashes and spaces made ASCII. One pass after NFKC.
func NormalizeFuzzy(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for {
		line, rest, more := strings.Cut(s, "\n")
		line = strings.TrimRightFunc(line, isJSSpace)
		for i := 0; i < len(line); i++ {
			if line[i] >= 0x80 {
				for _, r := range line[i:] {
					b.WriteRune(fuzzyRune(r))
				}
				break
			}
			b.WriteByte(line[i])
		}
		if !more {
			return b.String()
		}
		b.WriteByte('\n')
		s = rest
	}
}

type match struct {
	edit, index, length int
	newText             string
}

// findText is pi's fuzzyFindText.
func findText(content, old string) (idx, length int, fuzzy bool) {
	if i := strings.Index(content, old); i >= 0 {
		return i, len(old), false
	}
	fc, fo := NormalizeFuzzy(content), NormalizeFuzzy(old)
	if i := strings.Index(fc, fo); i >= 0 {
		return i, len(fo), true
	}
	return -1, 0, false
}

// applyEdits is pi's applyEditsToNormalizedContent, with pi's error texts.
func applyEdits(content string, edits []editPair, path string) (string, string, error) {
	n := len(edits)
	norm := make([]editPair, n)
	for i, e := range edits {
		norm[i] = editPair{toolkit.NormalizeLF(e.OldText), toolkit.NormalizeLF(e.NewText)}
		if norm[i].OldText == "" {
			if n == 1 {
				return "", "", fmt.Errorf("oldText must not be empty in %s.", path)
			}
			return "", "", fmt.Errorf("edits[%d].oldText must not be empty in %s.", i, path)
		}
	}
	usedFuzzy := false
	for _, e := range norm {
		if _, _, f := findText(content, e.OldText); f {
			usedFuzzy = true
		}
	}
	base := content
	if usedFuzzy {
		base = NormalizeFuzzy(content)
	}
	var ms []match
	fuzzyBase := NormalizeFuzzy(base) // pi counts occurrences in fuzzy space, even for exact matches
	for i, e := range norm {
		idx, length, _ := findText(base, e.OldText)
		if idx < 0 {
			if n == 1 {
				return "", "", fmt.Errorf("Could not find the exact text in %s. The old text must match exactly including all whitespace and newlines.", path)
			}
			return "", "", fmt.Errorf("Could not find edits[%d] in %s. The oldText must match exactly including all whitespace and newlines.", i, path)
		}
		if occ := strings.Count(fuzzyBase, NormalizeFuzzy(e.OldText)); occ > 1 {
			if n == 1 {
				return "", "", fmt.Errorf("Found %d occurrences of the text in %s. The text must be unique. Please provide more context to make it unique.", occ, path)
			}
			return "", "", fmt.Errorf("Found %d occurrences of edits[%d] in %s. Each oldText must be unique. Please provide more context to make it unique.", occ, i, path)
		}
		ms = append(ms, match{edit: i, index: idx, length: length, newText: e.NewText})
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].index < ms[j].index })
	for i := 1; i < len(ms); i++ {
		if p := ms[i-1]; p.index+p.length > ms[i].index {
			return "", "", fmt.Errorf("edits[%d] and edits[%d] overlap in %s. Merge them into one edit or target disjoint regions.", p.edit, ms[i].edit, path)
		}
	}
	var updated string
	if usedFuzzy {
		var err error
		if updated, err = replacePreservingLines(content, base, ms); err != nil {
			return "", "", err
		}
	} else {
		updated = replaceAll(base, ms, 0)
	}
	if updated == content {
		if n == 1 {
			return "", "", fmt.Errorf("No changes made to %s. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.", path)
		}
		return "", "", fmt.Errorf("No changes made to %s. The replacements produced identical content.", path)
	}
	return content, updated, nil
}

// replaceAll applies sorted, disjoint matches (offsets relative to offset) in one pass.
func replaceAll(s string, ms []match, offset int) string {
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, m := range ms {
		i := m.index - offset
		b.WriteString(s[at:i])
		b.WriteString(m.newText)
		at = i + m.length
	}
	b.WriteString(s[at:])
	return b.String()
}

type span struct{ start, end int }

func lineSpans(s string) []span {
	var out []span
	for at := 0; at < len(s); {
		i := strings.IndexByte(s[at:], '\n')
		end := len(s)
		if i >= 0 {
			end = at + i + 1
		}
		out = append(out, span{at, end})
		at = end
	}
	return out
}

// replacePreservingLines is pi's applyReplacementsPreservingUnchangedLines: the lines a fuzzy
// match touches come from the normalised text, every other line keeps its original bytes.
func replacePreservingLines(original, base string, ms []match) (string, error) {
	orig, bl := lineSpans(original), lineSpans(base)
	if len(orig) != len(bl) {
		return "", errors.New("Cannot preserve unchanged lines because the base content has a different line count.")
	}
	type group struct {
		start, end int
		ms         []match
	}
	var groups []*group
	for _, m := range ms {
		startLine := -1
		for i, l := range bl {
			if m.index >= l.start && m.index < l.end {
				startLine = i
				break
			}
		}
		if startLine < 0 {
			return "", errors.New("Replacement range is outside the base content.")
		}
		endLine := startLine
		for endLine < len(bl) && bl[endLine].end < m.index+m.length {
			endLine++
		}
		if endLine >= len(bl) {
			return "", errors.New("Replacement range is outside the base content.")
		}
		if len(groups) > 0 && startLine < groups[len(groups)-1].end {
			g := groups[len(groups)-1]
			g.end = max(g.end, endLine+1)
			g.ms = append(g.ms, m)
			continue
		}
		groups = append(groups, &group{startLine, endLine + 1, []match{m}})
	}
	var b strings.Builder
	line := 0
	for _, g := range groups {
		for ; line < g.start; line++ {
			b.WriteString(original[orig[line].start:orig[line].end])
		}
		from, to := bl[g.start].start, bl[g.end-1].end
		b.WriteString(replaceAll(base[from:to], g.ms, from))
		line = g.end
	}
	for ; line < len(orig); line++ {
		b.WriteString(original[orig[line].start:orig[line].end])
	}
	return b.String(), nil
}
