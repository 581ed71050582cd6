package config

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// wrapMap is merger.wrap as it was: an index map for every object of two members or more.
func (m *merger) wrapMap(n *jsonc.Node, f *File) *Value {
	v := &Value{Kind: n.Kind, Node: n, File: f, Rule: RuleOnly}
	var index map[string]*Member
	if len(n.Members) > 1 {
		index = make(map[string]*Member, len(n.Members))
	}
	for _, mem := range n.Members {
		child := m.wrapMap(mem.Value, f)
		if old := index[mem.Key]; old != nil {
			child.Replaced = append(child.Replaced, old.Value)
			old.Value = child
			continue
		}
		nm := &Member{Key: mem.Key, Value: child}
		v.Members = append(v.Members, nm)
		if index != nil {
			index[mem.Key] = nm
		}
	}
	for _, e := range n.Elems {
		v.Elems = append(v.Elems, m.wrapMap(e, f))
	}
	return v
}

func genJSON(r *rand.Rand, b *strings.Builder, depth int) {
	switch k := r.IntN(6); {
	case depth < 4 && k < 2:
		b.WriteByte('{')
		n := r.IntN(5)
		if r.IntN(8) == 0 {
			n = 15 + r.IntN(6) // around the map's threshold
		}
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote("k" + strconv.Itoa(r.IntN(n+1)))) // duplicates
			b.WriteByte(':')
			genJSON(r, b, depth+1)
		}
		b.WriteByte('}')
	case depth < 4 && k == 2:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			genJSON(r, b, depth+1)
		}
		b.WriteByte(']')
	default:
		b.WriteString([]string{"1", `"s"`, "true", "null", "[]", "{}"}[r.IntN(6)])
	}
}

// TestWrapAsMap: wrap builds the tree the map-indexed wrap built (members in order, a
// repeated key's last value with the earlier ones in Replaced) on random documents with
// repeated keys, small and large objects.
func TestWrapAsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 35))
	m := &merger{}
	f := &File{Path: "settings.json"}
	for range 3000 {
		var b strings.Builder
		genJSON(r, &b, 0)
		n, err := jsonc.Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := m.wrap(n, f), m.wrapMap(n, f); !reflect.DeepEqual(got, want) {
			t.Fatalf("wrap differs on %s", b.String())
		}
	}
}
