package codemode

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/catalog"
)

// shippedSchemas is every distinct parameters and output schema the shipped toolsets declare.
func shippedSchemas(t *testing.T) [][]byte {
	es, err := catalog.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	seen := map[string]bool{}
	for _, e := range es {
		for _, tool := range e.Tools {
			for _, s := range [][]byte{tool.Parameters, tool.Output} {
				if len(s) == 0 || seen[string(s)] {
					continue
				}
				seen[string(s)] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// typesFile renders types.tsv from the shipped schemas.
func typesFile(t *testing.T) []byte {
	schemas := shippedSchemas(t)
	slices.SortFunc(schemas, bytes.Compare)
	var b bytes.Buffer
	for _, s := range schemas {
		if bytes.ContainsAny(s, "\t\n") {
			t.Fatalf("a shipped schema holds a tab or a newline: %s", s)
		}
		ts := renderType(s)
		fmt.Fprintf(&b, "%s\t%d\n%s\n", s, strings.Count(ts, "\n")+1, ts)
	}
	return b.Bytes()
}

// TestShippedTypesFresh fails when types.tsv no longer matches a rendering of the shipped
// toolsets' schemas (go generate ./internal/codemode writes it again).
func TestShippedTypesFresh(t *testing.T) {
	want := typesFile(t)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile("types.tsv", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(want) != typesTSV {
		t.Fatal("types.tsv is stale: run `go generate ./internal/codemode` (or UPDATE_GOLDEN=1 go test -run TestShippedTypesFresh ./internal/codemode)")
	}
}

// TestSchemaTypeAsRendered: every shipped schema is in the table with its rendering; a schema
// that differs from every shipped one (a byte changed, cut, or one more) is rendered; and the
// declarations of the shipped toolsets' tools are the same with the table and without.
func TestSchemaTypeAsRendered(t *testing.T) {
	schemas := shippedSchemas(t)
	if len(schemas) < 20 {
		t.Fatalf("only %d shipped schemas", len(schemas))
	}
	for _, s := range schemas {
		got, ok := shippedType(s)
		if !ok {
			t.Fatalf("no table entry for %s", s)
		}
		if want := renderType(s); got != want {
			t.Fatalf("table gives %q, rendering gives %q", got, want)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		s := bytes.Clone(schemas[r.IntN(len(schemas))])
		switch r.IntN(3) {
		case 0:
			s[r.IntN(len(s))] ^= byte(1 + r.IntN(255))
		case 1:
			s = s[:r.IntN(len(s))]
		default:
			s = append(s, ' ')
		}
		if slices.ContainsFunc(schemas, func(x []byte) bool { return bytes.Equal(x, s) }) {
			continue
		}
		if _, ok := shippedType(s); ok {
			t.Fatalf("a schema not shipped was answered: %s", s)
		}
		if got, want := schemaType(s), renderType(s); got != want {
			t.Fatalf("%s: %q, want %q", s, got, want)
		}
	}
	// The whole description, every shipped tool declared, against the rendering alone.
	es, _ := catalog.Shipped()
	var decls []Decl
	for _, e := range es {
		for _, tool := range e.Tools {
			decls = append(decls, Decl{Name: tool.Name, Description: tool.Description, Parameters: tool.Parameters, Output: tool.Output})
		}
	}
	var want []string
	for _, d := range decls {
		want = append(want, "declare function call(name: "+jsString(d.Name)+", args: "+renderType(d.Parameters)+"): Promise<"+renderType(d.Output)+">;")
	}
	for i, d := range decls {
		if got := declaration(d); got != want[i] {
			t.Fatalf("%s: %q, want %q", d.Name, got, want[i])
		}
	}
}
