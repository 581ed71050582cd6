package cueschema

import (
	"cuelang.org/go/cue"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// Field returns the schema of the member key of an object whose schema is sch (resolving the
// struct branch of a disjunction for node n, which may be nil). The result does not exist when
// the key is unknown.
func (s *Schema) Field(sch cue.Value, n *jsonc.Node, key string) cue.Value {
	if !sch.Exists() {
		return cue.Value{}
	}
	st := sch
	if n != nil && n.Kind == jsonc.Object {
		st = s.structOf(sch, n)
	} else if sch.IncompleteKind()&cue.StructKind != 0 {
		st = sch.Unify(s.emptyStruct)
	}
	if !st.Allows(cue.Str(key)) {
		return cue.Value{}
	}
	return lookupField(st, key)
}

// Elem returns the schema of the elements of an array whose schema is sch.
func (s *Schema) Elem(sch cue.Value) cue.Value {
	if !sch.Exists() {
		return cue.Value{}
	}
	return sch.Unify(s.emptyList).LookupPath(cue.MakePath(cue.AnyIndex))
}

// MergeRule returns the @merge rule declared on a field, or "" for the default.
func MergeRule(field cue.Value) string {
	if !field.Exists() {
		return ""
	}
	r, _ := Attr(field, "merge")
	return r
}
