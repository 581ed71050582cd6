package prompt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pigo-agent/pigo/internal/engine"
)

func TestParseArgs(t *testing.T) {
	cases := map[string][]string{
		``:                     nil,
		`a b  c`:               {"a", "b", "c"},
		`"a b" 'c d'`:          {"a b", "c d"},
		`x"y z"w`:              {"xy zw"},
		`"it's" 'say "hi"'`:    {"it's", `say "hi"`},
		"a\nb\tc":              {"a", "b", "c"},
		`"unclosed rest of it`: {"unclosed rest of it"},
		`""`:                   nil,
		`a\ b`:                 {`a\`, "b"},
	}
	for in, want := range cases {
		if got := ParseArgs(in); !cmp.Equal(got, want) {
			t.Errorf("ParseArgs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSubstituteArgs(t *testing.T) {
	args := []string{"a", "b c", "d"}
	cases := map[string]string{
		"$1|$2|$3|$4":               "a|b c|d|",
		"$@ / $ARGUMENTS":           "a b c d / a b c d",
		"${1:-x} ${5:-def}":         "a def",
		"${@:2}":                    "b c d",
		"${@:2:1}":                  "b c",
		"${@:0}":                    "a b c d",
		"${@:9}":                    "",
		"${@:-none}":                "a b c d",
		"$10 $$1 $arguments ${x}":   " $a $arguments ${x}",
		"${ARGUMENTS:-d} literal $": "a b c d literal $",
	}
	for in, want := range cases {
		if got := SubstituteArgs(in, args); got != want {
			t.Errorf("SubstituteArgs(%q) = %q, want %q", in, got, want)
		}
	}
	if got := SubstituteArgs("[${@:-empty}] [${1:-one}]", nil); got != "[empty] [one]" {
		t.Errorf("defaults without args: %q", got)
	}
	if got := SubstituteArgs("$1", []string{"$2"}); got != "$2" {
		t.Errorf("values are not expanded again: %q", got)
	}
}

func TestExtensionCommands(t *testing.T) {
	r := &Resolver{Commands: []engine.CommandEntry{
		{Invocation: "model", Name: "model", Source: "builtin"},
		{Invocation: "deploy", Name: "deploy", Source: "extension", Prompt: "Deploy to ${1:-staging} with $@"},
		{Invocation: "sh", Name: "sh", Source: "extension", Run: []string{"./run.sh", "--env=$1", "$@"}},
	}}
	e, _ := r.Expand("/deploy prod 'fast mode'")
	if e.Kind != KindExtensionPrompt || e.Text != "Deploy to prod with prod fast mode" || e.Command.Name != "deploy" {
		t.Errorf("prompt command: %+v", e)
	}
	e, _ = r.Expand("/deploy")
	if e.Text != "Deploy to staging with " {
		t.Errorf("default: %q", e.Text)
	}
	e, _ = r.Expand(`/sh prod "a; rm -rf /" b`)
	if e.Kind != KindRun || !cmp.Equal(e.Argv, []string{"./run.sh", "--env=prod", "prod", "a; rm -rf /", "b"}) {
		t.Errorf("run command: %+v", e)
	}
	// pi's print mode does not dispatch built-ins; the interactive one does.
	if e, _ := r.Expand("/model x"); e.Kind != KindText || e.Text != "/model x" {
		t.Errorf("builtin without Builtins: %+v", e)
	}
	r.Builtins = []engine.BuiltinCommand{{Name: "model", Match: engine.MatchArgs}, {Name: "settings", Match: engine.MatchExact}}
	if e, _ := r.Expand("/model x"); e.Kind != KindBuiltin || e.Args != "x" {
		t.Errorf("builtin: %+v", e)
	}
	if e, _ := r.Expand("/settings"); e.Kind != KindBuiltin {
		t.Errorf("exact builtin: %+v", e)
	}
	if e, _ := r.Expand("/settings x"); e.Kind != KindText {
		t.Errorf("an exact builtin with arguments falls through: %+v", e)
	}
}

func TestTemplateFromFile(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "fix.md"), "\ufeff---\r\ndescription: d\r\n---\r\n\r\nFix $1.\r\n")
	r := &Resolver{Commands: []engine.CommandEntry{{Invocation: "fix", Name: "fix", Source: "prompt", File: filepath.Join(dir, "fix.md")}}}
	e, err := r.Expand("/fix the-bug")
	if err != nil || e.Kind != KindTemplate || e.Text != "Fix the-bug." {
		t.Fatalf("%+v %v", e, err)
	}
	r.Commands[0].File = filepath.Join(dir, "gone.md")
	if _, err := r.Expand("/fix x"); err == nil {
		t.Error("a template that cannot be read is an error")
	}
}

func TestSeedTemplate(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "AGENTS.md"), "ctx")
	o := Options{Cwd: dir, ActiveTools: []string{"bash"}, ToolLines: []string{"- bash: run"},
		Guidelines:         []string{guidelineBash, "Use bash well.", "Second.", guidelineConcise, guidelinePaths},
		Skills:             []Skill{{Name: "s", Description: "d", File: "/s/SKILL.md"}},
		AppendSystemPrompt: []string{"APPENDED"}, SystemPrompt: "ignored by the template",
		Template: "T\n{{tools}}\n{{guidelines}}\n{{project_context}}{{date}} {{cwd}}",
		Now:      func() time.Time { return time.Date(2026, 3, 4, 10, 0, 0, 0, time.Local) }}
	got := Build(o).Text
	want := "T\n- bash: run\n## Guidelines\n\nUse bash well.\n\nSecond.\n" +
		"\n\n<project_context>\n\nProject-specific instructions and guidelines:\n\n<project_instructions path=\"" + filepath.Join(dir, "AGENTS.md") + "\">\nctx\n</project_instructions>\n\n</project_context>\n" +
		"2026-03-04 " + dir +
		"\n" + FormatSkills(o.Skills) + "\nAPPENDED"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seed template (-want +got):\n%s", diff)
	}
}

func TestNoSkillsVisible(t *testing.T) {
	if FormatSkills([]Skill{{Name: "x", DisableModelInvocation: true}}) != "" || FormatSkills(nil) != "" {
		t.Error("no visible skill gives no block")
	}
}

func TestProjectSystemFilesNeedTrust(t *testing.T) {
	cwd, agent := t.TempDir(), t.TempDir()
	write(t, filepath.Join(cwd, ".pi", "SYSTEM.md"), "Project system.")
	write(t, filepath.Join(agent, "SYSTEM.md"), "Global system.")
	o := Options{Cwd: cwd, AgentDir: agent, NoContextFiles: true}
	if got := Build(o).Text; !strings.HasPrefix(got, "Global system.\nCurrent working directory: ") {
		t.Errorf("untrusted: %q", got)
	}
	o.Trusted = true
	r := Build(o)
	if !strings.HasPrefix(r.Text, "Project system.") || r.SystemPromptFile != filepath.Join(cwd, ".pi", "SYSTEM.md") {
		t.Errorf("trusted: %q %s", r.Text, r.SystemPromptFile)
	}
}

// TestWorktreeShadowing: a linked worktree nested in its main repository that has its own
// AGENTS.md skips the main repository's AGENTS.md.
func TestWorktreeShadowing(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	main := t.TempDir()
	run := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run(main, "init", "-q")
	write(t, filepath.Join(main, "AGENTS.md"), "main")
	run(main, "add", ".")
	run(main, "commit", "-qm", "x")
	run(main, "worktree", "add", "-q", filepath.Join(main, "wt"))
	files, _ := LoadContextFiles("", filepath.Join(main, "wt"))
	if len(files) != 1 || files[0].Path != filepath.Join(main, "wt", "AGENTS.md") {
		t.Errorf("nested worktree: %+v", files)
	}
	files, _ = LoadContextFiles("", main)
	if len(files) != 1 || files[0].Content != "main" {
		t.Errorf("main repo: %+v", files)
	}
}

func FuzzArgs(f *testing.F) {
	f.Add("a 'b c' \"d\"", "$1 ${@:2:1} ${3:-x} $ARGUMENTS")
	f.Fuzz(func(t *testing.T, args, tmpl string) {
		a := ParseArgs(args)
		for _, w := range a {
			if w == "" {
				t.Fatal("empty argument")
			}
		}
		SubstituteArgs(tmpl, a)
		SubstituteArgv(strings.Fields(tmpl), a)
	})
}

func TestSeedTemplateFound(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	gitPrompt := filepath.Join(agent, "git", "github.com", "trim21", "pi-extensions", "src", "system-prompt", "prompt.md")
	npmPrompt := filepath.Join(agent, "npm", "node_modules", "@trim21", "personal-pi-extensions", "src", "system-prompt", "prompt.md")
	projPrompt := filepath.Join(cwd, ".pi", "git", "github.com", "trim21", "pi-extensions", "src", "system-prompt", "prompt.md")
	for _, p := range []string{gitPrompt, npmPrompt, projPrompt} {
		write(t, p, "{{tools}}")
	}
	local := filepath.Join(agent, "checkout")
	write(t, filepath.Join(local, "package.json"), `{"name": "@trim21/personal-pi-extensions"}`)
	write(t, filepath.Join(local, "src", "system-prompt", "prompt.md"), "x")
	cases := []struct {
		pkgs []Package
		ext  []string
		want string
	}{
		{nil, nil, ""},
		{[]Package{{Source: "git:github.com/trim21/pi-extensions"}}, nil, gitPrompt},
		{[]Package{{Source: "https://github.com/trim21/pi-extensions.git"}}, nil, gitPrompt},
		{[]Package{{Source: "git:git@github.com:trim21/pi-extensions@main"}}, nil, gitPrompt},
		{[]Package{{Source: "npm:@trim21/personal-pi-extensions@1.2.3"}}, nil, npmPrompt},
		{[]Package{{Source: "git:github.com/trim21/pi-extensions", Project: true}}, nil, projPrompt},
		{[]Package{{Source: "./checkout"}}, nil, filepath.Join(local, "src", "system-prompt", "prompt.md")},
		{[]Package{{Source: "npm:other"}}, nil, ""},
		{[]Package{{Source: "git:github.com/trim21/pi-extensions", Extensions: []string{"!src/system-prompt/index.ts"}}}, nil, ""},
		{[]Package{{Source: "git:github.com/trim21/pi-extensions", Extensions: []string{"src/index.ts"}}}, nil, ""},
		{[]Package{{Source: "git:github.com/trim21/pi-extensions", Extensions: []string{"src/index.ts", "src/system-prompt/index.ts"}}}, nil, gitPrompt},
		{nil, []string{filepath.Join(local, "src", "system-prompt", "index.ts")}, filepath.Join(local, "src", "system-prompt", "prompt.md")},
	}
	for i, c := range cases {
		if got := SeedTemplate(agent, cwd, c.pkgs, c.ext); got != c.want {
			t.Errorf("case %d: got %q, want %q", i, got, c.want)
		}
	}
}

// A literal block description keeps its final line break, as pi's JS YAML parser keeps it
// (found by the package differential test: pi-subagents' skill uses `description: |`).
func TestReadSkillLiteralDescription(t *testing.T) {
	p := filepath.Join(t.TempDir(), "SKILL.md")
	if err := os.WriteFile(p, []byte("---\nname: x\ndescription: |\n  line one\n  line two\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ReadSkill("x", "", p).Description; got != "line one\nline two\n" {
		t.Errorf("description = %q", got)
	}
}
