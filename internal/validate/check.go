package validate

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// Mode says how unknown keys are judged.
type Mode int

const (
	// UserConfig is for files shared with other pi extensions (D15): an unknown key is a warning
	// when it is a near miss of a known key or sits inside a section only pigo reads (@pigo(owned)),
	// else an info.
	UserConfig Mode = iota
	// Declaration is for pigo's own declaration files (extensions, toolsets, commands): an unknown
	// key is an error.
	Declaration
)

// Options tunes one check.
type Options struct {
	Mode Mode
	// Skip lists top-level keys that must not be checked (already reported another way).
	Skip []string
}

// Check validates root against the definition def (e.g. "#Settings") and returns the problems.
func (s *Schema) Check(src *diag.Source, root *jsonc.Node, def string, opt Options) diag.List {
	v := s.Def(def)
	w := &walker{s: s, src: src, opt: opt}
	if err := v.Err(); err != nil {
		w.add(diag.FileSpan(src), diag.Error, "internal", "", fmt.Sprintf("schema has no definition %s", def), "")
		return w.out
	}
	w.check(root, v, nil, true)
	return w.out
}

type walker struct {
	s   *Schema
	src *diag.Source
	opt Options
	out diag.List
	// owned is true inside a section only pigo reads.
	owned bool
}

func (w *walker) add(sp diag.Span, sev diag.Severity, code, path, msg, hint string) {
	d := w.out.Add(sp, sev, code, path, msg)
	d.Hint = hint
}

func (w *walker) span(n *jsonc.Node) diag.Span { return diag.At(w.src, n.Start, n.End) }

func (w *walker) check(n *jsonc.Node, sch cue.Value, path []string, top bool) {
	p := joinPath(path)
	if !acceptsKind(schemaKind(sch), kindOf(n)) {
		w.add(w.span(n), diag.Error, "schema", p, prefix(p)+"expected "+describe(sch)+", got "+describeNode(n), "")
		return
	}
	switch n.Kind {
	case jsonc.Object:
		w.object(n, w.s.structOf(sch, n), path, top)
	case jsonc.Array:
		if sch.Err() == nil {
			sch = sch.Unify(w.s.emptyList)
		}
		w.array(n, sch, path)
	default:
		w.scalar(n, sch, p)
	}
}

func kindOf(n *jsonc.Node) cue.Kind {
	switch n.Kind {
	case jsonc.Null:
		return cue.NullKind
	case jsonc.Bool:
		return cue.BoolKind
	case jsonc.Number:
		if isInt(n.Num) {
			return cue.IntKind
		}
		return cue.FloatKind
	case jsonc.String:
		return cue.StringKind
	case jsonc.Array:
		return cue.ListKind
	}
	return cue.StructKind
}

// schemaKind is the kinds a constraint accepts. A constraint such as `[...string] &
// list.MinItems(1)` evaluates to bottom on its own (CUE takes the open list as the concrete empty
// list, which fails the validator); its kinds are then those its conjuncts agree on.
func schemaKind(sch cue.Value) cue.Kind {
	ik := sch.IncompleteKind()
	if ik != cue.BottomKind {
		return ik
	}
	op, args := sch.Expr()
	if len(args) == 0 {
		return ik
	}
	switch op {
	case cue.AndOp:
		k := cue.TopKind
		for _, a := range args {
			k &= schemaKind(a)
		}
		return k
	case cue.OrOp:
		k := cue.BottomKind
		for _, a := range args {
			k |= schemaKind(a)
		}
		return k
	}
	return ik
}

// listElem finds the element constraint of a list schema, looking through the conjuncts of
// a constraint that is bottom on its own (see schemaKind).
func listElem(sch cue.Value) cue.Value {
	if el := sch.LookupPath(cue.MakePath(cue.AnyIndex)); el.Exists() {
		return el
	}
	if op, args := sch.Expr(); op == cue.AndOp {
		for _, a := range args {
			if a.IncompleteKind() == cue.ListKind {
				if el := a.LookupPath(cue.MakePath(cue.AnyIndex)); el.Exists() {
					return el
				}
			}
		}
	}
	return cue.Value{}
}

func isInt(num string) bool { return !strings.ContainsAny(num, ".eE") }

