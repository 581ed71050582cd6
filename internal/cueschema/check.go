package cueschema

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"cuelang.org/go/cue"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/validate"
)

// Mode and Options are validate's: the reference walker takes the same options.
type (
	Mode    = validate.Mode
	Options = validate.Options
)

// The modes.
const (
	UserConfig  = validate.UserConfig
	Declaration = validate.Declaration
)

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
	if !acceptsKind(w.s.kindOf(sch), kindOf(n)) {
		p := validate.JoinPath(path)
		w.add(w.span(n), diag.Error, "schema", p, validate.Prefix(p)+"expected "+describe(sch)+", got "+validate.DescribeNode(n), "")
		return
	}
	switch n.Kind {
	case jsonc.Object:
		w.object(n, w.s.structOf(sch, n), path, top)
	case jsonc.Array:
		w.array(n, w.s.list(sch), path)
	default:
		w.scalar(n, sch, validate.JoinPath(path))
	}
}

// plainKind returns the kind of sch when sch is exactly a bare type (`string`, `bool`, `int`,
// `number`, `null`), else BottomKind. Unifying each scalar with its constraint is most of a
// check's time, and most constraints are bare types. Equivalence is tested both ways with
// Subsume, once per schema place.
func (s *Schema) plainKind(sch cue.Value) cue.Kind {
	if k, ok := s.plain[sch]; ok {
		return k
	}
	k := cue.BottomKind
	if s.bare == nil {
		s.bare = map[cue.Kind]cue.Value{}
		for kind, src := range map[cue.Kind]string{cue.StringKind: "string", cue.BoolKind: "bool", cue.IntKind: "int", cue.NumberKind: "number", cue.NullKind: "null"} {
			s.bare[kind] = s.ctx.CompileString(src)
		}
	}
	if _, hasDefault := sch.Default(); !hasDefault {
		for kind, t := range s.bare {
			if sch.Subsume(t) == nil && t.Subsume(sch) == nil {
				k = kind
				break
			}
		}
	}
	s.plain[sch] = k
	return k
}

// kindOf is schemaKind, cached.
func (s *Schema) kindOf(sch cue.Value) cue.Kind {
	k, ok := s.kinds[sch]
	if !ok {
		k = schemaKind(sch)
		s.kinds[sch] = k
	}
	return k
}

// list returns the list schema of sch and its element constraint, cached.
func (s *Schema) list(sch cue.Value) listInfo {
	if li, ok := s.lists[sch]; ok {
		return li
	}
	li := listInfo{list: sch}
	if sch.Err() == nil {
		li.list = sch.Unify(s.emptyList)
	}
	li.elem = listElem(li.list)
	s.lists[sch] = li
	return li
}

// tupleElem is element i of a tuple schema, cached.
func (s *Schema) tupleElem(sch cue.Value, i int) cue.Value {
	k := lookupKey{sch, "\x00" + strconv.Itoa(i)}
	v, ok := s.lookups[k]
	if !ok {
		v = sch.LookupPath(cue.MakePath(cue.Index(i)))
		s.lookups[k] = v
	}
	return v
}

// allows is sch.Allows for a key, cached.
func (s *Schema) allows(sch cue.Value, key string) bool {
	k := lookupKey{sch, key}
	a, ok := s.allowed[k]
	if !ok {
		a = sch.Allows(cue.Str(key))
		s.allowed[k] = a
	}
	return a
}

// field is lookupField, cached.
func (s *Schema) field(sch cue.Value, key string) cue.Value {
	k := lookupKey{sch, key}
	v, ok := s.lookups[k]
	if !ok {
		v = lookupField(sch, key)
		s.lookups[k] = v
	}
	return v
}

