package cueschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"cuelang.org/go/cue"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/frontmatter"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/validate"
)

// TestCompiledFresh: internal/validate/schema_gen.go is what Generate makes of schema/*.cue.
// UPDATE_GOLDEN=1 rewrites it.
func TestCompiledFresh(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	const file = "../validate/schema_gen.go"
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(file)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run UPDATE_GOLDEN=1 go test ./internal/cueschema -run TestCompiledFresh", file)
	}
}

// render writes diagnostics one per line, everything the user sees of them.
func render(ds diag.List) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%d-%d %s %s %s: %s", d.Start, d.End, d.Severity, d.Code, d.Path, d.Message)
		if d.Hint != "" {
			fmt.Fprintf(&b, " (%s)", d.Hint)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

var jsonDefs = []string{"#Settings", "#Sandbox", "#LSP", "#Models", "#SpawnAgent", "#Proxy", "#OpenAICost", "#WebSearch", "#Trust", "#LegacyBwrap", "#Extension"}
var mdDefs = []string{"#AgentFrontmatter", "#PromptFrontmatter", "#SkillFrontmatter"}

// same checks one document against one definition with both walkers.
func same(t *testing.T, s *Schema, name string, text []byte, root *jsonc.Node, def string) bool {
	t.Helper()
	src := diag.NewSource(name, text)
	c, _ := validate.Load()
	for _, mode := range []Mode{UserConfig, Declaration} {
		opt := Options{Mode: mode}
		want := render(s.Check(src, root, def, opt))
		got := render(c.Check(src, root, def, opt))
		if got != want {
			t.Errorf("%s against %s (mode %d):\ncompiled:\n%sCUE:\n%s", name, def, mode, got, want)
			return false
		}
	}
	return true
}

// corpus lists the real files of the repository and the shared corpus.
func corpus(t *testing.T) []string {
	var files []string
	for _, root := range []string{"../../config/testdata", "../../examples", "../../schema/testdata", "../../../shared/wild", "../../internal/catalog"} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				switch filepath.Ext(p) {
				case ".json", ".jsonc", ".md":
					files = append(files, p)
				}
			}
			return nil
		})
	}
	sort.Strings(files)
	return files
}

// TestCompiledMatchesCUE: on every corpus file, against every definition of its format, the
// compiled walker reports exactly what the CUE walker reports.
func TestCompiledMatchesCUE(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	files := corpus(t)
	if len(files) < 50 {
		t.Fatalf("only %d corpus files found", len(files))
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Ext(f) == ".md" {
			doc, err := frontmatter.Parse(text)
			if err != nil || doc == nil || doc.Data == nil {
				continue
			}
			for _, def := range mdDefs {
				same(t, s, f, text, doc.Data, def)
			}
			continue
		}
		root, err := jsonc.Parse(text)
		if err != nil {
			continue
		}
		for _, def := range jsonDefs {
			same(t, s, f, text, root, def)
		}
	}
}

// step is one element of a path into a document: a key, or an element ("[]").
type place struct {
	def  string
	path []string
	v    cue.Value
}

// places lists the places of the schema a document can reach, with a path to each.
func places(s *Schema) []place {
	var out []place
	seen := map[string]bool{}
	var walk func(def string, v cue.Value, path []string, depth int)
	walk = func(def string, v cue.Value, path []string, depth int) {
		key := def + "/" + strings.Join(path, "/")
		if seen[key] || depth > 7 {
			return
		}
		seen[key] = true
		out = append(out, place{def, append([]string(nil), path...), v})
		if v.IncompleteKind() == cue.TopKind {
			return
		}
		k := s.kindOf(v)
		if k&cue.StructKind != 0 {
			u := v.Unify(s.emptyStruct)
			branches := []cue.Value{u}
			if op, args := u.Expr(); op == cue.OrOp {
				branches = nil
				for _, a := range args {
					if a = a.Unify(s.emptyStruct); a.Err() == nil {
						branches = append(branches, a)
					}
				}
			}
			for _, b := range branches {
				for _, name := range s.structInfo(b).names {
					walk(def, lookupField(b, name), append(path, name), depth+1)
				}
				if s.allows(b, "x") && !contains(s.structInfo(b).names, "x") {
					walk(def, s.field(b, "x"), append(path, "x"), depth+1)
				}
			}
		}
		if k&cue.ListKind != 0 {
			if li := s.list(v); li.elem.Exists() {
				walk(def, li.elem, append(path, "[]"), depth+1)
			}
		}
	}
	for _, def := range append(append([]string(nil), jsonDefs...), mdDefs...) {
		walk(def, s.Def(def), nil, 0)
	}
	return out
}

