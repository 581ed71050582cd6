package jsonedit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/tailscale/hujson"
)

// corpus returns the parseable inputs of the golden cases.
func corpus(t testing.TB) map[string][]byte {
	files, err := filepath.Glob("testdata/edits/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ar.Files {
			if s.Name == "in.json" {
				if _, err := hujson.Parse(s.Data); err == nil && !isBlank(s.Data) {
					out[filepath.Base(f)] = s.Data
				}
			}
		}
	}
	return out
}

type comment struct {
	start int
	text  string
}

// comments lists the comments of a JSONC source, skipping strings.
func comments(src []byte) []comment {
	var out []comment
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case bytes.HasPrefix(src[i:], []byte("//")):
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			out = append(out, comment{i, string(bytes.TrimRight(src[i:i+j], "\r"))})
			i += j
		case bytes.HasPrefix(src[i:], []byte("/*")):
			j := bytes.Index(src[i+2:], []byte("*/"))
			out = append(out, comment{i, string(src[i : i+2+j+2])})
			i += 2 + j + 1
		}
	}
	return out
}

// allPaths lists the path of every value below the root.
func allPaths(v *hujson.Value, prefix Path, out *[]Path) {
	switch c := v.Value.(type) {
	case *hujson.Object:
		for i := range c.Members {
			p := append(append(Path{}, prefix...), Key(c.Members[i].Name.Value.(hujson.Literal).String()))
			*out = append(*out, p)
			allPaths(&c.Members[i].Value, p, out)
		}
	case *hujson.Array:
		for i := range c.Elements {
			p := append(append(Path{}, prefix...), Index(i))
			*out = append(*out, p)
			allPaths(&c.Elements[i], p, out)
		}
	}
}

var propValues = []string{
	`1`, `"str"`, `true`, `null`, `[]`, `{}`, `[1, "a"]`, `{"x": {"y": [1, 2]}}`,
	`"has // and /* */ inside"`, `[{"k": "v"}]`, `-0.5e3`, `"\u00e9\n"`,
}

var propKeys = []string{"k", "new", "a.b", `q"uote`, "$schema", "x y", "args", "list"}

// removable returns, for unsetting p, the span whose comments may vanish: the removed item
// itself with the comments that belong to it (RemovedSpan). Every other comment must survive.
func removable(d *doc, p Path) (lo, hi int) {
	lo, hi, err := RemovedSpan(d.src, p)
	if err != nil {
		panic(fmt.Sprintf("removable(%s): %v", p, err))
	}
	return lo, hi
}

func countTexts(cs []comment, skip func(int) bool) map[string]int {
	m := map[string]int{}
	for _, c := range cs {
		if skip == nil || !skip(c.start) {
			m[c.text]++
		}
	}
	return m
}

