package toolkit

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The opencode edit engine's model-visible errors.
var (
	ErrEditIdentical = errors.New("No changes to apply: oldString and newString are identical.")
	ErrEditEmptyOld  = errors.New("oldString cannot be empty when editing an existing file. Provide the exact text to replace, or use write for an intentional full-file replacement.")
	errEditTooLarge  = errors.New("Refusing replacement because the matched span is much larger than oldString. Re-read the file and provide the full exact oldString for the intended replacement.")
	errEditNotFound  = errors.New("Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.")
	errEditMultiple  = errors.New("Found multiple matches for oldString. Provide more surrounding context to make the match unique.")
)

// similarityThreshold is BlockAnchor's minimum similarity of the middle
// lines, for one candidate block and for the best of several.
const similarityThreshold = 0.65

// matcher yields candidate spans of content for find; yield returns false
// to stop early.
type matcher struct {
	name string
	run  func(content, find string, yield func(string) bool)
}

// Matchers is the opencode matcher order of the seed README (the code's
// EscapeNormalized matcher is left out on purpose: it corrupts legitimate
// escapes).
var matchers = []matcher{
	{"Simple", simpleMatcher},
	{"LineTrimmed", lineTrimmedMatcher},
	{"BlockAnchor", blockAnchorMatcher},
	{"WhitespaceNormalized", whitespaceNormalizedMatcher},
	{"IndentationFlexible", indentationFlexibleMatcher},
	{"TrimmedBoundary", trimmedBoundaryMatcher},
	{"ContextAware", contextAwareMatcher},
	{"MultiOccurrence", multiOccurrenceMatcher},
}

// MatcherNames lists the opencode edit matchers in the order they are tried.
func MatcherNames() []string {
	out := make([]string, len(matchers))
	for i, m := range matchers {
		out[i] = m.name
	}
	return out
}

// JsSpace reports whether r is whitespace for JavaScript's trim() and \s.
func JsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// JsTrim is String.prototype.trim.
func JsTrim(s string) string { return strings.TrimFunc(s, JsSpace) }

// Utf16Len is a JavaScript string's length: UTF-16 code units (an invalid
// byte counts as the one U+FFFD it would decode to).
func Utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// lineStarts returns the byte offset of every line of strings.Split(s, "\n").
func lineStarts(lines []string) []int {
	starts := make([]int, len(lines)+1)
	off := 0
	for i, l := range lines {
		starts[i] = off
		off += len(l) + 1
	}
	starts[len(lines)] = off
	return starts
}

// lineSpan returns the text of lines [from, to] (inclusive) of content.
func lineSpan(content string, lines []string, starts []int, from, to int) string {
	if to < from {
		return content[starts[from]:starts[from]]
	}
	return content[starts[from] : starts[to]+len(lines[to])]
}

func simpleMatcher(_, find string, yield func(string) bool) { yield(find) }

func lineTrimmedMatcher(content, find string, yield func(string) bool) {
	orig := strings.Split(content, "\n")
	search := strings.Split(find, "\n")
	if search[len(search)-1] == "" {
		search = search[:len(search)-1]
	}
	starts := lineStarts(orig)
	trimmed := make([]string, len(search))
	for j, s := range search {
		trimmed[j] = JsTrim(s)
	}
	for i := 0; i <= len(orig)-len(search); i++ {
		ok := true
		for j := range search {
			if JsTrim(orig[i+j]) != trimmed[j] {
				ok = false
				break
			}
		}
		if ok && !yield(lineSpan(content, orig, starts, i, i+len(search)-1)) {
			return
		}
	}
}

// levenshtein is the edit distance of two strings in UTF-16 code units.
func levenshtein(a, b string) int {
	if a == "" || b == "" {
		return max(Utf16Len(a), Utf16Len(b))
	}
	x, y := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(y)]
}