// nest builds a document holding value at path.
func nest(path []string, value string) string {
	if len(path) == 0 {
		return value
	}
	if path[0] == "[]" {
		return "[" + nest(path[1:], value) + "]"
	}
	k, _ := json.Marshal(path[0])
	return "{" + string(k) + ": " + nest(path[1:], value) + "}"
}

// probes are values tried at every place: the edges of every bound in the schema, the kinds,
// numbers CUE writes in other notations, strings with characters CUE escapes.
var probes = []string{
	`-2`, `-1`, `0`, `1`, `2`, `3`, `4`, `5`, `19`, `20`, `21`, `32`, `100`, `300000`, `-0`,
	`1.5`, `-1.5`, `0.0`, `-0.0`, `100.0`, `1e3`, `1E2`, `-1e-7`, `5e-7`, `0.0001`, `-1e300`, `1e400`, `-1e400`,
	`12345678901234567890`, `-12345678901234567890.5`, `-` + strings.Repeat("9", 450),
	`""`, `"x"`, `"A"`, `"a-b"`, `"1x"`, `"Bad Name"`, `"a//b"`, `"$x"`, `"open"`, `"workspace"`,
	`"tab\there\n\u0001\u00e9\u2028\u007f\ud83d\ude00 \"q\\"`, `"` + strings.Repeat("long ", 20) + `"`,
	`true`, `false`, `null`, `[]`, `{}`, `[1]`, `["x"]`, `{"a": 1}`,
}

// TestCompiledMatchesCUEProbes: at every place of every definition, every probe value (and the
// place's own enum values) gets the same diagnostics from both walkers.
func TestCompiledMatchesCUEProbes(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	ps := places(s)
	if len(ps) < 200 {
		t.Fatalf("only %d places", len(ps))
	}
	fails := 0
	for _, p := range ps {
		values := probes
		if lits, ok := literals(alternatives(p.v)); ok {
			values = append(append([]string(nil), probes...), lits...)
		}
		for _, v := range values {
			doc := nest(p.path, v)
			root, err := jsonc.Parse([]byte(doc))
			if err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			if !same(t, s, "f.json", []byte(doc), root, p.def) {
				if fails++; fails > 20 {
					t.Fatal("too many differences")
				}
			}
		}
	}
}

// FuzzCompiledMatchesCUE: any JSONC document, against any definition, gets the same
// diagnostics from both walkers.
func FuzzCompiledMatchesCUE(f *testing.F) {
	for _, p := range corpus(nil) {
		if filepath.Ext(p) != ".md" {
			if b, err := os.ReadFile(p); err == nil && len(b) < 4000 {
				f.Add(b, uint8(0))
			}
		}
	}
	f.Add([]byte(`{"editorPaddingX": 5, "packages": [{"source": ""}, 3], "personalExtensions": {"fileIo": "x"}}`), uint8(0))
	s, err := Load()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte, which uint8) {
		root, err := jsonc.Parse(text)
		if err != nil {
			return
		}
		same(t, s, "f.json", text, root, jsonDefs[int(which)%len(jsonDefs)])
	})
}
