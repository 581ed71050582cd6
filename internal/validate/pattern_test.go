package validate

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// schemaPatterns are the patterns schema_gen.go holds (atoms =~ and !~, and the patterns
// of undeclared keys).
func schemaPatterns() []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for i := range nodes {
		for _, a := range nodes[i].alts {
			for _, at := range a.atoms {
				if at.op == "=~" || at.op == "!~" {
					add(at.str)
				}
			}
		}
	}
	for i := range structs {
		add(structs[i].patternRe)
	}
	return out
}

// TestKnownPatternsAsRegexp: every pattern of the schema has a hand-written matcher, and
// each matcher agrees with regexp's MatchString on edge cases and 20,000 random strings.
func TestKnownPatternsAsRegexp(t *testing.T) {
	ps := schemaPatterns()
	if len(ps) < 5 {
		t.Fatalf("only %d patterns found in the schema", len(ps))
	}
	r := rand.New(rand.NewPCG(31, 25))
	alphabet := []string{"a", "z", "A", "Z", "0", "9", "-", "_", ".", ":", "/", "$", " ", "\n", "é", "\xff", "g", "M", "5"}
	edge := []string{"", "a", "A", "0", "-", "a-", "-a", "a--b", "a-b", "a/b", "a//b", "/a", "a/", "a/1", "a/_", "1a", "$x", "x$",
		"a.b:c-d_e", "_a", "a\n", "\na", "é", "aé", "\xff", "$", "ab/cd-e_f/g", "A-1", "a-1-b2", "ABC"}
	for _, p := range ps {
		m := knownPattern(p)
		if m == nil {
			t.Errorf("pattern %q has no hand-written matcher: add one to knownPattern", p)
			continue
		}
		rx := regexp.MustCompile(p)
		check := func(s string) {
			if got, want := m(s), rx.MatchString(s); got != want {
				t.Fatalf("pattern %q on %q: %v, regexp %v", p, s, got, want)
			}
		}
		for _, s := range edge {
			check(s)
		}
		for range 20000 {
			var b strings.Builder
			for range r.IntN(9) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			check(b.String())
		}
	}
	if knownPattern(`^x+$`) != nil || !matches(`^x+$`, "xx") || matches(`^x+$`, "xy") {
		t.Fatal("an unknown pattern is not matched by regexp")
	}
}

// FuzzKnownPatterns: the hand-written matchers agree with regexp on any string.
func FuzzKnownPatterns(f *testing.F) {
	for _, s := range []string{"", "a-b", "a/b", "$x", "A.b:c", "\xff"} {
		f.Add(s)
	}
	ps := schemaPatterns()
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range ps {
			if m := knownPattern(p); m != nil && m(s) != regexp.MustCompile(p).MatchString(s) {
				t.Fatalf("pattern %q on %q: %v, regexp %v", p, s, m(s), !m(s))
			}
		}
	})
}
