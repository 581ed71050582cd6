package catalog

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"

	"cuelang.org/go/cue"

	"github.com/pigo-agent/pigo/commands"
	"github.com/pigo-agent/pigo/internal/cueschema"
	"github.com/pigo-agent/pigo/toolsets"
)

// generate compiles every shipped CUE declaration against #Extension and returns catalog.json
// and schemas.tsv.
func generate(t *testing.T) ([]byte, []byte) {
	s, err := cueschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	var out []Ext
	add := func(fsys fs.FS, order []string, dir, kind string) {
		for _, name := range order {
			src, err := fs.ReadFile(fsys, name)
			if err != nil {
				t.Fatal(err)
			}
			v := s.Context().CompileBytes(src, cue.Filename(dir+"/"+name))
			u := s.Def("#Extension").Unify(v)
			if err := u.Validate(cue.Concrete(true)); err != nil {
				t.Fatalf("%s/%s: %v", dir, name, err)
			}
			out = append(out, Decode(cueschema.NodeOf(u, src), dir+"/"+name, kind))
		}
	}
	add(toolsets.FS, toolsets.Order, "toolsets", "toolset")
	add(commands.FS, commands.Order, "commands", "command")
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", " "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), SchemasTSV(out)
}

// TestCatalogFresh fails when catalog.json no longer matches the CUE sources.
func TestCatalogFresh(t *testing.T) {
	want, schemas := generate(t)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile("catalog.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("schemas.tsv", schemas, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(want, generated) {
		t.Fatal("catalog.json is stale: run `go generate ./internal/catalog` (or UPDATE_GOLDEN=1 go test ./internal/catalog)")
	}
	if !bytes.Equal(schemas, schemasTSV) {
		t.Fatal("schemas.tsv is stale: run `go generate ./internal/catalog` (or UPDATE_GOLDEN=1 go test ./internal/catalog)")
	}
}

func TestShipped(t *testing.T) {
	es, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != len(toolsets.Order)+len(commands.Order) {
		t.Fatalf("got %d entries", len(es))
	}
	pi := es[0]
	if pi.File != "toolsets/pi.cue" || !pi.Builtin {
		t.Fatalf("first entry is %s, want the built-ins", pi.File)
	}
	// Offsets point into the CUE source: the first tool's name is at its string literal.
	tool := pi.Tools[0]
	if got := string(pi.Src[tool.NameOff:tool.NameEnd]); got != `"read"` {
		t.Fatalf("offset points at %q", got)
	}
	gh := 0
	for _, e := range es {
		for _, tl := range e.Tools {
			if strings.HasSuffix(tl.Name, "-github-issue") && (!tl.Structured || !tl.CodemodeOnly) {
				t.Errorf("%s: want structured and codemode-only", tl.Name)
			}
			if e.Name == "github" {
				gh++
			}
		}
	}
	if !json.Valid(pi.Tools[0].Parameters) || !strings.Contains(string(pi.Tools[0].Parameters), `"required":["path"]`) {
		t.Errorf("read's parameters: %s", pi.Tools[0].Parameters)
	}
	if gh != 18 {
		t.Errorf("github tools: %d, want 18", gh)
	}
}

func BenchmarkShipped(b *testing.B) {
	for b.Loop() {
		var es []Ext
		if err := json.Unmarshal(generated, &es); err != nil {
			b.Fatal(err)
		}
		if err := attachSchemas(es); err != nil {
			b.Fatal(err)
		}
	}
}
