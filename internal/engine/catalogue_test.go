package engine

import (
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
)

// A small but realistic catalogue, written for these tests (the real one lives in toolsets/).

func tool(name, snippet string, opts ...func(*Tool)) Tool {
	t := Tool{Name: name, Label: name, Description: name, PromptSnippet: snippet}
	for _, o := range opts {
		o(&t)
	}
	return t
}

func structured(t *Tool)    { t.Structured = true }
func fixedCodemode(t *Tool) { t.CodemodeOnly = true }
func when(src string) func(*Tool) {
	return func(t *Tool) { t.When = src }
}
func fileIO(set string) func(*Tool) { return func(t *Tool) { t.FileIO = set } }
func unit(u string) func(*Tool)     { return func(t *Tool) { t.Unit = u } }
func guidelines(g ...string) func(*Tool) {
	return func(t *Tool) { t.PromptGuidelines = g }
}

func builtins() Extension {
	return Extension{Source: Source{Kind: KindBuiltin, Scope: ScopeTemporary}, Tools: []Tool{
		tool("read", "Read file contents", guidelines("Use read to examine files instead of cat or sed.")),
		tool("bash", "Execute bash commands (ls, grep, find, etc.)", guidelines("You can inspect PI_* environment variables for current model and session details.")),
		tool("edit", "Make precise file edits", guidelines("edit: oldText must match exactly")),
		tool("write", "Create or overwrite files", guidelines("Use write only for new files or complete rewrites.")),
		tool("grep", "Search file contents for patterns (respects .gitignore)"),
		tool("find", "Find files by glob pattern (respects .gitignore)"),
		tool("ls", "List directory contents"),
		tool("powershell", "Execute PowerShell commands", when(`os == "windows"`)),
	}}
}

func claudeCode() Extension {
	cc := fileIO(FileIOClaudeCode)
	return Extension{Source: Source{Kind: KindToolset, Name: "claude-code", File: "toolsets/claude-code.cue", Scope: ScopeUser}, Tools: []Tool{
		tool("Read", "Read a file", cc, unit("Read/Edit/Write")),
		tool("Edit", "Edit a file", cc, unit("Read/Edit/Write")),
		tool("Write", "Write a file", cc, unit("Read/Edit/Write")),
		tool("Glob", "Find files", cc, unit("Glob/Grep")),
		tool("Grep", "Search files", cc, unit("Glob/Grep")),
		tool("Bash", "Run a command", cc, unit("Bash"), structured),
		tool("TodoWrite", "Track todos", cc, unit("TodoWrite/AskUserQuestion")),
		tool("AskUserQuestion", "Ask the user", cc, unit("TodoWrite/AskUserQuestion")),
	}}
}

func opencode() Extension {
	oc := fileIO(FileIOOpencode)
	return Extension{Source: Source{Kind: KindToolset, Name: "opencode", File: "toolsets/opencode.cue", Scope: ScopeUser},
		OverridesBuiltins: true, Tools: []Tool{
			tool("read", "Read a file (opencode)", oc, unit("read/edit/write")),
			tool("edit", "Edit a file (opencode)", oc, unit("read/edit/write")),
			tool("write", "Write a file (opencode)", oc, unit("read/edit/write")),
			tool("glob", "Find files (opencode)", oc, unit("glob/grep")),
			tool("grep", "Search files (opencode)", oc, unit("glob/grep")),
			tool("bash", "Run a command (opencode)", oc, unit("bash"), structured),
			tool("todowrite", "Track todos (opencode)", oc, unit("todowrite/question")),
			tool("question", "Ask the user (opencode)", oc, unit("todowrite/question")),
		}}
}

func others() Extension {
	gh := when(`which("gh") && os != "windows"`)
	return Extension{Source: Source{Kind: KindToolset, Name: "seed", File: "toolsets/seed.cue", Scope: ScopeUser}, Tools: []Tool{
		tool("read-github-issue", "Read an issue", gh, structured, fixedCodemode, unit("github")),
		tool("list-github-prs", "List PRs", gh, structured, fixedCodemode, unit("github")),
		tool("web_search", "Search the web", structured, unit("web_search")),
		tool("web_fetch", "Fetch a URL", unit("web_fetch")),
		tool("talk-send", "Send a message", unit("talk")),
		tool("talk-ask", "Ask a session", unit("talk")),
		tool("aft_outline", "Outline a file", when(`which("aft")`), structured, unit("aft")),
		tool("lsp-inspect", "Inspect a symbol", when(`len(lsp.servers) > 0`), structured),
		tool("codemode", "Run a script", unit("codemode")),
	}}
}

func catalogue(extra ...Extension) []Extension {
	out := []Extension{builtins()}
	out = append(out, extra...)
	return append(out, claudeCode(), opencode(), others())
}

// settingsSrc is a fake settings.json whose text lets spans carry real line:col positions.
const settingsLines = 200

var settingsSrc = diag.NewSource("settings.json", []byte(strings.Repeat("                                        \n", settingsLines)))

var spanLine = 0

// at returns a fresh span on its own line of settingsSrc.
func at() diag.Span {
	// Cycle through the source's lines so that repeated runs (-count=N) stay inside it.
	spanLine = spanLine%(settingsLines-1) + 1
	off := settingsSrc.Offset(spanLine, 5)
	return diag.At(settingsSrc, off, off+4)
}

func pats(texts ...string) []Pattern {
	out := make([]Pattern, len(texts))
	for i, t := range texts {
		out[i] = Pattern{Text: t, Span: at()}
	}
	return out
}

func rule(field string, idx int, tools []string, models ...string) Rule {
	return Rule{Field: field, Index: idx, Tools: pats(tools...), Models: pats(models...), Span: at()}
}

func rules(field string, simple ...string) []Rule {
	var out []Rule
	for i, s := range simple {
		out = append(out, rule(field, i, []string{s}))
	}
	return out
}

var (
	glm    = &Model{Provider: "zhipu", ID: "glm-4.6", Input: []string{"text"}}
	gpt    = &Model{Provider: "openai", ID: "gpt-5", Input: []string{"text", "image"}}
	glmOR  = &Model{Provider: "openrouter", ID: "glm-4.6"}
	onPath = func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, x := range names {
				if x == n {
					return true
				}
			}
			return false
		}
	}
)
