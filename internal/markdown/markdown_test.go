package markdown

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
)

// tagTheme shows styles as tags, so the golden files say what is bold, a link, a keyword.
type tagTheme struct{ links bool }

func (t tagTheme) Hyperlinks() bool { return t.links }

func (t tagTheme) Paint(s Span) string {
	var tags []string
	for _, x := range []struct {
		st  Style
		tag string
	}{{Bold, "b"}, {Italic, "i"}, {Underline, "u"}, {Strike, "s"}, {Code, "code"}, {Link, "link"},
		{LinkURL, "url"}, {Heading, "h"}, {Quote, "q"}, {QuoteBorder, "qb"}, {CodeBlock, "cb"},
		{CodeBorder, "fence"}, {Rule, "hr"}, {Bullet, "bullet"}, {TableBorder, "tb"}} {
		if s.Style&x.st != 0 {
			tags = append(tags, x.tag)
		}
	}
	if s.Syn != SynNone {
		tags = append(tags, [...]string{"", "comment", "kw", "fn", "var", "str", "num", "type", "op", "punct"}[s.Syn])
	}
	if s.URL != "" && t.links {
		tags = append(tags, "href="+s.URL)
	}
	if len(tags) == 0 {
		return s.Text
	}
	return "<" + strings.Join(tags, ",") + ">" + s.Text + "</>"
}

type plainTheme struct{}

func (plainTheme) Hyperlinks() bool    { return false }
func (plainTheme) Paint(s Span) string { return s.Text }

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update || os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (UPDATE_GOLDEN=1 rewrites it):\n%s", name, got)
	}
}

// TestGolden renders each testdata/*.md at 40 and 80 columns, plain (the layout) and tagged
// (the styles), with and without hyperlinks.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.md")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(f), ".md")
		for _, w := range []int{40, 80} {
			var b strings.Builder
			for _, l := range Render(string(src), w, plainTheme{}, Options{}) {
				fmt.Fprintf(&b, "%s|\n", l)
			}
			golden(t, fmt.Sprintf("%s.%d.txt", base, w), b.String())
		}
		var b strings.Builder
		for _, l := range Render(string(src), 80, tagTheme{}, Options{}) {
			b.WriteString(l + "\n")
		}
		b.WriteString("---- with hyperlinks\n")
		for _, l := range Render(string(src), 80, tagTheme{links: true}, Options{}) {
			b.WriteString(l + "\n")
		}
		golden(t, base+".styles.txt", b.String())
	}
}

// TestFits checks no line is wider than the width, at every width from 1 to 120, for every
// test document: the chat relies on it for frames without stale cells.
func TestFits(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.md")
	for _, f := range files {
		src, _ := os.ReadFile(f)
		for w := 12; w <= 120; w++ {
			for _, l := range Render(string(src), w, plainTheme{}, Options{}) {
				if got := ansi.StringWidth(l); got > w {
					t.Fatalf("%s at %d: %q is %d wide", f, w, l, got)
				}
			}
		}
	}
}

func TestEmpty(t *testing.T) {
	if got := Render("  \n ", 40, plainTheme{}, Options{}); got != nil {
		t.Errorf("blank: %q", got)
	}
}

func FuzzRender(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.md")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(string(b), 40)
	}
	f.Add("| a |\n|---|\n| `|` |", 10)
	f.Add("~~~x\n~~~", 3)
	f.Fuzz(func(t *testing.T, src string, w int) {
		w = w%200 + 2
		if w < 2 {
			w = 2
		}
		for _, l := range Render(src, w, plainTheme{}, Options{}) {
			if ansi.StringWidth(l) > w && !strings.ContainsAny(l, "\x1b") {
				// Control characters in the input can make widths meaningless; only printable
				// lines are held to the width.
				if strings.IndexFunc(l, func(r rune) bool { return r < 32 || r == 0x7f }) < 0 {
					t.Fatalf("line wider than %d: %q", w, l)
				}
			}
		}
	})
}

func BenchmarkRender(b *testing.B) {
	src, _ := os.ReadFile("testdata/all.md")
	s := strings.Repeat(string(src)+"\n\n", 4)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Render(s, 80, plainTheme{}, Options{})
	}
}

// TestParseTree dumps goldmark's tree for testdata/html.md: every HTML block type, raw inline
// HTML, e-mail autolinks and case-folded reference labels. These are the paths whose regexps
// and tables third_party/goldmark builds on first use instead of at init; the golden was
// written with upstream goldmark v1.8.7.
func TestParseTree(t *testing.T) {
	src, err := os.ReadFile("testdata/html.md")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	_ = ast.Walk(Parse(src), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		depth := 0
		for p := n.Parent(); p != nil; p = p.Parent() {
			depth++
		}
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), n.Kind())
		switch v := n.(type) {
		case *ast.HTMLBlock:
			fmt.Fprintf(&b, " type=%d", v.HTMLBlockType)
			if v.HasClosure() {
				fmt.Fprintf(&b, " closure=%q", v.ClosureLine.Value(src))
			}
		case *ast.RawHTML:
			for i := 0; i < v.Segments.Len(); i++ {
				s := v.Segments.At(i)
				fmt.Fprintf(&b, " %q", s.Value(src))
			}
		case *ast.AutoLink:
			fmt.Fprintf(&b, " %v %q", v.AutoLinkType, v.URL(src))
		case *ast.Link:
			fmt.Fprintf(&b, " %q", v.Destination)
		case *ast.Text:
			fmt.Fprintf(&b, " %q", v.Segment.Value(src))
		}
		if n.Type() == ast.TypeBlock {
			for i := 0; i < n.Lines().Len(); i++ {
				s := n.Lines().At(i)
				fmt.Fprintf(&b, "\n%s| %q", strings.Repeat("  ", depth+1), s.Value(src))
			}
		}
		b.WriteString("\n")
		return ast.WalkContinue, nil
	})
	golden(t, "html.tree.txt", b.String())
}

// TestGoldmarkInitIsSmall: every pigo process initialises goldmark's packages, Markdown or not,
// so third_party/goldmark compiles its regexps and builds its case-folding table on first use.
// Upstream v1.8.7's init allocates 139 KB (util: the e-mail regexp, the table) and 110 KB
// (parser: the HTML block regexps); the test binary's own init trace must show a few KB.
func TestGoldmarkInitIsSmall(t *testing.T) {
	if os.Getenv("PIGO_INITTRACE_CHILD") == "1" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoldmarkInitIsSmall$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "PIGO_INITTRACE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		// init github.com/yuin/goldmark/util @5.2 ms, 1.2 ms clock, 139464 bytes, 437 allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/yuin/goldmark/") {
			continue
		}
		seen++
		bytes, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("cannot read %q", line)
		}
		if bytes > 16<<10 {
			t.Errorf("%s: init allocates %d bytes: a regexp or table is built at init again", f[1], bytes)
		}
	}
	if seen == 0 {
		t.Fatalf("no goldmark package in the init trace:\n%s", out)
	}
}
