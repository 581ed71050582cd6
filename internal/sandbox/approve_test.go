package sandbox

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func allow(p string) Rule { return Rule{Action: Allow, Pattern: p} }
func deny(p string) Rule  { return Rule{Action: Deny, Pattern: p} }

// Reference §7 "approval rules" cases.
func TestFlattenReference(t *testing.T) {
	names := func(line string) []string {
		cmds, _, err := Flatten(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		var out []string
		for _, c := range cmds {
			out = append(out, c.Words[0])
		}
		return out
	}
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"git checkout main && npm install", []string{"git", "npm"}},
		{"cat a | grep b", []string{"cat", "grep"}},
		{"echo $(curl http://x)", []string{"echo", "curl"}},
	} {
		if d := cmp.Diff(tc.want, names(tc.line)); d != "" {
			t.Errorf("%q (-want +got):\n%s", tc.line, d)
		}
	}
	// Malformed input does not throw.
	if _, _, err := Flatten("echo 'x"); err == nil {
		t.Error("malformed input parsed")
	}
	cmds, redirect, err := Flatten(`echo "hello world" > /tmp/out`)
	if err != nil || !redirect || !cmp.Equal(cmds[0].Words[1:], []string{`"hello world"`}) {
		t.Errorf("redirect case: %+v %v %v", cmds, redirect, err)
	}
	for _, line := range []string{"a | b", "a 2>&1", "a < in"} {
		if _, r, _ := Flatten(line); r {
			t.Errorf("%q: redirect = true", line)
		}
	}
}

func TestMatchPatternReference(t *testing.T) {
	for _, tc := range []struct {
		pattern, text string
		want          bool
	}{
		{"git *", "git push *", true},
		{"git status *", "git status", true},
		{"git status *", "git statusx", false},
		{"npm install --save-dev *", "npm install --save-dev react", true},
		{"git checkout -- *", "git checkout -- file.go", true},
		{"git checkout -- *", "git checkout main", false},
		{"a?c", "abc", true},
		{"a?c", "abbc", false},
		{"echo *", "echo a\nb", true},
		{"echo (x)+", "echo (x)+", true},
		{"echo (x)+", "echo xx", false},
		{"git push", "git push origin", false},
	} {
		if got := MatchPattern(tc.pattern, tc.text); got != tc.want {
			t.Errorf("MatchPattern(%q, %q) = %v", tc.pattern, tc.text, got)
		}
	}
}

func TestEvaluateReference(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []Rule
		line  string
		want  string
	}{
		{"allowed", []Rule{allow("git status *")}, "git status", Allow},
		{"deny hit", []Rule{deny("git push *")}, "git push origin main", Deny},
		{"no match", []Rule{allow("git status *")}, "ls", Ask},
		{"nested deny", []Rule{allow("echo *"), deny("curl *")}, "echo $(curl x)", Deny},
		{"chain with deny", []Rule{allow("echo *"), deny("rm *")}, "echo a && rm x", Deny},
		{"partially allowed", []Rule{allow("echo *")}, "echo a && ls", Ask},
		{"chain allowed", []Rule{allow("echo *")}, "echo a && echo b", Allow},
		{"nested unknown", []Rule{allow("echo *")}, "echo $(curl x)", Ask},
		{"redirect >", []Rule{allow("echo *")}, "echo '' > file", Ask},
		{"redirect >>", []Rule{allow("echo *")}, "echo '' >> file", Ask},
		{"group redirect", []Rule{allow("echo *")}, "{ echo a; echo b; } > f", Ask},
		{"subshell redirect", []Rule{allow("echo *")}, "( echo a ) > f", Ask},
		{"pipe", []Rule{allow("echo *"), allow("tail *")}, "echo '' | tail -n 5", Allow},
		{"2>&1", []Rule{allow("echo *")}, "echo a 2>&1", Allow},
		{"<", []Rule{allow("cat *")}, "cat < in", Allow},
		{"redirected deny", []Rule{deny("echo *")}, "echo a > f", Deny},
		{"last wins", []Rule{deny("git push *"), allow("git *")}, "git push", Allow},
		{"last wins deny", []Rule{allow("git *"), deny("git push *")}, "git push", Deny},
		{"literal --", []Rule{allow("git checkout -- *")}, "git checkout -- a.go", Allow},
		{"--save-dev", []Rule{allow("npm install --save-dev *")}, "npm install --save-dev react", Allow},
		{"empty", []Rule{allow("*")}, "", Ask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Evaluate(tc.rules, tc.line); got.Decision != tc.want {
				t.Errorf("Evaluate(%q) = %s, want %s (%+v)", tc.line, got.Decision, tc.want, got)
			}
		})
	}
}

