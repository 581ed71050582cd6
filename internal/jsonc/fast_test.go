package jsonc

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkFast: whatever parseFast takes, the hujson path parses into the same tree. It reports
// whether parseFast took src.
func checkFast(t testing.TB, src []byte) bool {
	t.Helper()
	got, ok := parseFast(src)
	if !ok {
		return false
	}
	want, err := parseHujson(src)
	if err != nil {
		t.Fatalf("parseFast took %q, which the hujson path rejects: %v", src, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseFast(%q) (-hujson +fast):\n%s", src, cmp.Diff(want, got))
	}
	return true
}

// jsoncGen writes random JSONC documents, mostly valid, with pieces of every kind parseFast
// must either read as hujson does or decline: comments of each form (and unclosed, invalid
// UTF-8, line separators), trailing and missing commas, every escape (and bad ones, lone and
// reversed surrogates), raw control characters, invalid UTF-8, numbers of every form and
// near-numbers, near-literals, a BOM, garbage and truncation.
type jsoncGen struct {
	r *rand.Rand
	b []byte
}

var (
	genSpace = []string{"", "", " ", "  ", "\n", "\r\n", "\t", "// c\n", "/* c */", "/* é */", "// é ü\n",
		"/**/", "/* * / */", "//\n", "/* a\nb */", "// \u2028\n", "/* \u2028 */", "//x", "/*", "/*/", "/",
		"/* \xff */", "// \xff\n", "\v", "\f", "\u00a0", "\u2028", "#"}
	genNumbers = []string{"0", "1", "-0", "-1", "12", "1.5", "-1.5e3", "1e10", "1E+2", "1e-2", "0.0", "12.50",
		"1e400", "123456789012345678901234567890", "01", "-", "+1", "1.", ".5", "1e", "1e+", "0x10",
		"NaN", "Infinity", "-Infinity", "1.2.3", "--1", "1-", "0e0", "-0.0E-0", "00", "1ee2", "1.e2", "2a"}
	genWords  = []string{"true", "false", "null", "True", "nul", "nulll", "tru", "undefined", "t", "FALSE"}
	genPieces = []string{"a", "bc", "é", "😀", "\u2028", " ", "[", "{", "]", "}", ",", ":", "/", "//", "/*", "'",
		"\\n", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t", "\\u00e9", "\\u0041", "\\u0000", "\\uFFFD",
		"\\ud83d\\ude00", "\\uD83D\\uDE00", "\\ud83d", "\\ude00", "\\ude00\\ud83d", "\\ud83d\\u0041",
		"\\ud83dx", "\\u12", "\\u12G4", "\\x41", "\\'", "\\a", "\\", "\t", "\n", "\x00", "\x1f", "\x7f",
		"\xff", "\xc3", "\xed\xa0\x80", "\xef\xbf\xbd", "\xf4\x90\x80\x80"}
)

func (g *jsoncGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *jsoncGen) space() {
	if g.r.IntN(4) == 0 {
		g.b = append(g.b, g.pick(genSpace)...)
	} else if g.r.IntN(2) == 0 {
		g.b = append(g.b, " \n\t"[g.r.IntN(3)])
	}
}

// str writes a string literal: one in six may hold any piece, the others only valid ones.
func (g *jsoncGen) str() {
	g.b = append(g.b, '"')
	bad := g.r.IntN(6) == 0
	for range g.r.IntN(5) {
		p := g.pick(genPieces)
		if !bad && (p == "\\" || p == "\n" || p == "\t" || p[0] == '\x00' || p[0] == '\x1f' || p[0] == '\xff' || p[0] == '\xc3' || p[0] == '\xed' || p[0] == '\xf4' || p == "\\'" || p == "\\a" || p == "\\x41" || p == "\\u12" || p == "\\u12G4") {
			p = "x"
		}
		if !bad && g.r.IntN(3) == 0 && strings.HasPrefix(p, "\\") {
			p = "plain"
		}
		g.b = append(g.b, p...)
	}
	if g.r.IntN(40) != 0 {
		g.b = append(g.b, '"')
	}
}

func (g *jsoncGen) value(depth int) {
	switch k := g.r.IntN(10); {
	case k < 2 && depth < 5:
		g.b = append(g.b, '{')
		n := g.r.IntN(4)
		for i := range n {
			g.space()
			switch g.r.IntN(30) {
			case 0:
				g.b = append(g.b, "a"...) // an unquoted key
			case 1:
				g.value(depth + 1) // a key that is not a string
			default:
				g.str()
			}
			g.space()
			if g.r.IntN(30) != 0 {
				g.b = append(g.b, ':')
			}
			g.space()
			g.value(depth + 1)
			g.space()
			if i < n-1 || g.r.IntN(3) == 0 {
				if g.r.IntN(40) != 0 {
					g.b = append(g.b, ',')
				}
				if g.r.IntN(40) == 0 {
					g.b = append(g.b, ',')
				}
			}
		}
		g.space()
		if g.r.IntN(40) != 0 {
			g.b = append(g.b, '}')
		}
	case k < 4 && depth < 5:
		g.b = append(g.b, '[')
		n := g.r.IntN(4)
		for i := range n {
			g.space()
			g.value(depth + 1)
			g.space()
			if i < n-1 || g.r.IntN(3) == 0 {
				if g.r.IntN(40) != 0 {
					g.b = append(g.b, ',')
				}
			}
		}
		if n == 0 && g.r.IntN(20) == 0 {
			g.b = append(g.b, ',')
		}
		g.space()
		if g.r.IntN(40) != 0 {
			g.b = append(g.b, ']')
		}
	case k < 6:
		g.str()
	case k < 8:
		g.b = append(g.b, g.pick(genNumbers)...)
	default:
		g.b = append(g.b, g.pick(genWords)...)
	}
}

func (g *jsoncGen) doc() []byte {
	g.b = g.b[:0]
	if g.r.IntN(10) == 0 {
		g.b = append(g.b, "\uFEFF"...)
	}
	g.space()
	if g.r.IntN(50) != 0 {
		g.value(0)
	}
	g.space()
	switch g.r.IntN(40) {
	case 0:
		g.b = append(g.b, g.pick(genPieces)...)
	case 1:
		g.b = g.b[:g.r.IntN(len(g.b)+1)]
	case 2:
		if len(g.b) > 0 {
			g.b[g.r.IntN(len(g.b))] = g.pick(genPieces)[0]
		}
	}
	return g.b
}

// corpus lists every .json and .jsonc file of examples/, config/testdata and the wild corpus.
func corpus(t *testing.T) []string {
	var files []string
	wild := "../../../shared/wild"
	if _, err := os.Stat(wild); err != nil {
		wild = "/work/shared/wild"
	}
	for _, root := range []string{"../../examples", "../../config/testdata", wild} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".jsonc")) {
				files = append(files, path)
			}
			return nil
		})
	}
	return files
}

