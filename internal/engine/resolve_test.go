package engine

import (
	"encoding/json"
	"github.com/pigo-agent/pigo/internal/diag"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pigo-agent/pigo/internal/cond"
)

func linuxEnv() cond.Env { return cond.Env{OS: "linux", Arch: "amd64", Which: onPath("gh")} }

func state(t *testing.T, res *Result, name string) State {
	t.Helper()
	var st State
	for _, tr := range res.Tools {
		if tr.Name == name && tr.State != Overridden && tr.State != Unavailable {
			return tr.State
		}
		if tr.Name == name {
			st = tr.State
		}
	}
	if st == "" {
		t.Fatalf("tool %q not in registry", name)
	}
	return st
}

func messages(res *Result) []string {
	out := []string{}
	for _, w := range res.Warnings {
		out = append(out, w.Code+": "+w.Message)
	}
	return out
}

func TestDefaults(t *testing.T) {
	res := Resolve(&Input{Extensions: catalogue(), Env: linuxEnv()})
	if res.FileIO != FileIOClaudeCode {
		t.Errorf("file_io = %q, want claude-code", res.FileIO)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings = %q, want none", messages(res))
	}
	want := []string{"read", "bash", "edit", "write",
		"Read", "Edit", "Write", "Glob", "Grep", "Bash", "TodoWrite", "AskUserQuestion",
		"web_search", "web_fetch", "talk-send", "talk-ask", "codemode"}
	if diff := cmp.Diff(want, res.Active); diff != "" {
		t.Errorf("active (-want +got):\n%s", diff)
	}
	for name, st := range map[string]State{
		"grep": Inactive, "find": Inactive, "ls": Inactive, "powershell": Unavailable,
		"read-github-issue": CodemodeOnly, "aft_outline": Unavailable, "lsp-inspect": Unavailable,
		"glob": Unavailable, "question": Unavailable,
	} {
		if got := state(t, res, name); got != st {
			t.Errorf("%s: state %q, want %q", name, got, st)
		}
	}
	if diff := cmp.Diff([]string{"read-github-issue", "list-github-prs"}, res.CodemodeOnly); diff != "" {
		t.Errorf("codemode_only (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Bash", "read-github-issue", "list-github-prs", "web_search"}, res.CodemodeCallable); diff != "" {
		t.Errorf("codemode_callable (-want +got):\n%s", diff)
	}
	// opencode's read is unavailable, so the built-in read is not overridden.
	for _, tr := range res.Tools {
		if tr.Name == "read" && tr.Source == "builtin" && tr.State != Active {
			t.Errorf("built-in read: %q, want active", tr.State)
		}
	}
}

func TestFileIOByModelFirstHit(t *testing.T) {
	p := Personal{FileIOByModel: []FileIOEntry{
		{Index: 0, Models: pats("glm-*"), FileIO: FileIOOpencode, Span: at()},
		{Index: 1, Models: pats("gpt-*"), FileIO: FileIOClaudeCode, Span: at()},
		{Index: 2, Models: nil, FileIO: FileIOOpencode, Span: at()},
	}}
	p2 := Personal{FileIOByModel: p.FileIOByModel[:2]}
	tests := []struct {
		name string
		p    Personal
		m    *Model
		want string
	}{
		{"glm", p, glm, FileIOOpencode},
		{"gpt", p, gpt, FileIOClaudeCode},
		{"no model hits the empty-models entry", p, nil, FileIOOpencode},
		{"no model, no catch-all", p2, nil, FileIOClaudeCode},
		{"fileIo fallback", Personal{FileIO: FileIOOpencode, FileIOSpan: at()}, gpt, FileIOOpencode},
		{"zhipu/* matches provider zhipu", Personal{FileIOByModel: []FileIOEntry{{Models: pats("zhipu/*"), FileIO: FileIOOpencode, Span: at()}}}, glm, FileIOOpencode},
		{"zhipu/* not openrouter", Personal{FileIOByModel: []FileIOEntry{{Models: pats("zhipu/*"), FileIO: FileIOOpencode, Span: at()}}}, glmOR, FileIOClaudeCode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Resolve(&Input{Extensions: catalogue(), Personal: tt.p, Model: tt.m, Env: linuxEnv()})
			if res.FileIO != tt.want {
				t.Errorf("file_io = %q, want %q", res.FileIO, tt.want)
			}
			other := "Read"
			if tt.want == FileIOClaudeCode {
				other = "question"
			}
			if st := state(t, res, other); st != Unavailable {
				t.Errorf("%s: %q, want unavailable", other, st)
			}
		})
	}
}

