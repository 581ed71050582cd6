package validate

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// Check validates root against the definition def (e.g. "#Settings") and returns the problems.
func (s *Schema) Check(src *diag.Source, root *jsonc.Node, def string, opt Options) diag.List {
	w := &walker{src: src, opt: opt}
	w.at = w.buf[:0]
	n, ok := defNode(def)
	if !ok {
		w.add(diag.FileSpan(src), diag.Error, "internal", "", fmt.Sprintf("schema has no definition %s", def), "")
		return w.out
	}
	w.check(root, n, true)
	return w.out
}

type walker struct {
	src *diag.Source
	opt Options
	out diag.List
	// owned is true inside a section only pigo reads.
	owned bool
	// at is the path of the value being checked (see path); buf holds it while it is short.
	at  []pathElem
	buf [16]pathElem
}

func (w *walker) add(sp diag.Span, sev diag.Severity, code, path, msg, hint string) {
	d := w.out.Add(sp, sev, code, path, msg)
	d.Hint = hint
}

func (w *walker) span(n *jsonc.Node) diag.Span { return diag.At(w.src, n.Start, n.End) }

// pathElem is one step from the root to a value: a member's key, or an element's index.
type pathElem struct {
	key string // when idx < 0
	idx int
}

func (w *walker) push(e pathElem) { w.at = append(w.at, e) }
func (w *walker) pop()            { w.at = w.at[:len(w.at)-1] }

// path is the path of the value being checked as the eager walk built it: PathKey of each key,
// `[i]` appended to the last element (IndexPath), joined by JoinPath. The walk keeps only the
// steps (w.at) and writes the path for a diagnostic: building every member's and element's path
// as it went was half of a settings file's check (D25.35).
func (w *walker) path() string {
	var els []string
	for _, e := range w.at {
		if e.idx < 0 {
			els = append(els, PathKey(e.key))
		} else {
			els = IndexPath(els, e.idx)
		}
	}
	return JoinPath(els)
}

func (w *walker) check(n *jsonc.Node, i int32, top bool) {
	sch := &nodes[i]
	if !acceptsKind(sch.kind, kindOf(n)) {
		p := w.path()
		w.add(w.span(n), diag.Error, "schema", p, Prefix(p)+"expected "+sch.describe+", got "+DescribeNode(n), "")
		return
	}
	switch n.Kind {
	case jsonc.Object:
		if sch.top {
			return
		}
		w.object(n, structOf(sch, n), top)
	case jsonc.Array:
		if sch.top || sch.list < 0 {
			return
		}
		w.array(n, &lists[sch.list])
	default:
		w.scalar(n, sch)
	}
}

// kindOf is the kind of a document value (a number written with a fraction or an exponent is a
// float, as CUE reads it).
func kindOf(n *jsonc.Node) Kind {
	switch n.Kind {
	case jsonc.Null:
		return Null
	case jsonc.Bool:
		return Bool
	case jsonc.Number:
		if IsInt(n.Num) {
			return Int
		}
		return Float
	case jsonc.String:
		return String
	case jsonc.Array:
		return List
	}
	return Struct
}

func acceptsKind(ik, k Kind) bool {
	if k == Int && ik&Number != 0 {
		return true
	}
	return ik&k != 0
}

// structOf picks the struct branch for an object: the one that knows the most of its keys (the
// first of those), as the CUE walker chooses among a disjunction's structs.
func structOf(sch *node, n *jsonc.Node) *structNode {
	if len(sch.structs) == 1 {
		return &structs[sch.structs[0]]
	}
	var best *structNode
	score := -1
	for _, si := range sch.structs {
		st := &structs[si]
		sc := 0
		for _, m := range n.Members {
			if st.allows(m.Key) {
				sc++
			}
		}
		if sc > score {
			best, score = st, sc
		}
	}
	return best
}

// allows reports whether the struct takes a member named key.
func (st *structNode) allows(key string) bool {
	if st.top || slices.Contains(st.names, key) {
		return true
	}
	return st.pattern >= 0 && (st.patternRe == "" || matches(st.patternRe, key))
}

// field is the node of an allowed member (-1: none to check).
func (st *structNode) field(key string) int32 {
	if i := slices.Index(st.names, key); i >= 0 {
		return st.fields[i]
	}
	if st.pattern >= 0 && (st.patternRe == "" || matches(st.patternRe, key)) {
		return st.pattern
	}
	return -1
}

// smallObject is the most members an object's keys are compared pairwise for duplicates and
// required fields; a larger one (a hostile file's thousands) indexes them in a map.
const smallObject = 16