// TestFastAsHujson: on 200,000 random JSONC documents and every real file (and mutations of
// them), whatever parseFast takes parses into the same tree through hujson; it takes every
// real file that hujson parses, and the generated documents it takes cover each kind of node.
func TestFastAsHujson(t *testing.T) {
	g := jsoncGen{r: rand.New(rand.NewPCG(25, 38))}
	n, taken, valid := 200_000, 0, 0
	if testing.Short() {
		n = 20_000
	}
	for range n {
		src := g.doc()
		if checkFast(t, src) {
			taken++
		}
		if _, err := parseHujson(src); err == nil {
			valid++
		}
	}
	t.Logf("generated: %d documents, %d valid, %d taken", n, valid, taken)
	if taken < valid/2 {
		t.Errorf("parseFast took only %d of the %d valid generated documents", taken, valid)
	}

	files, realTaken, realValid := corpus(t), 0, 0
	r := rand.New(rand.NewPCG(38, 25))
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		_, herr := parseHujson(src)
		if herr == nil {
			realValid++
		}
		if checkFast(t, src) {
			realTaken++
		} else if herr == nil {
			t.Errorf("%s: parseFast declines a file hujson parses", name)
		}
		// Mutations: a byte changed, removed, or a piece inserted.
		for range 200 {
			m := append([]byte(nil), src...)
			if len(m) == 0 {
				break
			}
			i := r.IntN(len(m))
			switch r.IntN(3) {
			case 0:
				m[i] = genPieces[r.IntN(len(genPieces))][0]
			case 1:
				m = append(m[:i], m[i+1:]...)
			default:
				m = append(m[:i], append([]byte(genPieces[r.IntN(len(genPieces))]), m[i:]...)...)
			}
			checkFast(t, m)
		}
	}
	t.Logf("real files: %d, %d parse, %d taken", len(files), realValid, realTaken)
	if len(files) < 50 {
		t.Errorf("only %d real files found", len(files))
	}

	// Deep nesting: the bound is the same as TooDeep's.
	for _, d := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 1} {
		for _, open := range []string{"[", `{"a":`, `[/* [ */ "[",`} {
			closeb := "]"
			if open[0] == '{' {
				closeb = "}"
			}
			src := []byte(strings.Repeat(open, d) + "1" + strings.Repeat(closeb, d))
			if checkFast(t, src) != (d <= MaxDepth) {
				t.Errorf("depth %d %q: taken = %v", d, open, d <= MaxDepth)
			}
		}
	}
}

