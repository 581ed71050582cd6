package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func builtinCommands() []BuiltinCommand {
	return []BuiltinCommand{
		{Name: "settings", Description: "Open settings menu", Match: MatchExact},
		{Name: "model", ArgumentHint: "<provider/model>", Description: "Select model", Match: MatchArgs},
		{Name: "reload", Description: "Reload", Match: MatchExact},
		{Name: "debug", Match: MatchExact, Hidden: true},
	}
}

func cmdExt(kind SourceKind, file string, scope Scope, names ...string) Extension {
	e := Extension{Source: Source{Kind: kind, Name: file, File: file, Scope: scope}}
	for _, n := range names {
		e.Commands = append(e.Commands, ExtCommand{Name: n, Description: n + " desc", Span: at()})
	}
	return e
}

func invocations(res *CommandResult, source string) []string {
	var out []string
	for _, c := range res.Commands {
		if source == "" || c.Source == source {
			out = append(out, c.Invocation)
		}
	}
	return out
}

func autocomplete(res *CommandResult) []string {
	var out []string
	for _, a := range res.Autocomplete {
		out = append(out, a.Tag+a.Name)
	}
	return out
}

func TestCommandSuffixes(t *testing.T) {
	// extensions-runner: duplicates in insertion order, no diagnostics.
	res := ResolveCommands(&CommandInput{Extensions: []Extension{
		cmdExt(KindExtension, "a.jsonc", ScopeUser, "shared-cmd"),
		cmdExt(KindExtension, "b.jsonc", ScopeUser, "shared-cmd"),
	}})
	if diff := cmp.Diff([]string{"shared-cmd:1", "shared-cmd:2"}, invocations(res, "")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %v", res.Warnings)
	}
	// resource-loader: project deploy:1, user deploy:2; CLI first.
	res = ResolveCommands(&CommandInput{Extensions: []Extension{
		cmdExt(KindExtension, ".pi/extensions/p.jsonc", ScopeProject, "deploy", "project-only"),
		cmdExt(KindExtension, "~/.pi/agent/extensions/u.jsonc", ScopeUser, "deploy", "user-only"),
	}})
	if diff := cmp.Diff([]string{"deploy:1", "project-only", "deploy:2", "user-only"}, invocations(res, "")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"[p]deploy:1", "[p]project-only", "[u]deploy:2", "[u]user-only"}, autocomplete(res)); diff != "" {
		t.Errorf("autocomplete (-want +got):\n%s", diff)
	}
	res = ResolveCommands(&CommandInput{Extensions: []Extension{
		cmdExt(KindCLI, "cli.jsonc", ScopeTemporary, "deploy"),
		cmdExt(KindExtension, ".pi/extensions/p.jsonc", ScopeProject, "deploy"),
	}})
	if res.Commands[0].File != "cli.jsonc" || res.Commands[0].Invocation != "deploy:1" {
		t.Errorf("CLI extension first: %+v", res.Commands[0])
	}
	// k increases until free: a literal "x:1" exists.
	res = ResolveCommands(&CommandInput{Extensions: []Extension{
		cmdExt(KindExtension, "a", ScopeUser, "x:1", "x"),
		cmdExt(KindExtension, "b", ScopeUser, "x"),
	}})
	if diff := cmp.Diff([]string{"x:1", "x:2", "x:3"}, invocations(res, "")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Same name twice inside one extension: the later overwrites, no suffix.
	e := cmdExt(KindExtension, "a", ScopeUser, "dup", "dup")
	e.Commands[1].Description = "second"
	res = ResolveCommands(&CommandInput{Extensions: []Extension{e}})
	if diff := cmp.Diff([]string{"dup"}, invocations(res, "")); diff != "" || res.Autocomplete[0].Description != "second" {
		t.Errorf("(-want +got):\n%s %+v", diff, res.Autocomplete)
	}
}

