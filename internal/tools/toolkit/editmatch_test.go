package toolkit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// editCase is one entry of the edit-matcher corpus under
// testdata/editmatch: the file text, the edit, and either the expected
// text (with the opencode matcher that must find it) or the exact error.
type editCase struct {
	Name       string `json:"name"`
	Engine     string `json:"engine"` // "opencode" or "exact" (claude-code)
	Input      string `json:"input"`
	Old        string `json:"old"`
	New        string `json:"new"`
	ReplaceAll bool   `json:"replaceAll"`
	Want       string `json:"want"`
	Matcher    string `json:"matcher"`
	Error      string `json:"error"`
}

func loadEditCorpus(t testing.TB) map[string][]editCase {
	t.Helper()
	files, err := filepath.Glob("testdata/editmatch/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	out := map[string][]editCase{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cs []editCase
		if err := json.Unmarshal(data, &cs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = cs
	}
	return out
}

func TestEditCorpus(t *testing.T) {
	total := 0
	for group, cs := range loadEditCorpus(t) {
		for _, c := range cs {
			total++
			t.Run(group+"/"+c.Name, func(t *testing.T) {
				var got, matcher string
				var err error
				switch c.Engine {
				case "exact":
					got, err = ExactEdit(c.Input, c.Old, c.New, c.ReplaceAll)
				case "opencode":
					var a AppliedEdit
					a, err = ApplyEdit(c.Input, c.Old, c.New, c.ReplaceAll)
					got, matcher = a.Final, a.Matcher
				default:
					t.Fatalf("unknown engine %q", c.Engine)
				}
				if c.Error != "" {
					if err == nil || err.Error() != c.Error {
						t.Fatalf("error = %v, want %q", err, c.Error)
					}
					return
				}
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if got != c.Want {
					t.Errorf("result\n got %q\nwant %q", got, c.Want)
				}
				if matcher != c.Matcher {
					t.Errorf("matcher = %q, want %q", matcher, c.Matcher)
				}
			})
		}
	}
	if total < 200 {
		t.Errorf("corpus has %d cases, want at least 200", total)
	}
}

// TestEveryMatcherInCorpus keeps the corpus honest: each of the eight
// matchers must be the one that wins in at least one case.
func TestEveryMatcherInCorpus(t *testing.T) {
	seen := map[string]bool{}
	for _, cs := range loadEditCorpus(t) {
		for _, c := range cs {
			seen[c.Matcher] = true
		}
	}
	for _, name := range MatcherNames() {
		// Dominated in this order, so never the winner: every span
		// IndentationFlexible accepts, WhitespaceNormalized (looser) yields
		// first, and MultiOccurrence yields what Simple already tried.
		// TestMatchersDirectly covers both.
		if name == "IndentationFlexible" || name == "MultiOccurrence" {
			continue
		}
		if !seen[name] {
			t.Errorf("no corpus case is won by %s", name)
		}
	}
}

func TestMatcherOrder(t *testing.T) {
	want := "Simple LineTrimmed BlockAnchor WhitespaceNormalized IndentationFlexible TrimmedBoundary ContextAware MultiOccurrence"
	if got := strings.Join(MatcherNames(), " "); got != want {
		t.Fatalf("order = %s", got)
	}
}

func TestEditErrorsExact(t *testing.T) {
	for _, tc := range []struct{ old, new, want string }{
		{"a", "a", "No changes to apply: oldString and newString are identical."},
		{"", "a", "oldString cannot be empty when editing an existing file. Provide the exact text to replace, or use write for an intentional full-file replacement."},
		{"qq", "a", "Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings."},
		{"x", "y", "Found multiple matches for oldString. Provide more surrounding context to make the match unique."},
		{"h\n  a\n  b\n  c\nf", "y", "Refusing replacement because the matched span is much larger than oldString. Re-read the file and provide the full exact oldString for the intended replacement."},
	} {
		_, err := ApplyEdit("x x\nh\n  a\n  b\n  "+strings.Repeat("z", 600)+"\nf\n", tc.old, tc.new, false)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q→%q: error %v, want %q", tc.old, tc.new, err, tc.want)
		}
	}
}