func blockAnchorMatcher(content, find string, yield func(string) bool) {
	orig := strings.Split(content, "\n")
	search := strings.Split(find, "\n")
	if len(search) < 3 {
		return
	}
	if search[len(search)-1] == "" {
		search = search[:len(search)-1]
	}
	first, last := JsTrim(search[0]), JsTrim(search[len(search)-1])
	size := len(search)
	maxDelta := max(1, size/4)
	type block struct{ start, end int }
	var cands []block
	for i := range orig {
		if JsTrim(orig[i]) != first {
			continue
		}
		for j := i + 2; j < len(orig); j++ {
			if JsTrim(orig[j]) == last {
				if d := j - i + 1 - size; d <= maxDelta && -d <= maxDelta {
					cands = append(cands, block{i, j})
				}
				break
			}
		}
	}
	if len(cands) == 0 {
		return
	}
	starts := lineStarts(orig)
	lineSim := func(c block, j int) (float64, bool) {
		o, s := JsTrim(orig[c.start+j]), JsTrim(search[j])
		maxLen := max(Utf16Len(o), Utf16Len(s))
		if maxLen == 0 {
			return 0, false
		}
		return 1 - float64(levenshtein(o, s))/float64(maxLen), true
	}
	if len(cands) == 1 {
		c := cands[0]
		actual := c.end - c.start + 1
		sim := 0.0
		check := min(size-2, actual-2)
		if check > 0 {
			for j := 1; j < size-1 && j < actual-1; j++ {
				v, ok := lineSim(c, j)
				if !ok {
					continue
				}
				sim += v / float64(check)
				if sim >= similarityThreshold {
					break
				}
			}
		} else {
			sim = 1
		}
		if sim >= similarityThreshold {
			yield(lineSpan(content, orig, starts, c.start, c.end))
		}
		return
	}
	best, bestSim := -1, -1.0
	for k, c := range cands {
		actual := c.end - c.start + 1
		sim := 0.0
		check := min(size-2, actual-2)
		if check > 0 {
			for j := 1; j < size-1 && j < actual-1; j++ {
				if v, ok := lineSim(c, j); ok {
					sim += v
				}
			}
			sim /= float64(check)
		} else {
			sim = 1
		}
		if sim > bestSim {
			best, bestSim = k, sim
		}
	}
	if best >= 0 && bestSim >= similarityThreshold {
		yield(lineSpan(content, orig, starts, cands[best].start, cands[best].end))
	}
}

