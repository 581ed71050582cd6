// Package validate checks a position-keeping document (a jsonc.Node tree from a JSONC file or a
// Markdown frontmatter) against one definition of pigo's schema and reports every problem as a
// diagnostic at the user's own line and column.
//
// The schema is schema/*.cue, but this package does not link CUE: it walks tables compiled
// from the CUE schema (schema_gen.go, generated and kept in step by internal/cueschema's tests,
// which also check that this walker reports exactly what a walk of the CUE values reports, on
// every corpus file and on values probing every constraint). CUE's package initialisation
// alone cost every pigo process several milliseconds; the tables cost nothing until used.
//
// It walks the document and the schema together: object keys are looked up in the schema (so an
// unknown key is found at any depth, with a "did you mean"), required fields are checked on their
// own, and each scalar is checked against its field's constraint, with CUE's wording translated
// as internal/cueschema translates it.
package validate

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Kind is a set of JSON kinds.
type Kind uint8

// The kinds.
const (
	Null Kind = 1 << iota
	Bool
	Int
	Float
	String
	List
	Struct

	Number = Int | Float
	Top    = Null | Bool | Int | Float | String | List | Struct
)

// node is one place of the schema: what a value there may be.
type node struct {
	// kind is what the place accepts (the kind check); describe names it for the message.
	kind     Kind
	describe string
	// top: `_`, anything goes and nothing below is checked.
	top bool
	// plain: the constraint is exactly this bare type, so the kind check was the whole check.
	plain Kind
	// lits: the constraint is an enum of these literals (JSON texts, in order).
	lits []string
	// alts: otherwise the constraint is this disjunction (empty: any value of the kind).
	alts []alt
	// structs are the struct branches (indexes into structs); list the list's (-1: none).
	structs []int32
	list    int32
	// merge is the field's @merge rule ("" for the default).
	merge string
}

// structNode is one struct of the schema.
type structNode struct {
	// top: the struct is `_` (any members, unchecked).
	top bool
	// names are the declared fields in schema order, fields their nodes.
	names  []string
	fields []int32
	// required are the fields that must be present.
	required []string
	// owned: a section only pigo reads (@pigo(owned)).
	owned bool
	// pattern is the node of undeclared keys that patternRe matches ("" matches every key);
	// -1 when undeclared keys are not allowed.
	pattern   int32
	patternRe string
}

// listNode is one list of the schema.
type listNode struct {
	top bool
	// elem is the node of every element (-1: none, see tuple).
	elem int32
	// tuple are the nodes of the first elements when there is no elem.
	tuple []int32
	// nonEmpty: an empty list is an error ("must not be empty").
	nonEmpty bool
}

// alt is one branch of a scalar constraint: a value of one of its kinds for which every atom
// holds, or exactly its literal.
type alt struct {
	kind Kind
	// lit is a literal branch (JSON text) and litKind its kind; "" when the branch is none.
	lit     string
	litKind Kind
	// name is the branch's type as CUE names it in a conflict ("int", "string", "number").
	name  string
	atoms []atom
}

// atom is one bound or pattern of a branch.
type atom struct {
	// op is >=, <=, >, <, !=, =~ or !~; num or str its operand (isStr for a string one).
	op    string
	num   int64
	str   string
	isStr bool
	// text is the bound as CUE writes it in a message (">=1", `=~"^x$"`).
	text string
}

// def names a definition's node.
type def struct {
	name string
	node int32
}

// Schema is the compiled schema. It is safe for concurrent use.
type Schema struct{}

var loaded = &Schema{}

// Load returns the schema. It cannot fail: the tables are part of the binary (the error is
// kept for the callers written when the schema was compiled at run time).
func Load() (*Schema, error) { return loaded, nil }

// defNode finds a definition (with its leading '#').
func defNode(name string) (int32, bool) {
	i := sort.Search(len(defs), func(i int) bool { return defs[i].name >= name })
	if i < len(defs) && defs[i].name == name {
		return defs[i].node, true
	}
	return 0, false
}

// Definitions lists the schema's definitions.
func (s *Schema) Definitions() []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.name
	}
	return out
}

var (
	reMu    sync.Mutex
	reCache map[string]*regexp.Regexp
)

// re compiles a pattern of the schema once (CUE patterns are RE2, as Go's).
func re(p string) *regexp.Regexp {
	reMu.Lock()
	defer reMu.Unlock()
	r, ok := reCache[p]
	if !ok {
		if reCache == nil {
			reCache = map[string]*regexp.Regexp{}
		}
		r = regexp.MustCompile(p)
		reCache[p] = r
	}
	return r
}

// matches reports whether s matches the schema's pattern p. The schema's own patterns are
// matched by hand (knownPatterns): compiling them with regexp was ~0.5% of `pigo tools`
// (docs/decisions/25-speed.md, D25.31); any other pattern goes through re.
func matches(p, s string) bool {
	if m := knownPattern(p); m != nil {
		return m(s)
	}
	return re(p).MatchString(s)
}

// knownPattern returns the hand-written matcher of a pattern of schema_gen.go, or nil.
// TestKnownPatternsAsRegexp holds each equal to regexp's MatchString.
func knownPattern(p string) func(string) bool {
	switch p {
	case `^[^$]`:
		return func(s string) bool { return s != "" && s[0] != '$' }
	case `^[a-z0-9]+(-[a-z0-9]+)*$`:
		return func(s string) bool {
			if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
				return false
			}
			for i := 0; i < len(s); i++ {
				c := s[i]
				if c == '-' {
					if s[i-1] == '-' {
						return false
					}
				} else if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
					return false
				}
			}
			return true
		}
	case `^[A-Za-z][A-Za-z0-9_.:-]*$`:
		return func(s string) bool { return s != "" && isLetter(s[0]) && allIn(s[1:], "_.:-") }
	case `^[A-Za-z0-9][A-Za-z0-9_.:-]*$`:
		return func(s string) bool { return s != "" && isAlnum(s[0]) && allIn(s[1:], "_.:-") }
	case `^[A-Za-z][A-Za-z0-9_-]*(/[A-Za-z][A-Za-z0-9_-]*)*$`:
		return func(s string) bool {
			for {
				seg, rest, more := strings.Cut(s, "/")
				if seg == "" || !isLetter(seg[0]) || !allIn(seg[1:], "_-") {
					return false
				}
				if !more {
					return true
				}
				s = rest
			}
		}
	}
	return nil
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isAlnum(c byte) bool { return isLetter(c) || '0' <= c && c <= '9' }

// allIn reports whether every byte of s is an ASCII letter, digit or one of extra.
func allIn(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && strings.IndexByte(extra, s[i]) < 0 {
			return false
		}
	}
	return true
}