// TestFastTakes: the forms parseFast is meant to take, and some it must decline.
func TestFastTakes(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `{"a": 1,}`, `[1, 2,]`, "\uFEFF{\"a\": \"é\"}", "// c\n{/* x */\"a\"/**/:/**/[/**/]/**/}/* e */",
		`"s"`, `1`, `-0.5e-3`, `true`, `null`, `{"a": "\" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \uFFFD"}`,
		`{"a": 1, "a": 2}`, "{\r\n\t\"é😀\": []\r\n}",
	} {
		if !checkFast(t, []byte(s)) {
			t.Errorf("declined %q", s)
		}
	}
	for _, s := range []string{
		``, ` `, `// c`, `{"a\"b": 1}`, `"\ud83d"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, "\"\xff\"", "\"\t\"",
		`{"a": 1 "b": 2}`, `{,}`, `[,]`, `01`, `1.`, `NaN`, `{"a": 1}}`, "/* \xff */ 1", "// \u2028\n1", `{a: 1}`,
	} {
		if checkFast(t, []byte(s)) {
			t.Errorf("took %q", s)
		}
	}
}

// FuzzFast: whatever parseFast takes, the hujson path parses into the same tree.
func FuzzFast(f *testing.F) {
	g := jsoncGen{r: rand.New(rand.NewPCG(1, 2))}
	for range 200 {
		f.Add(append([]byte(nil), g.doc()...))
	}
	seedFromFiles(f, "../../config/testdata/*/*/agent/*.json", "../../examples/*/*.json", "../../examples/*/extensions/*.jsonc")
	f.Fuzz(func(t *testing.T, src []byte) {
		checkFast(t, src)
	})
}

// BenchmarkParseExamples: Parse (parseFast) against the hujson path on examples/' files.
func BenchmarkParseExamples(b *testing.B) {
	var srcs [][]byte
	_ = filepath.WalkDir("../../examples", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".jsonc")) {
			if src, err := os.ReadFile(path); err == nil {
				srcs = append(srcs, src)
			}
		}
		return nil
	})
	for _, c := range []struct {
		name  string
		parse func([]byte) (*Node, error)
	}{{"fast", Parse}, {"hujson", parseHujson}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, src := range srcs {
					if _, err := c.parse(src); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
