package config

import (
	"encoding/json"
	"strconv"
)

// BlameLeaf is one effective leaf as `pigo config blame` reports it: its value, where the
// winning value was written, the merge rule that produced it and the values it replaced.
type BlameLeaf struct {
	Path     string          `json:"path"`
	Value    json.RawMessage `json:"value"`
	File     string          `json:"file"`
	Scope    Scope           `json:"scope"`
	Line     int             `json:"line,omitempty"` // left out (never 0) without a position
	Column   int             `json:"column,omitempty"`
	Rule     string          `json:"rule"`
	Replaced []BlameValue    `json:"replaced"`
}

// BlameValue is a lower-layer value a leaf replaced (or, under the "global" rule, a project
// value that was ignored).
type BlameValue struct {
	Value   json.RawMessage `json:"value"`
	File    string          `json:"file"`
	Scope   Scope           `json:"scope"`
	Line    int             `json:"line,omitempty"`
	Column  int             `json:"column,omitempty"`
	Ignored bool            `json:"ignored,omitempty"`
}

// Blame lists the effective leaves under path (all of them for an empty path), in document
// order. found is false when path is not set in the effective configuration.
func (e *Effective) Blame(path []PathStep) (leaves []BlameLeaf, found bool) {
	v := e.Lookup(path)
	if v == nil {
		return nil, false
	}
	prefix := ""
	for _, st := range path {
		if st.IsIndex {
			prefix += "[" + strconv.Itoa(st.Index) + "]"
		} else {
			prefix = joinKey(prefix, st.Key)
		}
	}
	sub := &Effective{Kind: e.Kind, Root: v}
	for _, l := range sub.Leaves() {
		p := prefix
		switch {
		case l.Path == "":
		case p == "" || l.Path[0] == '[':
			p += l.Path
		default:
			p += "." + l.Path
		}
		bl := BlameLeaf{Path: p, Value: l.Value.JSON(), Rule: l.Rule, Replaced: []BlameValue{}}
		bl.File, bl.Scope, bl.Line, bl.Column = where(l.Value)
		for _, r := range l.Replaced {
			bv := BlameValue{Value: r.JSON()}
			bv.File, bv.Scope, bv.Line, bv.Column = where(r)
			bv.Ignored = l.Rule == RuleGlobal && bv.Scope == Project
			bl.Replaced = append(bl.Replaced, bv)
		}
		leaves = append(leaves, bl)
	}
	return leaves, true
}

func where(v *Value) (file string, scope Scope, line, col int) {
	if v == nil || v.File == nil {
		return "", "", 0, 0
	}
	file, scope = v.File.Path, v.File.Scope
	if v.Node != nil && v.Node.Start >= 0 && v.File.Src != nil {
		line, col = v.File.Src.Position(v.Node.Start)
	}
	return file, scope, line, col
}