// FuzzEditMatch checks the engines' properties on arbitrary input: no
// panic, and a successful single replacement contains newString (the
// replaced span is gone and newString took its place).
func FuzzEditMatch(f *testing.F) {
	for _, cs := range loadEditCorpus(f) {
		for _, c := range cs {
			f.Add(c.Input, c.Old, c.New, c.ReplaceAll)
		}
	}
	f.Fuzz(func(t *testing.T, input, old, new string, all bool) {
		if len(input) > 1<<14 || len(old) > 1<<10 {
			return
		}
		a, err := ApplyEdit(input, old, new, all)
		if err == nil && !all {
			if !strings.Contains(a.New, strings.ReplaceAll(new, "\r\n", "\n")) &&
				!strings.Contains(a.New, strings.ReplaceAll(strings.ReplaceAll(new, "\r\n", "\n"), "\n", "\r\n")) &&
				!strings.Contains(Bom+a.New, new) {
				t.Fatalf("result %q lacks newString %q", a.Final, new)
			}
		}
		if err == nil && utf8.ValidString(input) && utf8.ValidString(new) && !utf8.ValidString(a.Final) {
			t.Fatalf("valid input gave invalid UTF-8 %q", a.Final)
		}
		out, err := ExactEdit(input, old, new, all)
		if err == nil && !all && !strings.Contains(out, new) &&
			!strings.Contains(out, strings.ReplaceAll(new, "\n", "\r\n")) {
			t.Fatalf("exact result %q lacks newString %q", out, new)
		}
	})
}

func collect(m func(string, string, func(string) bool), content, find string) []string {
	var out []string
	m(content, find, func(s string) bool { out = append(out, s); return true })
	return out
}

// TestMatchersDirectly checks each matcher's candidates on its own, so the
// two that never win in the engine's order are still tested.
func TestMatchersDirectly(t *testing.T) {
	for _, tc := range []struct {
		name          string
		m             func(string, string, func(string) bool)
		content, find string
		want          []string
	}{
		{"indentation", indentationFlexibleMatcher, "  if a:\n      b\nx\n", "if a:\n    b", []string{"  if a:\n      b"}},
		{"indentation keeps relative", indentationFlexibleMatcher, "  if a:\n  b\n", "if a:\n    b", nil},
		{"indentation nbsp", indentationFlexibleMatcher, "\u00a0a\n\u00a0\u00a0b\n", "a\n\u00a0b", []string{"\u00a0a\n\u00a0\u00a0b"}},
		{"multi", multiOccurrenceMatcher, "ab ab ab", "ab", []string{"ab", "ab", "ab"}},
		{"multi none", multiOccurrenceMatcher, "ab", "c", nil},
		{"linetrimmed", lineTrimmedMatcher, " a \n b\n", "a\nb\n", []string{" a \n b"}},
		{"whitespace line", whitespaceNormalizedMatcher, "x  y\n", "x y", []string{"x  y"}},
		{"whitespace sub", whitespaceNormalizedMatcher, "(x\t y)\n", "x y", []string{"x\t y"}},
		{"trimmed", trimmedBoundaryMatcher, "a b\n", " b ", []string{"b"}},
		{"trimmed no-op", trimmedBoundaryMatcher, "a b\n", "b", nil},
		{"context", contextAwareMatcher, "s\n1\n2\ne\n", "s\n1\nq\ne", []string{"s\n1\n2\ne"}},
		{"context short", contextAwareMatcher, "s\ne\n", "s\ne", nil},
		{"blockanchor short", blockAnchorMatcher, "a\nb\n", "a\nb", nil},
	} {
		got := collect(tc.m, tc.content, tc.find)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestJSReplaceAllEmptySearch(t *testing.T) {
	if got := jsReplaceAll("ab", "", "-"); got != "-a-b-" {
		t.Errorf("got %q", got)
	}
	if got := jsReplaceAll("ab", "", "[$&$$]"); got != "[$]a[$]b[$]" {
		t.Errorf("got %q", got)
	}
}

func TestLevenshteinUTF16(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "abc", 3}, {"kitten", "sitting", 3}, {"😀", "a", 2}, {"é", "e", 1}} {
		if got := levenshtein(tc.a, tc.b); got != tc.want {
			t.Errorf("levenshtein(%q,%q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