// jsSpaceClass is JavaScript's \s as an RE2 character class.
const jsSpaceClass = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`

// normalizeWhitespace collapses every run of whitespace to one space and
// trims.
func normalizeWhitespace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inSpace := false
	for _, r := range s {
		if JsSpace(r) {
			inSpace = true
			continue
		}
		if inSpace && b.Len() > 0 {
			b.WriteByte(' ')
		}
		inSpace = false
		b.WriteRune(r)
	}
	return b.String()
}

// jsWords is find.trim().split(/\s+/): [""] for blank text.
func jsWords(s string) []string {
	words := strings.FieldsFunc(s, JsSpace)
	if len(words) == 0 {
		return []string{""}
	}
	return words
}

func whitespaceNormalizedMatcher(content, find string, yield func(string) bool) {
	norm := normalizeWhitespace(find)
	lines := strings.Split(content, "\n")
	var re *regexp.Regexp
	reBad := false
	// Every text whose normalised form equals or contains norm contains
	// find's first word as it is: lines without it are skipped unread.
	first := jsWords(find)[0]
	for _, line := range lines {
		if !strings.Contains(line, first) {
			continue
		}
		nl := normalizeWhitespace(line)
		if nl == norm {
			if !yield(line) {
				return
			}
			continue
		}
		if !strings.Contains(nl, norm) {
			continue
		}
		if re == nil && !reBad {
			words := jsWords(find)
			for i, w := range words {
				words[i] = regexp.QuoteMeta(w)
			}
			var err error
			// Invalid UTF-8 in find cannot be compiled; the seed skips a
			// pattern it cannot build.
			if re, err = regexp.Compile(strings.Join(words, jsSpaceClass+"+")); err != nil {
				reBad = true
			}
		}
		if reBad {
			continue
		}
		if loc := re.FindStringIndex(line); loc != nil {
			if !yield(line[loc[0]:loc[1]]) {
				return
			}
		}
	}
	n := strings.Count(find, "\n") + 1
	if n > 1 {
		starts := lineStarts(lines)
		for i := 0; i <= len(lines)-n; i++ {
			block := lineSpan(content, lines, starts, i, i+n-1)
			if strings.Contains(block, first) && normalizeWhitespace(block) == norm && !yield(block) {
				return
			}
		}
	}
}

// leadingSpaces counts the whitespace characters a line starts with.
func leadingSpaces(line string) int {
	n := 0
	for _, r := range line {
		if !JsSpace(r) {
			break
		}
		n++
	}
	return n
}

// removeIndentation removes the smallest indentation of the non-blank
// lines from every non-blank line.
func removeIndentation(text string) string {
	lines := strings.Split(text, "\n")
	minIndent := -1
	for _, l := range lines {
		if JsTrim(l) == "" {
			continue
		}
		if n := leadingSpaces(l); minIndent < 0 || n < minIndent {
			minIndent = n
		}
	}
	if minIndent <= 0 {
		return text
	}
	for i, l := range lines {
		if JsTrim(l) == "" {
			continue
		}
		cut := 0
		for k := 0; k < minIndent; k++ {
			_, w := utf8.DecodeRuneInString(l[cut:])
			cut += w
		}
		lines[i] = l[cut:]
	}
	return strings.Join(lines, "\n")
}

func indentationFlexibleMatcher(content, find string, yield func(string) bool) {
	norm := removeIndentation(find)
	lines := strings.Split(content, "\n")
	n := strings.Count(find, "\n") + 1
	starts := lineStarts(lines)
	// A matching block holds find's first non-blank line without its
	// indentation: blocks without it are skipped unread.
	needle := ""
	for _, l := range strings.Split(find, "\n") {
		if JsTrim(l) != "" {
			needle = strings.TrimLeftFunc(l, JsSpace)
			break
		}
	}
	for i := 0; i <= len(lines)-n; i++ {
		block := lineSpan(content, lines, starts, i, i+n-1)
		if strings.Contains(block, needle) && removeIndentation(block) == norm && !yield(block) {
			return
		}
	}
}

func trimmedBoundaryMatcher(content, find string, yield func(string) bool) {
	t := JsTrim(find)
	if t == find {
		return
	}
	if strings.Contains(content, t) && !yield(t) {
		return
	}
	lines := strings.Split(content, "\n")
	n := strings.Count(find, "\n") + 1
	starts := lineStarts(lines)
	for i := 0; i <= len(lines)-n; i++ {
		block := lineSpan(content, lines, starts, i, i+n-1)
		if JsTrim(block) == t && !yield(block) {
			return
		}
	}
}

func contextAwareMatcher(content, find string, yield func(string) bool) {
	fl := strings.Split(find, "\n")
	if len(fl) < 3 {
		return
	}
	if fl[len(fl)-1] == "" {
		fl = fl[:len(fl)-1]
	}
	lines := strings.Split(content, "\n")
	starts := lineStarts(lines)
	first, last := JsTrim(fl[0]), JsTrim(fl[len(fl)-1])
	for i := range lines {
		if JsTrim(lines[i]) != first {
			continue
		}
		for j := i + 2; j < len(lines); j++ {
			if JsTrim(lines[j]) != last {
				continue
			}
			if j-i+1 == len(fl) {
				matching, nonEmpty := 0, 0
				for k := 1; k < len(fl)-1; k++ {
					b, f := JsTrim(lines[i+k]), JsTrim(fl[k])
					if b != "" || f != "" {
						nonEmpty++
						if b == f {
							matching++
						}
					}
				}
				if nonEmpty == 0 || float64(matching)/float64(nonEmpty) >= 0.5 {
					if !yield(lineSpan(content, lines, starts, i, j)) {
						return
					}
				}
			}
			break
		}
	}
}

func multiOccurrenceMatcher(content, find string, yield func(string) bool) {
	start := 0
	for {
		i := strings.Index(content[start:], find)
		if i < 0 {
			return
		}
		if !yield(find) {
			return
		}
		start += i + len(find)
		if find == "" {
			// JavaScript's indexOf("", n) finds n forever; one yield is all
			// the engine can use.
			return
		}
	}
}

// disproportionate reports a candidate span much larger than oldString.
func disproportionate(search, old string) bool {
	oldLines := strings.Count(old, "\n") + 1
	searchLines := strings.Count(search, "\n") + 1
	if searchLines >= max(oldLines+3, oldLines*2) {
		return true
	}
	if oldLines == 1 {
		return false
	}
	ol := Utf16Len(JsTrim(old))
	return Utf16Len(JsTrim(search)) > max(ol+500, ol*4)
}

// jsReplaceAll is String.prototype.replaceAll with a string pattern and a
// string replacement: `$$`, `$&`, "$`" and `$'` are interpreted, anything
// else after `$` is literal.
func jsReplaceAll(content, search, repl string) string {
	if !strings.Contains(repl, "$") {
		return strings.ReplaceAll(content, search, repl)
	}
	var b strings.Builder
	pos := 0
	emit := func(at int) {
		for i := 0; i < len(repl); i++ {
			c := repl[i]
			if c != '$' || i+1 == len(repl) {
				b.WriteByte(c)
				continue
			}
			switch repl[i+1] {
			case '$':
				b.WriteByte('$')
			case '&':
				b.WriteString(search)
			case '`':
				b.WriteString(content[:at])
			case '\'':
				b.WriteString(content[at+len(search):])
			default:
				b.WriteByte('$')
				continue
			}
			i++
		}
	}
	if search == "" {
		for at := 0; ; {
			emit(at)
			if at == len(content) {
				break
			}
			_, w := utf8.DecodeRuneInString(content[at:])
			b.WriteString(content[at : at+w])
			at += w
		}
		return b.String()
	}
	for {
		i := strings.Index(content[pos:], search)
		if i < 0 {
			break
		}
		at := pos + i
		b.WriteString(content[pos:at])
		emit(at)
		pos = at + len(search)
	}
	b.WriteString(content[pos:])
	return b.String()
}