func TestOpencodeOverridesBuiltins(t *testing.T) {
	res := Resolve(&Input{Extensions: catalogue(), Personal: Personal{FileIO: FileIOOpencode, FileIOSpan: at()}, Env: linuxEnv()})
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q: the opencode toolset overrides built-ins by design", messages(res))
	}
	want := []string{"read", "bash", "edit", "write", "glob", "todowrite", "question", "web_search", "web_fetch", "talk-send", "talk-ask", "codemode"}
	if diff := cmp.Diff(want, res.Active); diff != "" {
		t.Errorf("active (-want +got):\n%s", diff)
	}
	got := map[string]string{}
	for _, tr := range res.Tools {
		if tr.Name == "read" || tr.Name == "grep" {
			got[tr.Source+" "+tr.Name] = string(tr.State)
		}
	}
	wantStates := map[string]string{
		"builtin read": "overridden", "toolset:opencode read": "active",
		"builtin grep": "overridden", "toolset:opencode grep": "inactive",
	}
	if diff := cmp.Diff(wantStates, got); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	// The override inherits nothing: the prompt shows opencode's snippet, not the built-in's.
	if !slicesContain(res.SystemPrompt.Tools, "- read: Read a file (opencode)") || slicesContain(res.SystemPrompt.Guidelines, "Use read to examine files instead of cat or sed.") {
		t.Errorf("system prompt %q inherits from the built-in", res.SystemPrompt)
	}
}