func kindOf(n *jsonc.Node) cue.Kind {
	switch n.Kind {
	case jsonc.Null:
		return cue.NullKind
	case jsonc.Bool:
		return cue.BoolKind
	case jsonc.Number:
		if validate.IsInt(n.Num) {
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
	if v, ok := s.structs[structKey{sch: sch}]; ok {
		return v
	}
	var keys []string
	for _, m := range n.Members {
		keys = append(keys, m.Key)
	}
	k := structKey{sch, signature(keys)}
	if v, ok := s.structs[k]; ok {
		return v
	}
	v, disjunction := s.chooseStruct(sch, n)
	if !disjunction {
		k.keys = ""
	}
	s.structs[k] = v
	return v
}

// chooseStruct is structOf uncached; disjunction says whether the choice depended on n's keys.
func (s *Schema) chooseStruct(sch cue.Value, n *jsonc.Node) (cue.Value, bool) {
	if sch.IncompleteKind() == cue.TopKind {
		return sch, false
	}
	v := sch.Unify(s.emptyStruct)
	op, args := v.Expr()
	if op != cue.OrOp {
		return v, false
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
	return best, true
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
		cp := append(path[:len(path):len(path)], validate.PathKey(m.Key))
		p := validate.JoinPath(cp)
		keySpan := diag.At(w.src, m.KeyStart, m.KeyEnd)
		if j, dup := seen[m.Key]; dup {
			w.add(keySpan, diag.Warning, "duplicate-key", p, fmt.Sprintf("duplicate key %q: this value replaces the one on line %d", m.Key, validate.Line(w.src, n.Members[j].KeyStart)), "")
		}
		seen[m.Key] = i
		if !w.s.allows(sch, m.Key) {
			w.unknown(keySpan, m.Key, p, si)
			continue
		}
		child := w.s.field(sch, m.Key)
		if !child.Exists() {
			continue
		}
		w.check(m.Value, child, cp, false)
	}
	for _, r := range si.required {
		if _, ok := seen[r]; !ok {
			p := validate.JoinPath(append(path[:len(path):len(path)], validate.PathKey(r)))
			w.add(diag.At(w.src, n.Start, n.Start+1), diag.Error, "schema", p, fmt.Sprintf("%smissing required field %q", validate.Prefix(validate.JoinPath(path)), r), "")
		}
	}
}

func (w *walker) unknown(sp diag.Span, key, p string, si *structInfo) {
	sugg := validate.Suggest(key, si.names)
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

func (w *walker) array(n *jsonc.Node, li listInfo, path []string) {
	sch := li.list
	if sch.IncompleteKind() == cue.TopKind {
		return
	}
	elem := li.elem
	for i, e := range n.Elems {
		cp := validate.IndexPath(path, i)
		el := elem
		if !el.Exists() {
			// A tuple such as [string, ...string]: look the element up by index.
			el = w.s.tupleElem(sch, i)
			if !el.Exists() {
				continue
			}
		}
		w.check(e, el, cp, false)
	}
	// Length constraints (such as [_, ...]) only show on the whole list.
	if len(n.Elems) == 0 {
		if err := sch.Unify(w.s.ctx.CompileString("[]")).Validate(); err != nil {
			p := validate.JoinPath(path)
			w.add(w.span(n), diag.Error, "schema", p, validate.Prefix(p)+"must not be empty", "")
		}
	}
}

func (w *walker) scalar(n *jsonc.Node, sch cue.Value, p string) {
	if k := w.s.plainKind(sch); k != cue.BottomKind && acceptsKind(k, kindOf(n)) {
		return // a bare type such as `string`: the kind check above was the whole check
	}
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
			if s := validate.EnumSuggest(n.Str, names); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
		}
		w.add(w.span(n), diag.Error, "schema", p, validate.Prefix(p)+"expected "+validate.OrList(lits)+", got "+validate.DescribeNode(n), hint)
		return
	}
	w.add(w.span(n), diag.Error, "schema", p, validate.Prefix(p)+Translate(err, validate.DescribeNode(n)), "")
}

func (w *walker) encode(n *jsonc.Node) cue.Value {
	switch n.Kind {
	case jsonc.Null:
		return w.s.ctx.Encode(nil)
	case jsonc.Bool:
		return w.s.ctx.Encode(n.Bool)
	case jsonc.Number:
		if validate.IsInt(n.Num) {
			if i, err := strconv.ParseInt(n.Num, 10, 64); err == nil {
				return w.s.ctx.Encode(i)
			}
			num := n.Num
			if len(num) > validate.MaxDigits {
				// math/big parses in quadratic time (a million digits took seconds); an integer
				// this long is beyond every bound of the schema, as its first digits are.
				num = num[:validate.MaxDigits]
			}
			if b, ok := new(big.Int).SetString(num, 10); ok {
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

// describe names the kinds (or the literal values) the schema accepts at a place.
func describe(sch cue.Value) string {
	if lits, ok := literals(alternatives(sch)); ok {
		return validate.OrList(lits)
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
	return validate.OrList(names)
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