// Replace is the opencode edit engine: oldString and newString must use
// content's line endings already (see ApplyEdit). It returns the new
// content and the name of the matcher whose candidate was used, or the
// model-visible error.
func Replace(content, oldString, newString string, replaceAll bool) (string, string, error) {
	if oldString == newString {
		return "", "", ErrEditIdentical
	}
	if oldString == "" {
		return "", "", ErrEditEmptyOld
	}
	notFound := true
	var (
		out, used string
		err       error
		done      bool
	)
	for _, m := range matchers {
		m.run(content, oldString, func(search string) bool {
			index := strings.Index(content, search)
			if index < 0 {
				return true
			}
			notFound = false
			if disproportionate(search, oldString) {
				err, done = errEditTooLarge, true
				return false
			}
			if replaceAll {
				out, used, done = jsReplaceAll(content, search, newString), m.name, true
				return false
			}
			if index != strings.LastIndex(content, search) {
				return true
			}
			out, used, done = content[:index]+newString+content[index+len(search):], m.name, true
			return false
		})
		if done {
			return out, used, err
		}
	}
	if notFound {
		return "", "", errEditNotFound
	}
	return "", "", errEditMultiple
}

// Bom is the UTF-8 byte order mark.
const Bom = "\uFEFF"

// StripBOM splits a leading byte order mark off s.
func StripBOM(s string) (string, string) {
	if strings.HasPrefix(s, Bom) {
		return Bom, s[len(Bom):]
	}
	return "", s
}

// AppliedEdit is an opencode edit computed in memory.
type AppliedEdit struct {
	// Old is the file's text without its BOM, line endings as on disk.
	Old string
	// New is the edited text without a BOM.
	New string
	// Final is what gets written: the BOM of the file (or else of the
	// edited text) followed by New.
	Final string
	// Matcher names the matcher that found the span.
	Matcher string
}

// ApplyEdit is opencode's edit: strip the BOM, convert oldString and
// newString to the file's line ending (any CRLF means CRLF), replace on
// the original text, and keep the BOM of the source or else of the result.
// The write guard's preview uses the same function, so the approved diff is
// what gets written.
func ApplyEdit(raw, oldString, newString string, replaceAll bool) (AppliedEdit, error) {
	srcBOM, old := StripBOM(raw)
	crlf := strings.Contains(old, "\r\n")
	conv := func(s string) string {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		if crlf {
			s = strings.ReplaceAll(s, "\n", "\r\n")
		}
		return s
	}
	replaced, used, err := Replace(old, conv(oldString), conv(newString), replaceAll)
	if err != nil {
		return AppliedEdit{}, err
	}
	nextBOM, text := StripBOM(replaced)
	b := srcBOM
	if b == "" {
		b = nextBOM
	}
	return AppliedEdit{Old: old, New: text, Final: b + text, Matcher: used}, nil
}

// ExactEdit is claude-code's Edit on non-empty old_string: an exact match
// on CRLF-normalised text (old_string needs no \r), the trailing-newline
// deletion rule, a literal replacement, and the dominant line ending
// restored (CRLF when CRLF pairs outnumber lone LFs).
func ExactEdit(original, oldString, newString string, replaceAll bool) (string, error) {
	crlf := strings.Count(original, "\r\n")
	lf := strings.Count(original, "\n") - crlf
	normalized := strings.ReplaceAll(original, "\r\n", "\n")
	n := strings.Count(normalized, oldString)
	if oldString == "" {
		n = 0
	}
	if n == 0 {
		return "", errors.New("String to replace not found in file.\nString: " + oldString)
	}
	if !replaceAll && n > 1 {
		return "", errors.New("Found " + strconv.Itoa(n) + " matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: " + oldString)
	}
	search := oldString
	if newString == "" && !strings.HasSuffix(oldString, "\n") && strings.Contains(normalized, oldString+"\n") {
		search = oldString + "\n"
	}
	var updated string
	if replaceAll {
		updated = strings.ReplaceAll(normalized, search, newString)
	} else {
		updated = strings.Replace(normalized, search, newString, 1)
	}
	if crlf > lf {
		updated = strings.ReplaceAll(updated, "\n", "\r\n")
	}
	return updated, nil
}