func (w *walker) object(n *jsonc.Node, st *structNode, top bool) {
	if st == nil || st.top {
		return // `_`: anything goes
	}
	outer := w.owned
	w.owned = w.owned || st.owned
	defer func() { w.owned = outer }()
	// skipped: a member left out by Options.Skip (at the top only); it counts as absent.
	skipped := func(key string) bool { return top && slices.Contains(w.opt.Skip, key) }
	// seen indexes the members by key (the last of each) in a large object; a small one looks
	// back through its members instead, with the same answers.
	var seen map[string]int
	if len(n.Members) > smallObject {
		seen = make(map[string]int, len(n.Members))
	}
	for i := range n.Members {
		m := &n.Members[i]
		if skipped(m.Key) {
			continue
		}
		w.push(pathElem{key: m.Key, idx: -1})
		j, dup := -1, false
		if seen != nil {
			j, dup = seen[m.Key]
			seen[m.Key] = i
		} else {
			// The last earlier member with this key (a skipped key is skipped at every
			// occurrence, so no earlier member of the same key was skipped).
			for k := i - 1; k >= 0; k-- {
				if n.Members[k].Key == m.Key {
					j, dup = k, true
					break
				}
			}
		}
		if dup {
			w.add(diag.At(w.src, m.KeyStart, m.KeyEnd), diag.Warning, "duplicate-key", w.path(), fmt.Sprintf("duplicate key %q: this value replaces the one on line %d", m.Key, Line(w.src, n.Members[j].KeyStart)), "")
		}
		if !st.allows(m.Key) {
			w.unknown(diag.At(w.src, m.KeyStart, m.KeyEnd), m.Key, w.path(), st)
		} else if child := st.field(m.Key); child >= 0 {
			w.check(m.Value, child, false)
		}
		w.pop()
	}
	for _, r := range st.required {
		present := false
		if seen != nil {
			_, present = seen[r]
		} else if !skipped(r) {
			present = slices.ContainsFunc(n.Members, func(m jsonc.Member) bool { return m.Key == r })
		}
		if !present {
			prefix := Prefix(w.path())
			w.push(pathElem{key: r, idx: -1})
			w.add(diag.At(w.src, n.Start, n.Start+1), diag.Error, "schema", w.path(), fmt.Sprintf("%smissing required field %q", prefix, r), "")
			w.pop()
		}
	}
}

func (w *walker) unknown(sp diag.Span, key, p string, st *structNode) {
	sugg := Suggest(key, st.names)
	sev := diag.Info
	switch {
	case w.opt.Mode == Declaration:
		sev = diag.Error
	case sugg != "" || w.owned:
		sev = diag.Warning
	}
	hint := ""
	if sugg != "" {
		hint = fmt.Sprintf("did you mean %q?", sugg)
	}
	msg := fmt.Sprintf("unknown field %q", key)
	if sev == diag.Info {
		msg += " (not read by pigo; it may belong to another extension)"
	}
	w.add(sp, sev, "unknown-field", p, msg, hint)
}

func (w *walker) array(n *jsonc.Node, li *listNode) {
	if li.top {
		return
	}
	for i, e := range n.Elems {
		el := li.elem
		if el < 0 {
			// A tuple such as [string, int]: the element by index.
			if i >= len(li.tuple) {
				continue
			}
			el = li.tuple[i]
		}
		w.push(pathElem{idx: i})
		w.check(e, el, false)
		w.pop()
	}
	// Length constraints (such as [_, ...]) only show on the whole list.
	if len(n.Elems) == 0 && li.nonEmpty {
		p := w.path()
		w.add(w.span(n), diag.Error, "schema", p, Prefix(p)+"must not be empty", "")
	}
}

func (w *walker) scalar(n *jsonc.Node, sch *node) {
	if sch.plain != 0 && acceptsKind(sch.plain, kindOf(n)) {
		return // a bare type such as `string`: the kind check above was the whole check
	}
	v := valueOf(n)
	if sch.lits != nil {
		for _, l := range sch.lits {
			if v.equalsLiteral(l) {
				return
			}
		}
		hint := ""
		if n.Kind == jsonc.String {
			var names []string
			for _, l := range sch.lits {
				if s, err := strconv.Unquote(l); err == nil {
					names = append(names, s)
				}
			}
			if s := EnumSuggest(n.Str, names); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
		}
		p := w.path()
		w.add(w.span(n), diag.Error, "schema", p, Prefix(p)+"expected "+OrList(sch.lits)+", got "+DescribeNode(n), hint)
		return
	}
	if msg, ok := v.check(sch.alts, DescribeNode(n)); !ok {
		p := w.path()
		w.add(w.span(n), diag.Error, "schema", p, Prefix(p)+msg, "")
	}
}