func TestEvaluateResult(t *testing.T) {
	rules := []Rule{
		{Action: Allow, Pattern: "git *", Origin: Origin{File: "g.json", Line: 3, Column: 7}},
		{Action: Deny, Pattern: "git push *", Origin: Origin{File: "p.json", Line: 9, Column: 7}},
	}
	got := Evaluate(rules, "git push origin main && npm install react && npm install x")
	want := Approval{
		Decision: Deny,
		Commands: []CommandDecision{
			{Text: "git push origin main", Decision: Deny, Rule: &RuleRef{Action: Deny, Pattern: "git push *", File: "p.json", Line: 9, Column: 7}},
			{Text: "npm install react", Offset: 24, Decision: Ask},
			{Text: "npm install x", Offset: 45, Decision: Ask},
		},
		Suggestions: []string{"npm install *"}, // never one for the denied command
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// A suggestion already allowed by a rule is hidden; a denied command gets none.
	got = Evaluate([]Rule{allow("git *"), deny("git push *"), allow("npm *")}, "npm  install x; git push; make all")
	if d := cmp.Diff([]string{"make all *"}, got.Suggestions); d != "" {
		t.Errorf("suggestions (-want +got):\n%s", d)
	}
}

func TestSuggest(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"git checkout main", "git checkout *"},
		{"git push origin main", "git push *"},
		{"npm install react", "npm install *"},
		{"npm run dev", "npm run dev *"},
		{"some-tool --flag v", "some-tool *"},
		{"python ./s.py -- a b", "python ./s.py *"},
		{"git", "git *"},
		{"docker compose up -d", "docker compose up *"},
		{"gh pr list --limit 5", "gh pr list *"},
		{"ls -la", "ls *"},
	} {
		cmds, _, err := Flatten(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		if got := Suggest(cmds[0].Words); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
	if got := Suggest(nil); got != "*" {
		t.Errorf("Suggest(nil) = %q", got)
	}
}

func TestValidateRule(t *testing.T) {
	for _, tc := range []struct {
		rule   Rule
		offset int
		msg    string
	}{
		{allow("git status *"), 0, ""},
		{allow("*"), 0, ""},
		{allow("echo a; ls *"), 0, ""}, // wildcards can span quoted text: not flagged
		{Rule{Action: "permit", Pattern: "ls"}, -1, `action: expected "allow" or "deny", got "permit"`},
		{allow(""), 0, "pattern is empty; it would never match a command"},
		{allow("   "), 0, "pattern is empty; it would never match a command"},
		{allow(" git status"), 0, `pattern " git status" starts with whitespace; it would never match a command`},
		{deny("git push "), 8, `pattern "git push " ends with whitespace; it would never match a command`},
		{allow("git add . && git commit"), 13, `pattern "git add . && git commit" spans several commands; each command is matched on its own, so it would never match`},
		{allow("cat x | grep y"), 8, `pattern "cat x | grep y" spans several commands; each command is matched on its own, so it would never match`},
		{allow("echo $(date)"), 0, ""},
	} {
		err := ValidateRule(tc.rule)
		switch {
		case tc.msg == "" && err != nil:
			t.Errorf("%+v: unexpected %v", tc.rule, err)
		case tc.msg != "" && (err == nil || err.Message != tc.msg || err.Offset != tc.offset):
			t.Errorf("%+v: got %+v, want %q at %d", tc.rule, err, tc.msg, tc.offset)
		}
	}
	// Invalid rules are skipped by evaluation.
	if got := Evaluate([]Rule{allow("ls "), {Action: "yes", Pattern: "ls"}}, "ls"); got.Decision != Ask {
		t.Errorf("invalid rules applied: %s", got.Decision)
	}
}

type corpusCase struct {
	line, want string
	lineNo     int
}

func readCorpus(t testing.TB) ([]Rule, []corpusCase) {
	f, err := os.Open("testdata/approval.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rules []Rule
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.SplitN(text, "\t", 3)
		if fields[0] == "rule" && len(fields) == 3 {
			rules = append(rules, Rule{Action: fields[1], Pattern: fields[2], Origin: Origin{File: "testdata/approval.txt", Line: n, Column: 1}})
			continue
		}
		if len(fields) != 2 {
			t.Fatalf("approval.txt:%d: want DECISION<TAB>LINE", n)
		}
		line := fields[1]
		if strings.HasPrefix(line, `"`) {
			if line, err = strconv.Unquote(line); err != nil {
				t.Fatalf("approval.txt:%d: %v", n, err)
			}
		}
		cases = append(cases, corpusCase{line: line, want: fields[0], lineNo: n})
	}
	return rules, cases
}

func TestApprovalCorpus(t *testing.T) {
	rules, cases := readCorpus(t)
	if len(cases) < 60 {
		t.Fatalf("corpus has %d cases, want at least 60", len(cases))
	}
	rs := CompileRules(rules)
	for _, c := range cases {
		got := rs.Evaluate(c.line)
		if got.Decision != c.want {
			var cmds []string
			for _, cd := range got.Commands {
				cmds = append(cmds, cd.Decision+":"+strconv.Quote(cd.Text))
			}
			t.Errorf("approval.txt:%d: %q → %s, want %s (commands %v, redirect %v, error %q)",
				c.lineNo, c.line, got.Decision, c.want, cmds, got.Redirect, got.Error)
		}
	}
}

func FuzzEvaluate(f *testing.F) {
	rules, cases := readCorpus(f)
	for _, c := range cases {
		f.Add(c.line)
	}
	rs := CompileRules(rules)
	f.Fuzz(func(t *testing.T, line string) {
		a := rs.Evaluate(line)
		switch a.Decision {
		case Allow, Deny, Ask:
		default:
			t.Fatalf("decision %q", a.Decision)
		}
		if _, _, err := Flatten(line); err != nil && a.Decision != Ask {
			t.Fatalf("unparsable %q gave %s", line, a.Decision)
		}
		if a.Decision == Allow && (a.Redirect || len(a.Commands) == 0) {
			t.Fatalf("%q allowed with redirect=%v, %d commands", line, a.Redirect, len(a.Commands))
		}
		for _, c := range a.Commands {
			if a.Decision == Allow && c.Decision != Allow {
				t.Fatalf("%q allowed but %q is %s", line, c.Text, c.Decision)
			}
		}
	})
}

func BenchmarkEvaluateChain10(b *testing.B) {
	rules, _ := readCorpus(b)
	rs := CompileRules(rules)
	line := "git status && ls -la | grep x && echo $(cat f) ; wc -l a && git log -1 && git diff && echo done || cat y"
	if n := len(rs.Evaluate(line).Commands); n != 10 {
		b.Fatalf("%d commands", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		rs.Evaluate(line)
	}
}
