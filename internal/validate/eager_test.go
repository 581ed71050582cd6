package validate

// The walker as it was before the paths became lazy (D25.35): the oracle of TestCheckAsEager.

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// checkEager is Schema.Check with the old walker.
func checkEager(src *diag.Source, root *jsonc.Node, def string, opt Options) diag.List {
	w := &oldWalker{src: src, opt: opt}
	n, ok := defNode(def)
	if !ok {
		w.add(diag.FileSpan(src), diag.Error, "internal", "", fmt.Sprintf("schema has no definition %s", def), "")
		return w.out
	}
	w.check(root, n, nil, true)
	return w.out
}

type oldWalker struct {
	src *diag.Source
	opt Options
	out diag.List
	// owned is true inside a section only pigo reads.
	owned bool
}

func (w *oldWalker) add(sp diag.Span, sev diag.Severity, code, path, msg, hint string) {
	d := w.out.Add(sp, sev, code, path, msg)
	d.Hint = hint
}

func (w *oldWalker) span(n *jsonc.Node) diag.Span { return diag.At(w.src, n.Start, n.End) }

func (w *oldWalker) check(n *jsonc.Node, i int32, path []string, top bool) {
	sch := &nodes[i]
	if !acceptsKind(sch.kind, kindOf(n)) {
		p := JoinPath(path)
		w.add(w.span(n), diag.Error, "schema", p, Prefix(p)+"expected "+sch.describe+", got "+DescribeNode(n), "")
		return
	}
	switch n.Kind {
	case jsonc.Object:
		if sch.top {
			return
		}
		w.object(n, structOf(sch, n), path, top)
	case jsonc.Array:
		if sch.top || sch.list < 0 {
			return
		}
		w.array(n, &lists[sch.list], path)
	default:
		w.scalar(n, sch, JoinPath(path))
	}
}

func (w *oldWalker) object(n *jsonc.Node, st *structNode, path []string, top bool) {
	if st == nil || st.top {
		return // `_`: anything goes
	}
	outer := w.owned
	w.owned = w.owned || st.owned
	defer func() { w.owned = outer }()
	seen := map[string]int{}
	for i, m := range n.Members {
		if top && slices.Contains(w.opt.Skip, m.Key) {
			continue
		}
		cp := append(path[:len(path):len(path)], PathKey(m.Key))
		p := JoinPath(cp)
		keySpan := diag.At(w.src, m.KeyStart, m.KeyEnd)
		if j, dup := seen[m.Key]; dup {
			w.add(keySpan, diag.Warning, "duplicate-key", p, fmt.Sprintf("duplicate key %q: this value replaces the one on line %d", m.Key, Line(w.src, n.Members[j].KeyStart)), "")
		}
		seen[m.Key] = i
		if !st.allows(m.Key) {
			w.unknown(keySpan, m.Key, p, st)
			continue
		}
		child := st.field(m.Key)
		if child < 0 {
			continue
		}
		w.check(m.Value, child, cp, false)
	}
	for _, r := range st.required {
		if _, ok := seen[r]; !ok {
			p := JoinPath(append(path[:len(path):len(path)], PathKey(r)))
			w.add(diag.At(w.src, n.Start, n.Start+1), diag.Error, "schema", p, fmt.Sprintf("%smissing required field %q", Prefix(JoinPath(path)), r), "")
		}
	}
}

func (w *oldWalker) unknown(sp diag.Span, key, p string, st *structNode) {
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

func (w *oldWalker) array(n *jsonc.Node, li *listNode, path []string) {
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
		w.check(e, el, IndexPath(path, i), false)
	}
	// Length constraints (such as [_, ...]) only show on the whole list.
	if len(n.Elems) == 0 && li.nonEmpty {
		p := JoinPath(path)
		w.add(w.span(n), diag.Error, "schema", p, Prefix(p)+"must not be empty", "")
	}
}

func (w *oldWalker) scalar(n *jsonc.Node, sch *node, p string) {
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
		w.add(w.span(n), diag.Error, "schema", p, Prefix(p)+"expected "+OrList(sch.lits)+", got "+DescribeNode(n), hint)
		return
	}
	if msg, ok := v.check(sch.alts, DescribeNode(n)); !ok {
		w.add(w.span(n), diag.Error, "schema", p, Prefix(p)+msg, "")
	}
}