func acceptsKind(ik, k cue.Kind) bool {
	if k == cue.IntKind && ik&cue.NumberKind != 0 {
		return true
	}
	return ik&k != 0
}

// alternatives flattens a disjunction into its branches.
func alternatives(v cue.Value) []cue.Value {
	op, args := v.Expr()
	if op == cue.SelectorOp {
		// A reference to a definition (fileIo: #FileIo) shows as a selector: look through it.
		op, args = v.Eval().Expr()
	}
	if op != cue.OrOp {
		return []cue.Value{v}
	}
	var out []cue.Value
	for _, a := range args {
		out = append(out, alternatives(a)...)
	}
	return out
}

// structOf narrows a constraint to its struct branch for an object node. With several struct
// branches it picks the one that knows the most of the object's keys.
func (s *Schema) structOf(sch cue.Value, n *jsonc.Node) cue.Value {
	if sch.IncompleteKind() == cue.TopKind {
		return sch
	}
	v := sch.Unify(s.emptyStruct)
	op, args := v.Expr()
	if op != cue.OrOp {
		return v
	}
	best, score := v, -1
	for _, a := range args {
		a = a.Unify(s.emptyStruct)
		if a.Err() != nil {
			continue
		}
		sc := 0
		for _, m := range n.Members {
			if a.Allows(cue.Str(m.Key)) {
				sc++
			}
		}
		if sc > score {
			best, score = a, sc
		}
	}
	return best
}

// lookupField finds the constraint of a field whether it is regular, optional, required or
// only allowed by a pattern such as [string]: T.
func lookupField(sch cue.Value, key string) cue.Value {
	for _, sel := range []cue.Selector{cue.Str(key).Optional(), cue.Str(key).Required(), cue.Str(key)} {
		if v := sch.LookupPath(cue.MakePath(sel)); v.Exists() {
			return v
		}
	}
	return cue.Value{}
}

func (w *walker) object(n *jsonc.Node, sch cue.Value, path []string, top bool) {
	if sch.IncompleteKind() == cue.TopKind {
		return // `_`: anything goes
	}
	si := w.s.structInfo(sch)
	outer := w.owned
	w.owned = w.owned || si.owned
	defer func() { w.owned = outer }()
	seen := map[string]int{}
	for i, m := range n.Members {
		if top && slices.Contains(w.opt.Skip, m.Key) {
			continue
		}
		cp := append(path[:len(path):len(path)], pathKey(m.Key))
		p := joinPath(cp)
		keySpan := diag.At(w.src, m.KeyStart, m.KeyEnd)
		if j, dup := seen[m.Key]; dup {
			w.add(keySpan, diag.Warning, "duplicate-key", p, fmt.Sprintf("duplicate key %q: this value replaces the one on line %d", m.Key, line(w.src, n.Members[j].KeyStart)), "")
		}
		seen[m.Key] = i
		if !sch.Allows(cue.Str(m.Key)) {
			w.unknown(keySpan, m.Key, p, si)
			continue
		}
		child := lookupField(sch, m.Key)
		if !child.Exists() {
			continue
		}
		w.check(m.Value, child, cp, false)
	}
	for _, r := range si.required {
		if _, ok := seen[r]; !ok {
			p := joinPath(append(path[:len(path):len(path)], pathKey(r)))
			w.add(diag.At(w.src, n.Start, n.Start+1), diag.Error, "schema", p, fmt.Sprintf("%smissing required field %q", prefix(joinPath(path)), r), "")
		}
	}
}

func line(src *diag.Source, off int) int { l, _ := src.Position(off); return l }

