package toolrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/pigo-agent/pigo/internal/catalog"
)

// shippedSchemas is every distinct parameters schema the shipped toolsets declare.
func shippedSchemas(t *testing.T) [][]byte {
	es, err := catalog.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	seen := map[string]bool{}
	for _, e := range es {
		for _, tool := range e.Tools {
			if len(tool.Parameters) == 0 || seen[string(tool.Parameters)] {
				continue
			}
			seen[string(tool.Parameters)] = true
			out = append(out, tool.Parameters)
		}
	}
	return out
}

// modelSchemasFile renders modelschemas.tsv from the shipped schemas.
func modelSchemasFile(t *testing.T) []byte {
	schemas := shippedSchemas(t)
	slices.SortFunc(schemas, bytes.Compare)
	var b bytes.Buffer
	for _, s := range schemas {
		if bytes.ContainsAny(s, "\t\n") {
			t.Fatalf("a shipped schema holds a tab or a newline: %s", s)
		}
		m := renderModelSchema(s, nil)
		if m == nil {
			t.Fatalf("shipped schema does not parse: %s", s)
		}
		if bytes.Equal(m, s) {
			m = nil
		}
		fmt.Fprintf(&b, "%s\t%s\n", s, m)
	}
	return b.Bytes()
}

// TestShippedModelSchemasFresh fails when modelschemas.tsv no longer matches a rendering of
// the shipped toolsets' schemas (go generate ./internal/toolrun writes it again).
func TestShippedModelSchemasFresh(t *testing.T) {
	want := modelSchemasFile(t)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile("modelschemas.tsv", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(want, modelSchemasTSV) {
		t.Fatal("modelschemas.tsv is stale: run `go generate ./internal/toolrun` (or UPDATE_GOLDEN=1 go test -run TestShippedModelSchemasFresh ./internal/toolrun)")
	}
}

// TestShippedModelSchemaAsRendered: for every shipped schema the table answers, with the bytes
// the rendering gives, and a copy the caller may change; a schema that differs from every
// shipped one by a byte (or a prefix of one, or more) is not answered.
func TestShippedModelSchemaAsRendered(t *testing.T) {
	schemas := shippedSchemas(t)
	if len(schemas) < 20 {
		t.Fatalf("only %d shipped schemas", len(schemas))
	}
	before := bytes.Clone(modelSchemasTSV)
	for _, s := range schemas {
		got, ok := shippedModelSchema(s)
		if !ok {
			t.Fatalf("no table entry for %s", s)
		}
		if want := renderModelSchema(s, nil); !bytes.Equal(got, want) {
			t.Fatalf("table gives\n%s\nrendering gives\n%s", got, want)
		}
		_ = append(got, 'X') // must not write into the table (checked below)
	}
	if !bytes.Equal(before, modelSchemasTSV) {
		t.Fatal("an append to a result wrote into the table")
	}
	r := rand.New(rand.NewPCG(1, 2))
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
		if m, ok := shippedModelSchema(s); ok {
			t.Fatalf("a schema not shipped was answered: %s -> %s", s, m)
		}
	}
}

// TestModelSchemaSameAsRendering: a tool's model schema is the rendering of its declared
// schema whether the table answers or not: every shipped schema, random schemas, MCP tools,
// empty and broken ones.
func TestModelSchemaSameAsRendering(t *testing.T) {
	check := func(toolset string, params []byte) {
		t.Helper()
		tool := &Tool{Name: "x", Toolset: toolset, Parameters: params}
		want := json.RawMessage(`{"type":"object","properties":{}}`)
		switch {
		case toolset == "mcp" && len(params) > 0:
			want = params
		default:
			want = renderModelSchema(params, want)
		}
		if got := tool.modelSchema(); !bytes.Equal(got, want) {
			t.Fatalf("%s %s: got %s, want %s", toolset, params, got, want)
		}
	}
	for _, s := range shippedSchemas(t) {
		check("pi", s)
		check("", s)
		check("mcp", s)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		check("pi", randomSchema(r))
	}
	for _, s := range []string{"", "{", "null", "[]", `{"properties":{"a":{"type":"string"}},"type":"object","required":["a"]}`} {
		check("pi", []byte(s))
		check("mcp", []byte(s))
	}
}

// randomSchema is a random JSON Schema-like object (keys TypeBox's order moves, nested).
func randomSchema(r *rand.Rand) []byte {
	var gen func(depth int) any
	keys := []string{"type", "required", "properties", "items", "description", "anyOf", "enum", "default", "additionalProperties", "$defs"}
	gen = func(depth int) any {
		if depth > 3 || r.IntN(4) == 0 {
			switch r.IntN(4) {
			case 0:
				return "string"
			case 1:
				return r.IntN(100)
			case 2:
				return []any{"a", "b"}
			default:
				return true
			}
		}
		var b bytes.Buffer
		b.WriteByte('{')
		n := r.IntN(5)
		used := map[string]bool{}
		for i := 0; i < n; i++ {
			k := keys[r.IntN(len(keys))]
			if used[k] {
				continue
			}
			used[k] = true
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			v, _ := json.Marshal(gen(depth + 1))
			if k == "properties" || k == "$defs" {
				v, _ = json.Marshal(map[string]json.RawMessage{"p": v, "q": json.RawMessage(`{"type":"number","description":"é\u2028"}`)})
			}
			fmt.Fprintf(&b, "%q:%s", k, v)
		}
		b.WriteByte('}')
		return json.RawMessage(b.Bytes())
	}
	v, _ := json.Marshal(gen(0))
	return v
}