func TestPropertyRandomEdits(t *testing.T) {
	files := corpus(t)
	if len(files) < 10 {
		t.Fatalf("corpus too small: %d files", len(files))
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	// Sorted for determinism.
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if names[j] < names[i] {
				names[i], names[j] = names[j], names[i]
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	done := map[string]int{}
	defer func() { t.Logf("operations applied: %v", done) }()
	const runs, steps = 150, 12
	for run := 0; run < runs; run++ {
		name := names[rng.IntN(len(names))]
		src := files[name]
		if rng.IntN(4) == 0 {
			src = bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
		}
		var log []string
		for step := 0; step < steps; step++ {
			d, err := parseDoc(src)
			if err != nil {
				t.Fatalf("%s run %d: input no longer parses: %v\nops: %q\n%s", name, run, err, log, src)
			}
			if _, ok := d.root.Value.(*hujson.Object); !ok {
				break
			}
			var paths []Path
			allPaths(&d.root, nil, &paths)
			before := comments(src)
			val := propValues[rng.IntN(len(propValues))]
			var (
				p     Path
				out   []byte
				verb  string
				skip  func(int) bool
				check func() error
			)
			switch r := rng.IntN(10); {
			case r < 3 && len(paths) > 0: // replace an existing value
				p = paths[rng.IntN(len(paths))]
				vals, _, _ := d.walk(p)
				old := vals[len(p)]
				skip = func(off int) bool { return off >= old.StartOffset && off < old.EndOffset }
				verb = "set"
			case r < 5: // new key below an existing object (or the root)
				base := Path{}
				if len(paths) > 0 && rng.IntN(2) == 0 {
					base = paths[rng.IntN(len(paths))]
				}
				vals, _, _ := d.walk(base)
				if _, ok := vals[len(base)].Value.(*hujson.Object); !ok {
					continue
				}
				p = append(append(Path{}, base...), Key(propKeys[rng.IntN(len(propKeys))]))
				if rng.IntN(3) == 0 {
					p = append(p, Key("deep"))
				}
				if vs, _, err := d.walk(p); err != nil || len(vs) == len(p)+1 {
					// Exists or blocked by a scalar: a replacement, if allowed.
					if err != nil {
						continue
					}
					old := vs[len(p)]
					skip = func(off int) bool { return off >= old.StartOffset && off < old.EndOffset }
				}
				verb = "set"
			case r < 8 && len(paths) > 0:
				p = paths[rng.IntN(len(paths))]
				lo, hi := removable(d, p)
				skip = func(off int) bool { return off >= lo && off < hi }
				verb = "unset"
			default:
				var arrays []Path
				for _, q := range paths {
					vals, _, _ := d.walk(q)
					if _, ok := vals[len(q)].Value.(*hujson.Array); ok {
						arrays = append(arrays, q)
					}
				}
				if len(arrays) == 0 {
					p = Path{Key("list")}
					if vs, _, err := d.walk(p); err != nil || len(vs) == 2 {
						continue
					}
				} else {
					p = arrays[rng.IntN(len(arrays))]
				}
				verb = "add"
			}
			log = append(log, fmt.Sprintf("%s %s %s", verb, p, val))
			switch verb {
			case "set":
				out, err = Set(src, p, []byte(val))
				check = func() error {
					got, found, err := Get(out, p)
					want, _ := parseValue([]byte(val))
					if err != nil || !found || !bytes.Equal(got, want.Pack()) {
						return fmt.Errorf("Get after Set = %s, %v, %v; want %s", got, found, err, want.Pack())
					}
					return nil
				}
			case "unset":
				out, err = Unset(src, p)
				check = func() error { return nil }
			case "add":
				out, err = Add(src, p, []byte(val))
				check = func() error {
					arr, found, err := Get(out, p)
					if err != nil || !found {
						return fmt.Errorf("Get after Add: %v %v", found, err)
					}
					v, _ := hujson.Parse(arr)
					n := len(v.Value.(*hujson.Array).Elements)
					got, _, _ := Get(out, append(append(Path{}, p...), Index(n-1)))
					want, _ := parseValue([]byte(val))
					if !bytes.Equal(got, want.Pack()) {
						return fmt.Errorf("last element after Add = %s, want %s", got, want.Pack())
					}
					return nil
				}
			}
			if err != nil {
				t.Fatalf("%s run %d: %v\nops: %q\n%s", name, run, err, log, src)
			}
			if _, perr := hujson.Parse(out); perr != nil {
				t.Fatalf("%s run %d: output does not parse: %v\nops: %q\n--- in\n%s\n--- out\n%s", name, run, perr, log, src, out)
			}
			if err := check(); err != nil {
				t.Fatalf("%s run %d: %v\nops: %q\n%s", name, run, err, log, out)
			}
			kept := countTexts(before, skip)
			after := countTexts(comments(out), nil)
			all := countTexts(before, nil)
			for text, n := range kept {
				if after[text] < n {
					t.Fatalf("%s run %d: comment %q lost\nops: %q\n--- in\n%s\n--- out\n%s", name, run, text, log, src, out)
				}
			}
			for text, n := range after {
				if n > all[text] {
					t.Fatalf("%s run %d: comment %q appeared\nops: %q\n%s", name, run, text, log, out)
				}
			}
			if bytes.Contains(src, []byte("\r\n")) && bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
				t.Fatalf("%s run %d: CRLF file got a bare LF\nops: %q\n%q", name, run, log, out)
			}
			done[verb]++
			src = out
		}
	}
}
