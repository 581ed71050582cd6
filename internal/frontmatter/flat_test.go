package frontmatter

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// flatValues are values a generated line takes: plain strings, YAML's other scalars, quoted
// strings with and without escapes, and characters that end, break or change a plain scalar.
var flatValues = []string{
	"scout", "Reviews a diff for bugs", "read, grep, find, ls", "claude-sonnet-4-5", "high", "a {b} [c]",
	"say \"hi\"", "x:y", "a :b", "a#b", "x #c", "x: y", "x:", "x::", "true", "True", "TRUE", "tRUE", "false",
	"False", "FALSE", "null", "Null", "NULL", "nULL", "yes", "no", "on", "off", "y", "n", "Yes", "~", "1", "1.5",
	"-x", "- x", "-", "+1", ".inf", ".nan", "2001-12-14", "0x1F", "<<", "&a x", "*a", "!t x", "|", ">", "> x", "@x",
	"`x`", "%x", "?x", ":x", ",x", "[a]", "{a: b}", "#c", "'q'", "\"q\"", "\"a\\\"b\"", "\"a\\nb\"", "'it''s'", "''",
	"\"\"", "\"x", "x'", "'x", "\"a\" b", "é-agent", "— arrows → here", "€x", "x\u2028y", "x\u0085y", "\ufeffx",
	"x\u00a0y", "\u00a0x", "x\ty", "x\u007fy", "日本語", "x\U0001F600", "x\\y", "c:\\dir", "$1 and $ARGUMENTS",
	"<file>", "[focus]", "a\"", "O'Brien",
}

func genFlat(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("---\n")
	var keys []string
	noisy := r.IntN(3) == 0 // most documents are clean but for their values
	for range 1 + r.IntN(6) {
		clean := !noisy || r.IntN(4) != 0
		key := []string{"name", "description", "tools", "model", "thinkingLevel", "argument-hint", "x_1", "A", "true", "on", "<<", "1a", "-a", "a b", "é"}[r.IntN(15)]
		if len(keys) > 0 && r.IntN(8) == 0 {
			key = keys[r.IntN(len(keys))]
		}
		keys = append(keys, key)
		if clean {
			key = []string{"name", "description", "tools", "model", "thinkingLevel", "argument-hint", "x_1", "A", "true", "on"}[r.IntN(10)]
		}
		switch n := r.IntN(14); {
		case clean:
		case n == 0:
			b.WriteString("  ") // indented
		case n == 1:
			b.WriteString("# c\n")
		case n == 2:
			b.WriteString("\n") // a blank line
		}
		b.WriteString(key)
		if clean {
			b.WriteString([]string{": ", ":  "}[r.IntN(2)])
		} else {
			b.WriteString([]string{": ", ": ", ": ", ":  ", ":", ":\t", " : ", ": \t"}[r.IntN(8)])
		}
		v := flatValues[r.IntN(len(flatValues))]
		if clean && r.IntN(2) == 0 {
			v = flatValues[r.IntN(12)]
		}
		if r.IntN(4) == 0 && !clean {
			v += []string{" ", "  ", "\t", " # c", " " + flatValues[r.IntN(len(flatValues))]}[r.IntN(5)]
		}
		b.WriteString(v)
		b.WriteString([]string{"\n", "\n", "\n", "\r\n", "\r"}[r.IntN(5)])
		if !clean && r.IntN(5) == 0 {
			b.WriteString("  continued\n")
		}
	}
	b.WriteString("---\nBody\n")
	return b.String()
}

// TestFlatAsYAML: whatever parseFlat takes, yaml.v3 reads into the same tree (offsets, kinds,
// strings) without an error or a warning; it takes the flat files of examples/ and of the
// corpus of real frontmatter, and a good share of the generated ones.
func TestFlatAsYAML(t *testing.T) {
	check := func(src string) bool {
		d, err := Parse([]byte(src))
		if err != nil || !d.Present || d.YAMLEnd == 0 {
			return false
		}
		n, ok := parseFlat([]byte(src), d.YAMLStart, d.YAMLEnd)
		if !ok {
			return false
		}
		y := &Doc{Present: true, Open: d.Open, YAMLStart: d.YAMLStart, YAMLEnd: d.YAMLEnd, BodyStart: d.BodyStart}
		y, yerr := parseYAML(y, []byte(src))
		if yerr != nil {
			t.Fatalf("parseFlat took %q, yaml.v3 says %v", src, yerr)
		}
		if !reflect.DeepEqual(n, y.Data) || y.Warnings != nil || !reflect.DeepEqual(d, y) {
			t.Fatalf("parseFlat and yaml.v3 differ on %q:\nflat %s\nyaml %s", src, dump(n), dump(y.Data))
		}
		return true
	}
	r := rand.New(rand.NewPCG(25, 35))
	taken, tried := 0, 0
	for range 40000 {
		tried++
		if check(genFlat(r)) {
			taken++
		}
	}
	if taken < tried/20 {
		t.Fatalf("parseFlat took %d of %d generated frontmatters: too few to compare", taken, tried)
	}
	t.Logf("parseFlat took %d of %d generated frontmatters", taken, tried)
	var files []string
	for _, g := range []string{"../../examples/*/*/*.md", "../../examples/*/*/*/*.md", "../../examples/*/.pi/*/*.md", "../../config/testdata/*/*/agent/*/*.md", "/work/shared/wild/*/*.md"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	flat := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if check(string(b)) {
			flat++
		}
	}
	for _, f := range []string{"../../examples/agent/agents/scout.md", "../../examples/agent/prompts/review.md", "../../examples/agent/skills/commit/SKILL.md"} {
		b, _ := os.ReadFile(f)
		if !check(string(b)) {
			t.Errorf("%s is flat frontmatter, parseFlat did not take it", f)
		}
	}
	t.Logf("parseFlat took %d of %d real files", flat, len(files))
}

func dump(n any) string {
	if n == nil {
		return "<nil>"
	}
	return strings.ReplaceAll(strings.TrimSpace(strings.ReplaceAll(reflectString(n), "\n", " ")), "  ", " ")
}

func reflectString(v any) string {
	var b strings.Builder
	var walk func(reflect.Value, int)
	walk = func(x reflect.Value, depth int) {
		if depth > 8 {
			return
		}
		switch x.Kind() {
		case reflect.Pointer:
			if x.IsNil() {
				b.WriteString("nil")
				return
			}
			walk(x.Elem(), depth+1)
		case reflect.Struct:
			b.WriteString("{")
			for i := range x.NumField() {
				b.WriteString(x.Type().Field(i).Name + ":")
				walk(x.Field(i), depth+1)
				b.WriteString(" ")
			}
			b.WriteString("}")
		case reflect.Slice:
			b.WriteString("[")
			for i := range x.Len() {
				walk(x.Index(i), depth+1)
				b.WriteString(",")
			}
			b.WriteString("]")
		default:
			b.WriteString(strings.TrimSpace(strings.ReplaceAll(fmtValue(x), "\n", " ")))
		}
	}
	walk(reflect.ValueOf(v), 0)
	return b.String()
}

func fmtValue(x reflect.Value) string {
	if x.Kind() == reflect.String {
		return "\"" + x.String() + "\""
	}
	return strings.TrimSpace(strings.Trim(reflect.ValueOf(x.Interface()).String(), "<>"))
}
