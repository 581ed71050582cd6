package validate

import (
	"slices"
	"sort"
	"strings"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// Place is a place of the schema, for code that edits documents (config set/add/unset): what
// may stand there and which keys it has. The zero Place does not exist.
type Place struct{ n int32 }

func place(i int32) Place { return Place{i + 1} }

func (p Place) node() *node { return &nodes[p.n-1] }

// Def returns a definition's place (with its leading '#'); it does not exist when the schema
// has none.
func (s *Schema) Def(name string) Place {
	if i, ok := defNode(name); ok {
		return place(i)
	}
	return Place{}
}

// Exists reports whether the place is one.
func (p Place) Exists() bool { return p.n > 0 }

// Kind is what a value at the place may be (Top: anything).
func (p Place) Kind() Kind {
	if !p.Exists() {
		return 0
	}
	if p.node().top {
		return Top
	}
	return p.node().kind
}

// IsTop reports a place where anything goes (`_`).
func (p Place) IsTop() bool { return p.Exists() && p.node().top }

// MergeRule returns the @merge rule declared on the place's field, or "" for the default.
func (p Place) MergeRule() string {
	if !p.Exists() {
		return ""
	}
	return p.node().merge
}

// Field returns the place of member key of an object at p, the struct branch chosen for the
// object n when p is a disjunction (n may be nil: the first branch). It does not exist when
// the key is not allowed or has nothing to check.
func (s *Schema) Field(p Place, n *jsonc.Node, key string) Place {
	if !p.Exists() || p.node().top || len(p.node().structs) == 0 {
		return Place{}
	}
	if n == nil || n.Kind != jsonc.Object {
		n = &jsonc.Node{Kind: jsonc.Object}
	}
	st := structOf(p.node(), n)
	if st == nil || st.top || !st.allows(key) {
		return Place{}
	}
	if f := st.field(key); f >= 0 {
		return place(f)
	}
	return Place{}
}

// Elem returns the place of the elements of a list at p.
func (s *Schema) Elem(p Place) Place {
	if !p.Exists() || p.node().list < 0 {
		return Place{}
	}
	if e := lists[p.node().list].elem; e >= 0 {
		return place(e)
	}
	return Place{}
}

// FieldNames lists the declared fields of the structs at p (of every branch), sorted.
func (p Place) FieldNames() []string {
	if !p.Exists() {
		return nil
	}
	var names []string
	for _, si := range p.node().structs {
		names = append(names, structs[si].names...)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// KindWord names what may stand at p ("an object", "a list or a string").
func (p Place) KindWord() string {
	k := p.Kind()
	var parts []string
	for _, x := range []struct {
		k Kind
		w string
	}{{Struct, "an object"}, {List, "a list"}, {String, "a string"}, {Int, "an integer"}, {Float, "a number"}, {Bool, "a boolean"}, {Null, "null"}} {
		if k&x.k != 0 {
			if x.k == Float && k&Int != 0 {
				parts[len(parts)-1] = "a number"
				continue
			}
			parts = append(parts, x.w)
		}
	}
	if len(parts) == 0 {
		return "a value"
	}
	return strings.Join(parts, " or ")
}