func TestCommandBuiltinConflict(t *testing.T) {
	res := ResolveCommands(&CommandInput{Builtins: builtinCommands(), Extensions: []Extension{
		cmdExt(KindExtension, "a.jsonc", ScopeUser, "settings", "model", "go"),
		cmdExt(KindExtension, "b.jsonc", ScopeUser, "model"),
	}})
	want := []string{
		"command-conflict: Extension command '/settings' conflicts with built-in interactive command. Skipping in autocomplete. (a.jsonc)",
		"command-conflict: Extension command '/model' conflicts with built-in interactive command. Available as '/model:1'. (a.jsonc)",
		"command-conflict: Extension command '/model' conflicts with built-in interactive command. Available as '/model:2'. (b.jsonc)",
	}
	var got []string
	for _, w := range res.Warnings {
		got = append(got, w.Code+": "+w.Message)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"settings", "model", "reload", "[u]go"}, autocomplete(res)); diff != "" {
		t.Errorf("autocomplete (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"settings", "model", "reload", "debug", "settings", "model:1", "go", "model:2"}, invocations(res, "")); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
}

func TestCommandOrdersAndCollisions(t *testing.T) {
	in := &CommandInput{
		Builtins:   builtinCommands(),
		Extensions: []Extension{cmdExt(KindExtension, "e.jsonc", ScopeProject, "deploy")},
		Prompts: []PromptTemplate{
			{Name: "review", Description: "Review", File: ".pi/prompts/review.md", Scope: ScopeProject, Span: at()},
			{Name: "review", Description: "Other", File: "~/.pi/agent/prompts/review.md", Scope: ScopeUser, Span: at()},
			{Name: "fix", File: "~/.pi/agent/prompts/fix.md", Scope: ScopeUser},
		},
		Skills: []Skill{
			{Name: "pdf", File: ".pi/skills/pdf/SKILL.md", Scope: ScopeProject},
			{Name: "pdf", File: "~/.pi/agent/skills/pdf/SKILL.md", Scope: ScopeUser, Span: at()},
			{Name: "pdf", File: ".pi/skills/pdf/SKILL.md", Scope: ScopeProject}, // same file twice: silent
		},
	}
	res := ResolveCommands(in)
	if diff := cmp.Diff([]string{"settings", "model", "reload", "debug", "deploy", "skill:pdf", "review", "fix"}, invocations(res, "")); diff != "" {
		t.Errorf("execution order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"settings", "model", "reload", "[p]review", "[u]fix", "[p]deploy"}, autocomplete(res)); diff != "" {
		t.Errorf("autocomplete, skills off (-want +got):\n%s", diff)
	}
	if len(res.Warnings) != 2 || res.Warnings[0].Message != `name "/review" collision: .pi/prompts/review.md wins over ~/.pi/agent/prompts/review.md` ||
		res.Warnings[1].Message != `name "pdf" collision: .pi/skills/pdf/SKILL.md wins over ~/.pi/agent/skills/pdf/SKILL.md` {
		t.Errorf("warnings %+v", res.Warnings)
	}
	in.EnableSkillCommands = true
	res = ResolveCommands(in)
	if diff := cmp.Diff([]string{"settings", "model", "reload", "[p]review", "[u]fix", "[p]deploy", "[p]skill:pdf"}, autocomplete(res)); diff != "" {
		t.Errorf("autocomplete, skills on (-want +got):\n%s", diff)
	}
}

func TestCommandCondition(t *testing.T) {
	e := cmdExt(KindExtension, "e.jsonc", ScopeUser, "lsp-start", "always")
	e.Commands[0].When = `len(lsp.servers) > 0`
	res := ResolveCommands(&CommandInput{Extensions: []Extension{e}})
	if diff := cmp.Diff([]string{"always"}, invocations(res, "")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(res.Unavailable) != 1 || res.Unavailable[0].Name != "lsp-start" {
		t.Errorf("unavailable %+v", res.Unavailable)
	}
}

func TestFuzzyFilter(t *testing.T) {
	items := []string{"settings", "session", "scoped-models", "model", "skill:pdf-tools", "export", "share"}
	id := func(s string) string { return s }
	tests := []struct {
		q    string
		want []string
	}{
		{"", items},
		{"mod", []string{"model", "scoped-models"}},
		{"se", []string{"settings", "session", "scoped-models", "share"}}, // ties keep order
		{"skill pdf", []string{"skill:pdf-tools"}},
		{"skill/pdf", []string{"skill:pdf-tools"}},
		{"SET", []string{"settings"}},
		{"zz", []string{}},
	}
	for _, tt := range tests {
		got := FuzzyFilter(items, tt.q, id)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("FuzzyFilter(%q) (-want +got):\n%s", tt.q, diff)
		}
	}
}
