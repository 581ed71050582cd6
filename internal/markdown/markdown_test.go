package markdown

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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