func (w *walker) unknown(sp diag.Span, key, p string, si *structInfo) {
	sugg := suggest(key, si.names)
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

func (w *walker) array(n *jsonc.Node, sch cue.Value, path []string) {
	if sch.IncompleteKind() == cue.TopKind {
		return
	}
	elem := listElem(sch)
	for i, e := range n.Elems {
		cp := indexPath(path, i)
		el := elem
		if !el.Exists() {
			// A tuple such as [string, ...string]: look the element up by index.
			el = sch.LookupPath(cue.MakePath(cue.Index(i)))
			if !el.Exists() {
				continue
			}
		}
		w.check(e, el, cp, false)
	}
	// Length constraints (such as [_, ...]) only show on the whole list.
	if len(n.Elems) == 0 {
		if err := sch.Unify(w.s.ctx.CompileString("[]")).Validate(); err != nil {
			p := joinPath(path)
			w.add(w.span(n), diag.Error, "schema", p, prefix(p)+"must not be empty", "")
		}
	}
}

func indexPath(path []string, i int) []string {
	idx := "[" + strconv.Itoa(i) + "]"
	if len(path) == 0 {
		return []string{idx}
	}
	cp := slices.Clone(path)
	cp[len(cp)-1] += idx
	return cp
}

func (w *walker) scalar(n *jsonc.Node, sch cue.Value, p string) {
	err := sch.Unify(w.encode(n)).Validate(cue.Concrete(true))
	if err == nil {
		return
	}
	if lits, ok := literals(alternatives(sch)); ok {
		hint := ""
		if n.Kind == jsonc.String {
			var names []string
			for _, l := range lits {
				if s, err := strconv.Unquote(l); err == nil {
					names = append(names, s)
				}
			}
			if s := enumSuggest(n.Str, names); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
		}
		w.add(w.span(n), diag.Error, "schema", p, prefix(p)+"expected "+orList(lits)+", got "+describeNode(n), hint)
		return
	}
	w.add(w.span(n), diag.Error, "schema", p, prefix(p)+Translate(err, describeNode(n)), "")
}

func (w *walker) encode(n *jsonc.Node) cue.Value {
	switch n.Kind {
	case jsonc.Null:
		return w.s.ctx.Encode(nil)
	case jsonc.Bool:
		return w.s.ctx.Encode(n.Bool)
	case jsonc.Number:
		if isInt(n.Num) {
			if i, err := strconv.ParseInt(n.Num, 10, 64); err == nil {
				return w.s.ctx.Encode(i)
			}
			if b, ok := new(big.Int).SetString(n.Num, 10); ok {
				return w.s.ctx.Encode(b)
			}
		}
		f, _ := strconv.ParseFloat(n.Num, 64)
		return w.s.ctx.Encode(f)
	}
	return w.s.ctx.Encode(n.Str)
}

// literals returns the branches as JSON text when every branch is one concrete scalar.
func literals(alts []cue.Value) ([]string, bool) {
	var out []string
	for _, a := range alts {
		if !a.IsConcrete() || a.Kind() == cue.StructKind || a.Kind() == cue.ListKind {
			return nil, false
		}
		b, err := a.MarshalJSON()
		if err != nil {
			return nil, false
		}
		out = append(out, string(b))
	}
	return out, len(out) > 0
}

func prefix(p string) string {
	if p == "" {
		return ""
	}
	return p + ": "
}

func joinPath(path []string) string { return strings.Join(path, ".") }

func pathKey(k string) string {
	if k == "" || strings.ContainsAny(k, ".[]\" ") {
		return strconv.Quote(k)
	}
	return k
}

// describe names the kinds (or the literal values) the schema accepts at a place.
func describe(sch cue.Value) string {
	if lits, ok := literals(alternatives(sch)); ok {
		return orList(lits)
	}
	var names []string
	ik := schemaKind(sch)
	for _, k := range []cue.Kind{cue.StringKind, cue.IntKind, cue.FloatKind, cue.BoolKind, cue.ListKind, cue.StructKind, cue.NullKind} {
		if ik&k == 0 || (k == cue.FloatKind && ik&cue.IntKind != 0) {
			continue
		}
		name := kindName(k)
		if k == cue.IntKind && ik&cue.FloatKind != 0 {
			name = "a number"
		}
		names = append(names, name)
	}
	return orList(names)
}

func kindName(k cue.Kind) string {
	switch k {
	case cue.StructKind:
		return "an object"
	case cue.ListKind:
		return "an array"
	case cue.StringKind:
		return "a string"
	case cue.IntKind:
		return "an integer"
	case cue.FloatKind:
		return "a number"
	case cue.BoolKind:
		return "a boolean"
	}
	return "null"
}

func describeNode(n *jsonc.Node) string {
	switch n.Kind {
	case jsonc.String:
		s := n.Str
		if len(s) > 60 {
			s = s[:57] + "..."
		}
		return strconv.Quote(s)
	case jsonc.Number:
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

func orList(items []string) string {
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