func slicesContain(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func TestExtensionOverrideWarnsAndInheritsNothing(t *testing.T) {
	user := Extension{Source: Source{Kind: KindExtension, Name: "mine", File: "/home/u/.pi/agent/extensions/mine.jsonc", Scope: ScopeUser},
		Tools: []Tool{{Name: "read", Description: "my read"}, {Name: "grep", Description: "my grep", PromptSnippet: "my grep"}}}
	res := Resolve(&Input{Extensions: catalogue(user), Env: linuxEnv()})
	want := []string{
		`builtin-override: tool "read" from /home/u/.pi/agent/extensions/mine.jsonc replaces the built-in "read"`,
		`builtin-override: tool "grep" from /home/u/.pi/agent/extensions/mine.jsonc replaces the built-in "grep"`,
	}
	if diff := cmp.Diff(want, messages(res)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// The built-in entry decides: read active (default selection), grep inactive.
	if state(t, res, "read") != Active || state(t, res, "grep") != Inactive {
		t.Errorf("read %q grep %q, want active/inactive", state(t, res, "read"), state(t, res, "grep"))
	}
	// No snippet: read drops out of "Available tools".
	for _, l := range res.SystemPrompt.Tools {
		if strings.HasPrefix(l, "- read:") {
			t.Errorf("override without snippet listed: %q", l)
		}
	}
}

func TestToolConflictFirstWins(t *testing.T) {
	first := Extension{Source: Source{Kind: KindCLI, Name: "cli.jsonc", File: "cli.jsonc", Scope: ScopeTemporary}, Tools: []Tool{{Name: "deploy_tool", Description: "first"}}}
	second := Extension{Source: Source{Kind: KindExtension, Name: "proj", File: ".pi/extensions/proj.jsonc", Scope: ScopeProject}, Tools: []Tool{{Name: "deploy_tool", Description: "second"}}}
	res := Resolve(&Input{Extensions: catalogue(first, second), Env: linuxEnv()})
	var got []string
	for _, tr := range res.Tools {
		if tr.Name == "deploy_tool" {
			got = append(got, tr.File+" "+string(tr.State))
		}
	}
	if diff := cmp.Diff([]string{"cli.jsonc active", ".pi/extensions/proj.jsonc overridden"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	want := []string{`tool-conflict: tool "deploy_tool" in .pi/extensions/proj.jsonc conflicts with cli.jsonc; the first one wins`}
	if diff := cmp.Diff(want, messages(res)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if n := strings.Count(strings.Join(res.Active, " "), "deploy_tool"); n != 1 {
		t.Errorf("deploy_tool active %d times", n)
	}
}

// tools-config: disabled talk-*, web_* + enabled {web_search, models glm-*}.
func TestDisabledEnabledByModel(t *testing.T) {
	p := Personal{
		DisabledTools: rules("disabledTools", "talk-*", "web_*"),
		EnabledTools:  []Rule{rule("enabledTools", 0, []string{"web_search"}, "glm-*")},
	}
	glmRes := Resolve(&Input{Extensions: catalogue(), Personal: p, Model: glm, Env: linuxEnv()})
	gptRes := Resolve(&Input{Extensions: catalogue(), Personal: p, Model: gpt, Env: linuxEnv()})
	for _, c := range []struct {
		res  *Result
		name string
		want State
	}{
		{glmRes, "talk-send", Disabled}, {glmRes, "web_search", Active}, {glmRes, "web_fetch", Disabled},
		{gptRes, "web_search", Disabled}, {gptRes, "Read", Active}, {gptRes, "talk-ask", Disabled},
	} {
		if got := state(t, c.res, c.name); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if len(glmRes.Warnings)+len(gptRes.Warnings) != 0 {
		t.Errorf("warnings: %q %q", messages(glmRes), messages(gptRes))
	}
	// The rule that decided is reported with its position.
	for _, tr := range gptRes.Tools {
		if tr.Name == "web_search" {
			if tr.Rule == nil || tr.Rule.Text != "web_*" || tr.Rule.File != "settings.json" || tr.Rule.Line == 0 {
				t.Errorf("web_search rule = %+v", tr.Rule)
			}
		}
	}
}

func TestModelScopedRule(t *testing.T) {
	p := Personal{DisabledTools: []Rule{rule("disabledTools", 0, []string{"web_fetch"}, "gpt-5")}}
	for _, c := range []struct {
		m    *Model
		want State
	}{{gpt, Disabled}, {glm, Active}, {nil, Active}} {
		res := Resolve(&Input{Extensions: catalogue(), Personal: p, Model: c.m, Env: linuxEnv()})
		if got := state(t, res, "web_fetch"); got != c.want {
			t.Errorf("model %+v: web_fetch %q, want %q", c.m, got, c.want)
		}
	}
}

func TestUnmatchedPatterns(t *testing.T) {
	mk := func(names ...string) []Extension {
		e := Extension{Source: Source{Kind: KindExtension, Name: "x", File: "x.jsonc", Scope: ScopeUser}}
		for _, n := range names {
			e.Tools = append(e.Tools, Tool{Name: n})
		}
		return []Extension{e}
	}
	p := Personal{
		DisabledTools: rules("disabledTools", "talk-*", "web_*"),
		EnabledTools:  rules("enabledTools", "nope_*"),
	}
	res := Resolve(&Input{Extensions: mk("Read", "talk-send"), Personal: p})
	want := []string{
		`unmatched-pattern: personalExtensions.disabledTools: pattern "web_*" matches no tool`,
		`unmatched-pattern: personalExtensions.enabledTools: pattern "nope_*" matches no tool`,
	}
	if diff := cmp.Diff(want, messages(res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if w := res.Warnings[0]; w.File != "settings.json" || w.Line == 0 || w.Column != 5 {
		t.Errorf("position %+v, want the pattern's", w)
	}
	res = Resolve(&Input{Extensions: mk("Read", "talk-send", "web_search"), Personal: p})
	if diff := cmp.Diff(want[1:], messages(res)); diff != "" {
		t.Errorf("with web_search (-want +got):\n%s", diff)
	}
	// Rule models are ignored, disabled tools count as declared, codemodeOnlyTools is checked
	// last, `#` comments never match, duplicates repeat.
	p = Personal{
		DisabledTools:     []Rule{rule("disabledTools", 0, []string{"Read"}, "no-such-model")},
		CodemodeOnlyTools: rules("codemodeOnlyTools", "#x", "gone", "gone", "!Read"),
	}
	res = Resolve(&Input{Extensions: mk("Read"), Personal: p, Model: gpt})
	want = []string{
		`unmatched-pattern: personalExtensions.codemodeOnlyTools: pattern "#x" matches no tool`,
		`unmatched-pattern: personalExtensions.codemodeOnlyTools: pattern "gone" matches no tool`,
		`unmatched-pattern: personalExtensions.codemodeOnlyTools: pattern "gone" matches no tool`,
		`unmatched-pattern: personalExtensions.codemodeOnlyTools: pattern "!Read" matches no tool`,
	}
	if diff := cmp.Diff(want, messages(res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// tool-bus cases.
func TestCodemodeOnly(t *testing.T) {
	ext := Extension{Source: Source{Kind: KindExtension, Name: "x", File: "x.jsonc", Scope: ScopeUser}, Tools: []Tool{
		{Name: "echo", Structured: true, PromptSnippet: "echo"},
		{Name: "plain", PromptSnippet: "plain"},
		{Name: "both", Structured: true},
		{Name: "gh", Structured: true, CodemodeOnly: true},
	}}
	p := Personal{
		CodemodeOnlyTools: rules("codemodeOnlyTools", "echo", "plain", "both"),
		DisabledTools:     rules("disabledTools", "both"),
	}
	res := Resolve(&Input{Extensions: []Extension{ext}, Personal: p})
	want := []string{`no-structured-output: personalExtensions.codemodeOnlyTools: tool "plain" declares no structuredSchema; it stays directly available.`}
	if diff := cmp.Diff(want, messages(res)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	got := map[string]State{}
	for _, tr := range res.Tools {
		got[tr.Name] = tr.State
	}
	if diff := cmp.Diff(map[string]State{"echo": CodemodeOnly, "plain": Active, "both": Disabled, "gh": CodemodeOnly}, got); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"plain"}, res.Active); diff != "" {
		t.Errorf("active (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"echo", "gh"}, res.CodemodeCallable); diff != "" {
		t.Errorf("callable (-want +got):\n%s", diff)
	}
	// A codemode-only tool gives nothing to the prompt.
	if diff := cmp.Diff([]string{"- plain: plain"}, res.SystemPrompt.Tools); diff != "" {
		t.Errorf("prompt tools (-want +got):\n%s", diff)
	}
}

func TestConditions(t *testing.T) {
	ext := Extension{Source: Source{Kind: KindExtension, Name: "x", File: "x.jsonc", Scope: ScopeUser}, Tools: []Tool{
		{Name: "a", When: `which("gh")`},
		{Name: "b", When: `model.provder == "x"`},
		{Name: "c", When: `settings.x.y == 1`},
		{Name: "d", When: `"image" in model.input`},
	}}
	res := Resolve(&Input{Extensions: []Extension{ext}, Model: gpt, Env: cond.Env{Settings: map[string]any{"x": 3}}})
	got := map[string]string{}
	for _, tr := range res.Tools {
		got[tr.Name] = string(tr.State) + ": " + tr.Reason
	}
	want := map[string]string{
		"a": "unavailable: condition `which(\"gh\")` is false",
		"b": "unavailable: condition `model.provder == \"x\"` does not compile",
		"d": `active: extension tools start active`,
	}
	if !strings.HasPrefix(got["c"], "unavailable: condition `settings.x.y == 1` failed") {
		t.Errorf("c: %s", got["c"])
	}
	delete(got, "c")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(res.Warnings) != 2 || res.Warnings[0].Code != "bad-expr" || res.Warnings[1].Code != "bad-expr" {
		t.Errorf("warnings %q, want two bad-expr", messages(res))
	}
}

func TestBadGlob(t *testing.T) {
	// A real JSON source, with an escape before the problem: the position must be mapped
	// through it (the error is at the end of the pattern: the closing quote).
	text := `["we\u0062_{a", "talk-*"]`
	src := diag.NewSource("settings.json", []byte(text))
	bad := Pattern{Text: "web_{a", Span: diag.At(src, 1, 15)}
	good := Pattern{Text: "talk-*", Span: diag.At(src, 17, 25)}
	p := Personal{DisabledTools: []Rule{
		{Field: "disabledTools", Index: 0, Tools: []Pattern{bad}, Span: bad.Span},
		{Field: "disabledTools", Index: 1, Tools: []Pattern{good}, Span: good.Span},
	}}
	res := Resolve(&Input{Extensions: catalogue(), Personal: p, Env: linuxEnv()})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != "bad-glob" {
		t.Fatalf("diagnostics %v", messages(res))
	}
	if got, want := res.Diagnostics[0].Start, strings.Index(text, `a"`)+1; got != want {
		t.Errorf("bad-glob at byte %d, want %d (the closing quote, past the escape)", got, want)
	}
	if state(t, res, "talk-send") != Disabled || state(t, res, "web_search") != Active {
		t.Error("the bad pattern must be skipped and the rest applied")
	}
}

// host-behaviour §7 default-tools-setting.
func TestSelection(t *testing.T) {
	ext := Extension{Source: Source{Kind: KindExtension, Name: "x", File: "x.jsonc", Scope: ScopeUser}, Tools: []Tool{
		{Name: "dynamic_tool"}, {Name: "static_tool"},
	}}
	tests := []struct {
		name     string
		exts     []Extension
		def      []string
		flags    Flags
		active   []string
		excluded []string
	}{
		{"defaultTools grep find", []Extension{builtins()}, []string{"grep", "find"}, Flags{}, []string{"grep", "find"}, nil},
		{"extension tools stay active", []Extension{builtins(), ext}, []string{"grep"}, Flags{}, []string{"grep", "dynamic_tool", "static_tool"}, nil},
		{"empty defaultTools", []Extension{builtins(), ext}, []string{}, Flags{}, []string{"dynamic_tool", "static_tool"}, nil},
		{"unset defaultTools", []Extension{builtins()}, nil, Flags{}, []string{"read", "bash", "edit", "write"}, nil},
		{"tools read", []Extension{builtins(), ext}, []string{"grep"}, Flags{Tools: []string{"read"}}, []string{"read"},
			[]string{"bash", "edit", "write", "grep", "find", "ls", "dynamic_tool", "static_tool"}},
		{"exclude over tools", []Extension{builtins()}, nil, Flags{Tools: []string{"read", "grep"}, ExcludeTools: []string{"read"}}, []string{"grep"},
			[]string{"read", "bash", "edit", "write", "find", "ls"}},
		{"no tools", []Extension{builtins(), ext}, nil, Flags{NoTools: true}, []string{},
			[]string{"read", "bash", "edit", "write", "grep", "find", "ls", "dynamic_tool", "static_tool"}},
		{"tools beats no-tools", []Extension{builtins()}, nil, Flags{NoTools: true, Tools: []string{"ls", "nope"}}, []string{"ls"},
			[]string{"read", "bash", "edit", "write", "grep", "find"}},
		{"defaultTools ls", []Extension{builtins()}, []string{"ls"}, Flags{}, []string{"ls"}, nil},
		{"no builtin tools", []Extension{builtins(), ext}, []string{"grep"}, Flags{NoBuiltinTools: true}, []string{"dynamic_tool", "static_tool"}, nil},
		{"agent tools", []Extension{builtins(), ext}, nil, Flags{AgentTools: []string{"read", "grep", "find", "ls"}, AgentName: "scout"},
			[]string{"read", "grep", "find", "ls"}, []string{"bash", "edit", "write", "dynamic_tool", "static_tool"}},
		{"agent and tools intersect", []Extension{builtins()}, nil, Flags{Tools: []string{"ls", "bash"}, AgentTools: []string{"read", "ls"}},
			[]string{"ls"}, []string{"read", "bash", "edit", "write", "grep", "find"}},
		{"exclude alone", []Extension{builtins(), ext}, nil, Flags{ExcludeTools: []string{"bash", "static_tool"}},
			[]string{"read", "edit", "write", "dynamic_tool"}, []string{"bash", "static_tool"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Resolve(&Input{Extensions: tt.exts, DefaultTools: tt.def, DefaultToolsSpan: at(), Flags: tt.flags, Env: linuxEnv()})
			if diff := cmp.Diff(tt.active, res.Active); diff != "" {
				t.Errorf("active (-want +got):\n%s", diff)
			}
			var ex []string
			for _, tr := range res.Tools {
				if tr.State == Excluded {
					ex = append(ex, tr.Name)
				}
			}
			if diff := cmp.Diff(tt.excluded, ex); diff != "" {
				t.Errorf("excluded (-want +got):\n%s", diff)
			}
			// All 7 built-ins stay in the registry whatever the selection.
			n := 0
			for _, tr := range res.Tools {
				if tr.Source == "builtin" {
					n++
				}
			}
			if n != 8 {
				t.Errorf("%d built-ins listed, want 8", n)
			}
		})
	}
}

func TestDefaultToolsPrompt(t *testing.T) {
	res := Resolve(&Input{Extensions: []Extension{builtins()}, DefaultTools: []string{"grep", "find"}, DefaultToolsSpan: at(), Env: linuxEnv()})
	want := SystemPrompt{
		Tools:      []string{"- grep: Search file contents for patterns (respects .gitignore)", "- find: Find files by glob pattern (respects .gitignore)"},
		Guidelines: []string{conciseGuideline, pathsGuideline},
	}
	if diff := cmp.Diff(want, res.SystemPrompt); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, tr := range res.Tools {
		if tr.Name == "read" && (tr.Rule == nil || tr.Rule.Text != "defaultTools") {
			t.Errorf("read: rule %+v, want defaultTools", tr.Rule)
		}
	}
}

// host-behaviour §7 system-prompt.
func TestSystemPrompt(t *testing.T) {
	x := func(tools ...Tool) []Extension {
		return []Extension{{Source: Source{Kind: KindExtension, Name: "x", File: "x.jsonc"}, Tools: tools}}
	}
	tests := []struct {
		name string
		exts []Extension
		def  []string
		want SystemPrompt
	}{
		{"no tools", nil, nil, SystemPrompt{Tools: []string{"(none)"}, Guidelines: []string{conciseGuideline, pathsGuideline}}},
		{"custom tool with snippet", x(Tool{Name: "c", PromptSnippet: "  does\n  c  "}), nil,
			SystemPrompt{Tools: []string{"- c: does c"}, Guidelines: []string{conciseGuideline, pathsGuideline}}},
		{"custom tool without snippet", x(Tool{Name: "c"}), nil, SystemPrompt{Tools: []string{"(none)"}, Guidelines: []string{conciseGuideline, pathsGuideline}}},
		{"guidelines deduplicated and trimmed", x(
			Tool{Name: "a", PromptGuidelines: []string{" Use a. ", "", "Use a.", "Be concise in your responses"}},
			Tool{Name: "b", PromptGuidelines: []string{"Use a.", "Use b."}}), nil,
			SystemPrompt{Tools: []string{"(none)"}, Guidelines: []string{"Use a.", "Be concise in your responses", "Use b.", pathsGuideline}}},
		{"bash alone gets the file-ops line", []Extension{builtins()}, []string{"bash"},
			SystemPrompt{Tools: []string{"- bash: Execute bash commands (ls, grep, find, etc.)"},
				Guidelines: []string{bashFileOpsGuideline, "You can inspect PI_* environment variables for current model and session details.", conciseGuideline, pathsGuideline}}},
		{"bash with grep does not", []Extension{builtins()}, []string{"bash", "grep"},
			SystemPrompt{Tools: []string{"- bash: Execute bash commands (ls, grep, find, etc.)", "- grep: Search file contents for patterns (respects .gitignore)"},
				Guidelines: []string{"You can inspect PI_* environment variables for current model and session details.", conciseGuideline, pathsGuideline}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Resolve(&Input{Extensions: tt.exts, DefaultTools: tt.def})
			if diff := cmp.Diff(tt.want, res.SystemPrompt); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	p := Personal{FileIO: FileIOOpencode, FileIOSpan: at(), DisabledTools: rules("disabledTools", "web_*"),
		EnabledTools: rules("enabledTools", "web_search")}
	res := Resolve(&Input{Extensions: catalogue(), Personal: p, Env: linuxEnv()})
	steps := func(name string) []string {
		ex, ok := res.Explain(name)
		if !ok {
			t.Fatalf("explain %q: unknown", name)
		}
		var out []string
		for _, s := range ex.Steps {
			r := ""
			if s.Rule != nil {
				r = " [" + s.Rule.Text + "]"
			}
			out = append(out, s.Step+": "+s.Outcome+r)
		}
		return append(out, "state: "+string(ex.State))
	}
	want := []string{
		"file-io: file toolset is opencode [fileIo: opencode]",
		"condition: no condition",
		"disabled: no rule matched",
		"enabled: no rule matched",
		"codemode-only: no rule matched",
		"selection: inactive: the built-in \"grep\" it replaces is inactive: not in the default built-in selection (read, bash, edit, write)",
		"override: replaces the built-in \"grep\"",
		"state: inactive",
	}
	if diff := cmp.Diff(want, steps("grep")); diff != "" {
		t.Errorf("grep (-want +got):\n%s", diff)
	}
	want = []string{
		"file-io: not a file tool",
		"condition: no condition",
		"disabled: matched by disabledTools [web_*]",
		"enabled: matched by enabledTools: exempt from disabledTools [web_search]",
		"codemode-only: no rule matched",
		"selection: active: extension tools start active",
		"override: no other declaration of \"web_search\" wins over this one",
		"state: active",
	}
	if diff := cmp.Diff(want, steps("web_search")); diff != "" {
		t.Errorf("web_search (-want +got):\n%s", diff)
	}
	if got := steps("Read"); got[0] != "file-io: file toolset is opencode; tool belongs to claude-code [fileIo: opencode]" || got[len(got)-1] != "state: unavailable" {
		t.Errorf("Read: %q", got)
	}
	if _, ok := res.Explain("nope"); ok {
		t.Error("unknown tool explained")
	}
}

// Resolution is deterministic: repeated runs and settings maps built in different orders give
// byte-identical JSON.
func TestDeterministic(t *testing.T) {
	p := Personal{
		DisabledTools:     rules("disabledTools", "talk-*", "web_*", "nope"),
		EnabledTools:      []Rule{rule("enabledTools", 0, []string{"web_search"}, "glm-*")},
		CodemodeOnlyTools: rules("codemodeOnlyTools", "web_*", "Bash", "TodoWrite"),
	}
	keys := []string{"visionConfig", "theme", "defaultTools", "a", "b", "c", "d", "e"}
	var first []byte
	for i := range 50 {
		settings := map[string]any{}
		for _, j := range rand.Perm(len(keys)) {
			settings[keys[j]] = j
		}
		env := linuxEnv()
		env.Settings = settings
		res := Resolve(&Input{Extensions: catalogue(), Personal: p, Model: glm, Env: env})
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		ex, _ := json.Marshal(res.ExplainAll())
		b = append(b, ex...)
		if i == 0 {
			first = b
		} else if string(b) != string(first) {
			t.Fatalf("run %d differs:\n%s\nvs\n%s", i, b, first)
		}
	}
}

func TestJSONShape(t *testing.T) {
	res := Resolve(&Input{Extensions: catalogue(), Model: glm, Personal: Personal{DisabledTools: rules("disabledTools", "nope_*")}, Env: linuxEnv()})
	b, _ := json.Marshal(res)
	for _, key := range []string{`"model":{"provider":"zhipu","id":"glm-4.6"}`, `"file_io":"claude-code"`, `"prompt_snippet":true`,
		`"codemode_only":[`, `"system_prompt":{"tools":[`, `"warnings":[{"code":"unmatched-pattern"`, `"line":`, `"column":5`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s:\n%s", key, b)
		}
	}
}

func TestUnmatchedPatternHintsAtUnavailableTools(t *testing.T) {
	ext := Extension{Source: Source{Kind: KindToolset, Name: "aft"}, Tools: []Tool{
		{Name: "aft_outline", When: `which("aft")`}, {Name: "aft_zoom", When: `which("aft")`},
	}}
	p := Personal{DisabledTools: rules("disabledTools", "aft_*", "nope_*")}
	res := Resolve(&Input{Extensions: []Extension{ext}, Personal: p, Env: cond.Env{}})
	var hints []string
	for _, w := range res.Warnings {
		if w.Code == "unmatched-pattern" {
			hints = append(hints, w.Hint)
		}
	}
	want := []string{"it matches tools that are unavailable in this session (aft_outline, aft_zoom: condition `which(\"aft\")` is false)", ""}
	if diff := cmp.Diff(want, hints); diff != "" {
		t.Errorf("hints (-want +got):\n%s", diff)
	}
}
