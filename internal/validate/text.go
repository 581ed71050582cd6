package validate

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// The wording both walkers share (this package's and internal/cueschema's reference one):
// paths, values as the user wrote them, kind names, lists and suggestions.

// Prefix is "path: " ("" at the top level).
func Prefix(p string) string {
	if p == "" {
		return ""
	}
	return p + ": "
}

// JoinPath writes a path of keys as pigo writes paths (a.b[0].c).
func JoinPath(path []string) string { return strings.Join(path, ".") }

// PathKey is a key as a path element: quoted when it holds a separator.
func PathKey(k string) string {
	if k == "" || strings.ContainsAny(k, ".[]\" ") {
		return strconv.Quote(k)
	}
	return k
}

// IndexPath appends element i to the last key of path.
func IndexPath(path []string, i int) []string {
	idx := "[" + strconv.Itoa(i) + "]"
	if len(path) == 0 {
		return []string{idx}
	}
	cp := append([]string(nil), path...)
	cp[len(cp)-1] += idx
	return cp
}

// Line is the line of a byte offset.
func Line(src *diag.Source, off int) int { l, _ := src.Position(off); return l }

// IsInt reports whether a JSON number is written as an integer.
func IsInt(num string) bool { return !strings.ContainsAny(num, ".eE") }

// MaxDigits bounds the integer literals given to math/big: math/big parses in quadratic time
// (a million digits took seconds); an integer this long is beyond every bound of the schema,
// as its first digits are.
const MaxDigits = 400

// DescribeNode is a value as the user wrote it, for messages (long ones cut).
func DescribeNode(n *jsonc.Node) string {
	switch n.Kind {
	case jsonc.String:
		s := n.Str
		if len(s) > 60 {
			s = s[:57] + "..."
		}
		return strconv.Quote(s)
	case jsonc.Number:
		if len(n.Num) > 60 {
			return n.Num[:57] + "..."
		}
		return n.Num
	case jsonc.Bool:
		return strconv.FormatBool(n.Bool)
	case jsonc.Null:
		return "null"
	case jsonc.Array:
		return "an array"
	}
	return "an object"
}

// OrList joins alternatives: "a", "a or b", "one of a, b, c".
func OrList(items []string) string {
	switch len(items) {
	case 0:
		return "nothing"
	case 1:
		return items[0]
	case 2:
		return items[0] + " or " + items[1]
	}
	return "one of " + strings.Join(items, ", ")
}

// Article names a CUE type as messages do ("int" → "an integer").
func Article(kind string) string {
	switch kind {
	case "int":
		return "an integer"
	case "float", "number":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "list":
		return "an array"
	case "struct":
		return "an object"
	case "null":
		return "null"
	}
	return kind
}

// Suggest returns the candidate closest to s when it is close enough to be a likely typo.
func Suggest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if c == s {
			continue
		}
		if strings.EqualFold(s, c) {
			best, bestD = c, 0
			continue
		}
		if n := utf8.RuneCountInString(s) - utf8.RuneCountInString(c); n > 3 || n < -3 {
			continue // farther than any limit below: skip the quadratic distance (40k unknown keys)
		}
		d := distance(strings.ToLower(s), strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	limit := 1
	if len(s) >= 5 {
		limit = 2
	}
	if len(s) >= 10 {
		limit = 3
	}
	if bestD <= limit {
		return best
	}
	return ""
}

// Distance is the case-insensitive edit distance Suggest uses (Levenshtein plus adjacent swaps).
func Distance(a, b string) int { return distance(strings.ToLower(a), strings.ToLower(b)) }

// distance is the optimal string alignment distance (Levenshtein plus adjacent swaps). It keeps
// three rows only, on the stack for the short strings keys are, since it runs for every unknown
// key against every known one.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	var buf [3][48]int
	var rows [3][]int
	for k := range rows {
		if len(rb)+1 <= len(buf[k]) {
			rows[k] = buf[k][:len(rb)+1]
		} else {
			rows[k] = make([]int, len(rb)+1)
		}
	}
	prev2, prev, cur := rows[0], rows[1], rows[2]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// EnumSuggest is Suggest for an enum value, which also accepts a unique prefix match either
// way ("open" → "opencode", "workspace" → "workspace-write"), the usual way such values are
// shortened.
func EnumSuggest(s string, candidates []string) string {
	if best := Suggest(s, candidates); best != "" {
		return best
	}
	if len(s) < 2 {
		return ""
	}
	ls, found := strings.ToLower(s), ""
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if strings.HasPrefix(lc, ls) || len(lc) >= 2 && strings.HasPrefix(ls, lc) {
			if found != "" {
				return "" // ambiguous
			}
			found = c
		}
	}
	return found
}
