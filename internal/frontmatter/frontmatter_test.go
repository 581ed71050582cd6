package frontmatter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// members renders the top-level members of a frontmatter as `key@"key text"=kind@"value text"`.
func members(src []byte, n *jsonc.Node) []string {
	var out []string
	for _, m := range n.Members {
		out = append(out, fmt.Sprintf("%s@%q=%s@%q", m.Key, src[m.KeyStart:m.KeyEnd], m.Value.Kind, src[m.Value.Start:m.Value.End]))
	}
	return out
}

func TestParseOffsets(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{"plain", "---\nname: scout\ndescription: Looks around\n---\nBody\n", []string{
			`name@"name"=string@"scout"`, `description@"description"=string@"Looks around"`,
		}},
		{"crlf", "---\r\nname: scout\r\ntools: read, grep\r\n---\r\nBody\r\n", []string{
			`name@"name"=string@"scout"`, `tools@"tools"=string@"read, grep"`,
		}},
		{"bom", "\uFEFF---\nname: é-agent\nthinking: high\n---\n", []string{
			`name@"name"=string@"é-agent"`, `thinking@"thinking"=string@"high"`,
		}},
		{"quoted scalars", "---\nname: 'it''s'\ndescription: \"a \\\"b\\\" c\" # note\ncolor: \"#a8d0e6\"\n---\n", []string{
			`name@"name"=string@"'it''s'"`, `description@"description"=string@"\"a \\\"b\\\" c\""`, `color@"color"=string@"\"#a8d0e6\""`,
		}},
		{"comment after a plain scalar", "---\nmodel: gpt-5 # fast\n---\n", []string{`model@"model"=string@"gpt-5"`}},
		{"lists and numbers", "---\ntools: [read, grep]\nmax_turns: 20\nextensions:\n---\n", []string{
			`tools@"tools"=array@"["`, `max_turns@"max_turns"=number@"20"`, `extensions@"extensions"=null@""`,
		}},
		{"multibyte before a value", "---\ndescription: — arrows → here\nname: x\n---\n", []string{
			`description@"description"=string@"— arrows → here"`, `name@"name"=string@"x"`,
		}},
		{"block scalar", "---\ndescription: >\n  Folded\n  text\nname: w\n---\n", []string{
			`description@"description"=string@">"`, `name@"name"=string@"w"`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Parse([]byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if !d.Present || d.Data == nil {
				t.Fatalf("no frontmatter found")
			}
			if d := cmp.Diff(c.want, members([]byte(c.src), d.Data)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseTabsInValues(t *testing.T) {
	src := []byte("---\ndescription: a\tb\nname: x\n---\n")
	d, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	v := d.Data.Get("description")
	if v.Str != "a\tb" || string(src[v.Start:v.End]) != "a\tb" {
		t.Errorf("value %q at %q", v.Str, src[v.Start:v.End])
	}
}

func TestParseDelimiters(t *testing.T) {
	cases := []struct {
		name                                string
		src                                 string
		present                             bool
		open, yamlStart, yamlEnd, bodyStart int
	}{
		{"none", "# Title\n", false, 0, 0, 0, 0},
		{"empty frontmatter", "---\n---\nBody", true, 0, 4, 4, 8},
		{"dots close", "---\na: 1\n...\nBody", true, 0, 4, 9, 13},
		{"bom", "\uFEFF---\na: 1\n---\n", true, 3, 7, 12, 16},
		{"crlf", "---\r\na: 1\r\n---\r\nB", true, 0, 5, 11, 16},
		{"trailing spaces on delimiters", "---  \na: 1\n--- \n", true, 0, 6, 11, 16},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Parse([]byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			got := []int{d.Open, d.YAMLStart, d.YAMLEnd, d.BodyStart}
			want := []int{c.open, c.yamlStart, c.yamlEnd, c.bodyStart}
			if d.Present != c.present || !cmp.Equal(got, want) {
				t.Errorf("present %v offsets %v, want %v %v", d.Present, got, c.present, want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int // 1-based line of the error offset
		msg       string
	}{
		{"no closing line", "---\nname: x\n\nBody\n", 1, "not closed"},
		{"no closing line, bom", "\uFEFF---\nname: x\n", 1, "not closed"},
		{"broken yaml", "---\nname: x\ndescription: \"open\ntools: read\n---\n", 3, "invalid YAML"},
		{"bad indentation", "---\na: b: c\n---\n", 2, "invalid YAML"},
		{"not a mapping", "---\n- a\n- b\n---\n", 2, "must be a mapping"},
		{"scalar", "---\njust text\n---\n", 2, "must be a mapping"},
		{"unknown alias", "---\na: *nope\n---\n", 2, "invalid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src))
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("want an *Error, got %v", err)
			}
			line := 1 + strings.Count(c.src[:fe.Offset], "\n")
			if line != c.line || !strings.Contains(fe.Msg, c.msg) {
				t.Errorf("line %d %q, want line %d containing %q", line, fe.Msg, c.line, c.msg)
			}
		})
	}
}

// FuzzFrontmatter: Parse never panics and every offset it reports lies inside the file.
func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\n---\n", "---\r\nname: 'x'\r\n---\r\n", "\uFEFF---\na: [1, {b: c}]\n---\n", "---\na: &x 1\nb: *x\n---\n",
		"---\na: |\n  x\n---\n", "---\n", "---\n---", "---\na: \"\\u00e9\"\n---\n", "---\n\t- x\n---\n", "plain",
	} {
		f.Add([]byte(s))
	}
	for _, g := range []string{"../../config/testdata/*/*/agent/*/*.md", "../../config/testdata/*/*/agent/skills/*/SKILL.md", "../../examples/*/*/*.md"} {
		names, _ := filepath.Glob(g)
		for _, n := range names {
			if data, err := os.ReadFile(n); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := Parse(src)
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("error is not an *Error: %v", err)
			}
			if fe.Offset < 0 || fe.Offset > len(src) {
				t.Fatalf("error offset %d outside [0,%d]", fe.Offset, len(src))
			}
			return
		}
		for _, off := range []int{d.Open, d.YAMLStart, d.YAMLEnd, d.BodyStart} {
			if off < 0 || off > len(src) {
				t.Fatalf("delimiter offset %d outside [0,%d]", off, len(src))
			}
		}
		jsonc.Walk(d.Data, func(path []any, n *jsonc.Node) bool {
			if n.Start < 0 || n.End > len(src) || n.Start > n.End {
				t.Fatalf("%v: span [%d,%d) outside the file (%d bytes)", path, n.Start, n.End, len(src))
			}
			for _, m := range n.Members {
				if m.KeyStart < 0 || m.KeyEnd > len(src) || m.KeyStart > m.KeyEnd {
					t.Fatalf("%v: key %q span [%d,%d) outside the file", path, m.Key, m.KeyStart, m.KeyEnd)
				}
			}
			return true
		})
	})
}
