package pattern

import (
	"errors"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pat, name string
		want      bool
	}{
		{"Read", "Read", true},
		{"Read", "read", false}, // case-sensitive
		{"web_*", "web_search", true},
		{"web_*", "web_fetch", true},
		{"web_*", "xweb_fetch", false},
		{"talk-*", "talk-send", true},
		{"*", "glm-4.6", true},
		{"*", "zhipu/glm-4.6", false}, // `*` does not cross `/`
		{"**", "zhipu/glm-4.6", true},
		{"**", "a/b/c", true},
		{"zhipu/*", "zhipu/glm-4.6", true},
		{"zhipu/*", "glm-4.6", false},
		{"glm-*", "glm-4.6", true},
		{"?ead", "Read", true},
		{"?ead", "/ead", false}, // `?` does not cross `/`
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a**", "a/b", false}, // `**` not a whole segment acts as `*`
		{"a**", "abc", true},
		{"{Read,Write}", "Write", true},
		{"{Read,Write}", "Edit", false},
		{"lsp-{rename,inspect}", "lsp-inspect", true},
		{"[RW]*", "Read", true},
		{"[RW]*", "Edit", false},
		{"[!RW]*", "Edit", true},
		{"[^RW]*", "Edit", true},
		{"[^RW]*", "Read", false},
		{"[a-c]x", "bx", true},
		{"[]]x", "]x", true},
		{"!Read", "Read", false},
		{"!Read", "Write", true},
		{"!!Read", "Read", true},
		{"#x", "#x", false},
		{"#x", "x", false},
		{"#", "", false},
		{`\*`, "*", true},
		{`\*`, "a", false},
		{"", "", true},
		{"", "a", false},
	}
	for _, tt := range tests {
		p, err := Compile(tt.pat)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.pat, err)
		}
		if got := p.Match(tt.name); got != tt.want {
			t.Errorf("%q.Match(%q) = %v, want %v", tt.pat, tt.name, got, tt.want)
		}
	}
}

func TestCompileErrorOffset(t *testing.T) {
	tests := []struct {
		pat    string
		offset int
	}{
		{"{a,b", 4},
		{"web_{a", 6},
		{"!{a", 3},
		{"[ab", 3},
		{"a**{", 4}, // offset is in the text as written, not the rewritten one
	}
	for _, tt := range tests {
		_, err := Compile(tt.pat)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("Compile(%q) = %v, want *Error", tt.pat, err)
		}
		if pe.Offset != tt.offset {
			t.Errorf("Compile(%q) offset = %d, want %d (%v)", tt.pat, pe.Offset, tt.offset, err)
		}
	}
}

func TestMatchModel(t *testing.T) {
	glm := &Model{Provider: "zhipu", ID: "glm-4.6"}
	gpt := &Model{Provider: "openai", ID: "gpt-5"}
	bare := &Model{ID: "glm-4.6"}
	slashed := &Model{Provider: "openrouter", ID: "z-ai/glm-4.6"}
	tests := []struct {
		pats []string
		m    *Model
		want bool
	}{
		{nil, nil, true}, // empty = all models including none
		{nil, gpt, true},
		{[]string{"*"}, nil, false}, // non-empty never matches no model
		{[]string{"zhipu/*"}, glm, true},
		{[]string{"zhipu/*"}, gpt, false},
		{[]string{"zhipu/*"}, bare, false},
		{[]string{"glm-*"}, glm, true},
		{[]string{"glm-*"}, bare, true},
		{[]string{"glm-*"}, gpt, false},
		{[]string{"*"}, slashed, false}, // `*` fails for ids containing `/`
		{[]string{"**"}, slashed, true},
		{[]string{"openrouter/**"}, slashed, true},
		{[]string{"gpt-*", "glm-*"}, glm, true},
	}
	for _, tt := range tests {
		var ps []*Pattern
		for _, s := range tt.pats {
			ps = append(ps, MustCompile(s))
		}
		if got := MatchModel(ps, tt.m); got != tt.want {
			t.Errorf("MatchModel(%q, %+v) = %v, want %v", tt.pats, tt.m, got, tt.want)
		}
	}
}

func FuzzCompile(f *testing.F) {
	for _, s := range []string{"web_*", "{a,b", "[!a-z]", "!Read", "#x", "**", `\`, "[]", "[^]]", "a/**/b", "{a,{b,c}}", "[z-a]"} {
		f.Add(s, "web_search")
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		p, err := Compile(pat)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not *Error", err)
			}
			if pe.Offset < 0 || pe.Offset > len(pat) {
				t.Fatalf("offset %d outside pattern %q", pe.Offset, pat)
			}
			return
		}
		a := p.Match(name)
		if p.Match(name) != a {
			t.Fatal("Match is not deterministic")
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	p := MustCompile("{web_*,talk-*,lsp-{rename,inspect}}")
	b.ReportAllocs()
	for b.Loop() {
		p.Match("lsp-inspect")
	}
}
