package cueschema

import (
	"strconv"

	"cuelang.org/go/cue"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// NodeOf converts a concrete CUE value into a jsonc.Node tree whose offsets are those of the
// CUE source, so that declarations written in CUE flow through the same code as JSON ones.
// Hidden fields and definitions are left out, as in JSON export. src is the CUE source the
// positions point into; it gives scalar values their end offset.
func NodeOf(v cue.Value, src []byte) *jsonc.Node {
	off := -1
	if p := v.Pos(); p.IsValid() {
		off = p.Offset()
	}
	n := &jsonc.Node{Start: off, End: off + 1}
	if off >= 0 && off < len(src) && v.IncompleteKind()&(cue.StructKind|cue.ListKind) == 0 {
		n.End = off + tokenLen(src, off)
	}
	switch v.IncompleteKind() {
	case cue.StructKind:
		n.Kind = jsonc.Object
		it, err := v.Fields()
		if err != nil {
			return n
		}
		for it.Next() {
			child := NodeOf(it.Value(), src)
			n.Members = append(n.Members, jsonc.Member{Key: it.Selector().Unquoted(), KeyStart: child.Start, KeyEnd: child.Start, Value: child})
		}
	case cue.ListKind:
		n.Kind = jsonc.Array
		it, err := v.List()
		if err != nil {
			return n
		}
		for it.Next() {
			n.Elems = append(n.Elems, NodeOf(it.Value(), src))
		}
	case cue.StringKind:
		n.Kind = jsonc.String
		n.Str, _ = v.String()
	case cue.BoolKind:
		n.Kind = jsonc.Bool
		n.Bool, _ = v.Bool()
	case cue.IntKind:
		n.Kind = jsonc.Number
		if i, err := v.Int64(); err == nil {
			n.Num = strconv.FormatInt(i, 10)
		} else {
			b, _ := v.MarshalJSON()
			n.Num = string(b)
		}
	case cue.FloatKind, cue.NumberKind:
		n.Kind = jsonc.Number
		b, _ := v.MarshalJSON()
		n.Num = string(b)
	default:
		n.Kind = jsonc.Null
	}
	return n
}
