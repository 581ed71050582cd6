package validate

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// genDoc writes a random JSON value for schema node i: mostly what the schema takes (its
// structs' fields, required ones sometimes left out, its lists, its literals), and often what
// it does not (wrong kinds, unknown keys, near misses, keys that need quoting in a path,
// duplicate keys, empty lists, long objects), so that every diagnostic path is exercised.
func genDoc(r *rand.Rand, b *strings.Builder, i int32, depth int) {
	sch := &nodes[i]
	if depth > 6 || r.IntN(12) == 0 {
		genScalar(r, b, sch)
		return
	}
	switch {
	case len(sch.structs) > 0 && r.IntN(5) != 0:
		st := &structs[sch.structs[r.IntN(len(sch.structs))]]
		var keys []string
		for _, k := range st.names {
			if r.IntN(3) != 0 {
				keys = append(keys, k)
			}
		}
		for range r.IntN(3) {
			switch r.IntN(6) {
			case 0:
				keys = append(keys, "unknownKey"+strconv.Itoa(r.IntN(3)))
			case 1:
				if len(st.names) > 0 {
					k := st.names[r.IntN(len(st.names))]
					keys = append(keys, k+"x") // a near miss
				}
			case 2:
				keys = append(keys, []string{"a.b", "", "x y", `q"`, "[0]"}[r.IntN(5)])
			case 3:
				if len(keys) > 0 {
					keys = append(keys, keys[r.IntN(len(keys))]) // a duplicate
				}
			default:
				if len(st.names) > 0 {
					keys = append(keys, st.names[r.IntN(len(st.names))])
				}
			}
		}
		if r.IntN(20) == 0 { // a large object: the map path
			for k := range 10 + r.IntN(20) {
				keys = append(keys, "k"+strconv.Itoa(k%13))
			}
		}
		r.Shuffle(len(keys), func(a, c int) { keys[a], keys[c] = keys[c], keys[a] })
		b.WriteByte('{')
		for n, k := range keys {
			if n > 0 {
				b.WriteString([]string{",", ",\n"}[r.IntN(2)]) // lines tell a duplicate's earlier members apart
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			if child := st.field(k); child >= 0 && r.IntN(8) != 0 {
				genDoc(r, b, child, depth+1)
			} else {
				genDoc(r, b, int32(r.IntN(len(nodes))), depth+3)
			}
		}
		b.WriteByte('}')
	case sch.list >= 0 && r.IntN(5) != 0:
		li := &lists[sch.list]
		b.WriteByte('[')
		for n := range r.IntN(4) {
			if n > 0 {
				b.WriteByte(',')
			}
			el := li.elem
			if el < 0 {
				if n < len(li.tuple) {
					el = li.tuple[n]
				} else {
					el = int32(r.IntN(len(nodes)))
				}
			}
			genDoc(r, b, el, depth+1)
		}
		b.WriteByte(']')
	default:
		genScalar(r, b, sch)
	}
}

func genScalar(r *rand.Rand, b *strings.Builder, sch *node) {
	if len(sch.lits) > 0 && r.IntN(2) == 0 {
		b.WriteString(sch.lits[r.IntN(len(sch.lits))])
		return
	}
	for _, a := range sch.alts {
		if a.lit != "" && r.IntN(3) == 0 {
			b.WriteString(a.lit)
			return
		}
	}
	switch r.IntN(9) {
	case 0:
		b.WriteString("null")
	case 1:
		b.WriteString([]string{"true", "false"}[r.IntN(2)])
	case 2:
		b.WriteString(strconv.Itoa(r.IntN(200) - 50))
	case 3:
		b.WriteString([]string{"1.5", "-0.25", "1e3", "99999999999"}[r.IntN(4)])
	case 4:
		b.WriteString("[]")
	case 5:
		b.WriteString("{}")
	default:
		b.WriteString(strconv.Quote([]string{"", "x", "read", "1h", "10s", "*.go", "medium", "a/b", "$X", "https://e.x", "openai"}[r.IntN(11)]))
	}
}

// TestCheckAsEager: the walk that writes paths only for diagnostics gives exactly the
// diagnostics of the walk that built every path as it went (eager_test.go), on random
// documents for every definition, in both modes, with and without skipped top-level keys.
func TestCheckAsEager(t *testing.T) {
	s, _ := Load()
	r := rand.New(rand.NewPCG(25, 35))
	total, withDiags := 0, 0
	for round := range 40 {
		for _, d := range defs {
			var b strings.Builder
			genDoc(r, &b, d.node, 0)
			text := []byte(b.String())
			if round%4 == 0 { // the same document as JSONC with comments and a trailing comma
				text = []byte(strings.Replace(string(text), "{", "{ // c\n", 1))
			}
			root, err := jsonc.Parse(text)
			if err != nil {
				continue
			}
			src := diag.NewSource("f.json", text)
			for _, opt := range []Options{{Mode: UserConfig}, {Mode: Declaration}, {Mode: UserConfig, Skip: skipKeys(r, d.node)}} {
				got, want := s.Check(src, root, d.name, opt), checkEager(src, root, d.name, opt)
				total++
				if len(want) > 0 {
					withDiags++
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %+v on %s:\ngot  %v\nwant %v", d.name, opt, text, render(got), render(want))
				}
			}
		}
	}
	if withDiags < total/3 {
		t.Fatalf("only %d of %d checks had diagnostics: the generator is too tame", withDiags, total)
	}
	t.Logf("%d checks, %d with diagnostics", total, withDiags)
}

func skipKeys(r *rand.Rand, i int32) []string {
	var out []string
	for _, si := range nodes[i].structs {
		st := &structs[si]
		for _, k := range append(append([]string(nil), st.names...), st.required...) {
			if r.IntN(4) == 0 {
				out = append(out, k)
			}
		}
	}
	return out
}

func render(l diag.List) string {
	var b strings.Builder
	for _, d := range l {
		fmt.Fprintf(&b, "\n  %d-%d %s %s %q: %s (%s)", d.Start, d.End, d.Severity, d.Code, d.Path, d.Message, d.Hint)
	}
	return b.String()
}

// TestCheckAllocs: checking a settings file without problems (examples/agent/settings.json)
// writes no path: a third of the eager walk's allocations at most.
func TestCheckAllocs(t *testing.T) {
	s, _ := Load()
	text, err := os.ReadFile("../../examples/agent/settings.json")
	if err != nil {
		t.Fatal(err)
	}
	root, err := jsonc.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	src := diag.NewSource("settings.json", text)
	if ds := s.Check(src, root, "#Settings", Options{}); len(ds) != 0 {
		t.Fatalf("the sample has diagnostics: %v", render(ds))
	}
	// 135 allocations before (a path per member, per element and per scalar, a map per object),
	// 33 after: what is left is the scalars' values (valueOf), not the paths.
	n := testing.AllocsPerRun(20, func() { s.Check(src, root, "#Settings", Options{}) })
	eager := testing.AllocsPerRun(20, func() { checkEager(src, root, "#Settings", Options{}) })
	if n > 40 || n*3 > eager {
		t.Errorf("Check allocates %v times on a clean file, the eager walk %v: want at most 40 and a third", n, eager)
	}
}

// TestPlainQuotedAsUnquote: plainQuoted takes a literal only when strconv.Unquote reads it to
// the same text, on the schema's literals and on quoted texts with escapes, quotes, control and
// non-ASCII characters; a string value's message text is Quote of it, as valueOf wrote it.
func TestPlainQuotedAsUnquote(t *testing.T) {
	lits := []string{`""`, `"a"`, `"read"`, `"a\"b"`, `"a\\b"`, `"a\nb"`, "\"a\nb\"", `"é"`, "\"\x7f\"", "\"\x01\"", `"`, `x`, `"a" `, `'a'`, "`a`", `"a"b"`}
	for _, n := range nodes {
		lits = append(lits, n.lits...)
	}
	taken := 0
	for _, l := range lits {
		body, ok := plainQuoted(l)
		if !ok {
			continue
		}
		taken++
		if s, err := strconv.Unquote(l); err != nil || s != body {
			t.Errorf("plainQuoted(%q) = %q, Unquote gives %q, %v", l, body, s, err)
		}
	}
	if taken < 20 {
		t.Fatalf("plainQuoted took only %d literals", taken)
	}
	for _, s := range []string{"", "a", "é\u2028\x00\"\\", "\xff"} {
		if got := valueOf(&jsonc.Node{Kind: jsonc.String, Str: s}).msgText(); got != Quote(s) {
			t.Errorf("msgText of %q = %q, want %q", s, got, Quote(s))
		}
	}
}
