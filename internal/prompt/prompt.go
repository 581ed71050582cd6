// Package prompt builds what the model is told besides the conversation: pi 0.84's system
// prompt (the tools section and guidelines the engine resolved, the pi docs block, the append
// prompt, context files, skills, the working directory), the seed's system-prompt template
// when one is configured, and the expansion of a typed `/name` into the message pi would send
// (extension command, `/skill:name`, prompt template).
//
// Texts are pi's byte for byte (core/system-prompt.js, core/skills.js,
// core/prompt-templates.js, core/agent-session.js); golden tests compare them with what the
// real pi sends.
package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Options are the inputs of the system prompt.
type Options struct {
	// Cwd is the working directory (absolute).
	Cwd string
	// AgentDir is the global config directory (~/.pi/agent).
	AgentDir string
	// Trusted says whether the project is trusted: only then are .pi/SYSTEM.md and
	// .pi/APPEND_SYSTEM.md read (context files are not trust-gated).
	Trusted bool

	// SystemPrompt is --system-prompt: a file path when such a file exists, else the text.
	SystemPrompt string
	// AppendSystemPrompt are the --append-system-prompt values (each a file or text).
	AppendSystemPrompt []string
	// NoContextFiles is -nc / --no-context-files.
	NoContextFiles bool

	// ActiveTools are the names of the active tools, in order (the engine's Active).
	ActiveTools []string
	// ToolLines are the "Available tools:" lines (the engine's SystemPrompt.Tools).
	ToolLines []string
	// Guidelines are the de-duplicated guidelines (the engine's SystemPrompt.Guidelines).
	Guidelines []string
	// Skills are the loaded skills in load order.
	Skills []Skill

	// PackageDir is where the pi docs block points (pi's package directory: README.md,
	// docs/, examples/). Default: $PI_PACKAGE_DIR, else the directory of the executable.
	PackageDir string

	// Template is the seed's system-prompt template (the text of the prompt.md SeedTemplate
	// finds); when set it replaces the whole prompt, as the seed's extension does in
	// before_agent_start.
	Template string
	// Now is the clock for the template's {{date}} (nil: time.Now).
	Now func() time.Time
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
}

// Result is a built system prompt and what went into it.
type Result struct {
	// Text is the system prompt.
	Text string
	// ContextFiles are the context files included, in order.
	ContextFiles []ContextFile
	// SystemPromptFile and AppendFiles are the files the custom and append prompts came from.
	SystemPromptFile string
	AppendFiles      []string
	// Warnings are files that could not be read, one sentence each.
	Warnings []string
}

// The fixed texts of pi 0.84's default prompt (core/system-prompt.js).
const (
	intro = "You are an expert coding assistant operating inside pi, a coding agent harness. You help users by reading files, executing commands, editing code, and writing new files."
	// additionalTools follows the tools list.
	additionalTools = "In addition to the tools above, you may have access to other custom tools depending on the project."
	docsIntro       = "Pi documentation (read only when the user asks about pi itself, its SDK, extensions, themes, skills, or TUI):"
)

// Fallback guidelines when no engine result is given (pi's defaults without tools).
const (
	guidelineConcise = "Be concise in your responses"
	guidelinePaths   = "Show file paths clearly when working with files"
	guidelineBash    = "Use bash for file operations like ls, rg, find"
)

func (o *Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

func (o *Options) packageDir() string {
	if o.PackageDir != "" {
		return o.PackageDir
	}
	if d := o.getenv("PI_PACKAGE_DIR"); d != "" {
		return filepath.Clean(d)
	}
	if exe, err := os.Executable(); err == nil {
		return filepath.Dir(exe)
	}
	return "."
}

// Build assembles the system prompt as pi 0.84's buildSystemPrompt does, or renders the
// seed's template when Options.Template is set.
func Build(o Options) Result {
	var r Result
	custom, customFile := o.readSystemPrompt(&r)
	r.SystemPromptFile = customFile
	appends := o.readAppends(&r)
	if !o.NoContextFiles {
		files, warns := LoadContextFiles(o.AgentDir, o.Cwd)
		r.ContextFiles = files
		r.Warnings = append(r.Warnings, warns...)
	}
	appendText := strings.Join(appends, "\n\n")
	if o.Template != "" {
		r.Text = o.renderTemplate(appendText, r.ContextFiles)
		return r
	}
	promptCwd := strings.ReplaceAll(o.Cwd, `\`, "/")
	// The prompt's pieces are gathered and joined once, into a string of their exact length:
	// a builder grown piece by piece allocated ~3× the prompt's 6 KB, in as many fresh size
	// classes, on every start (docs/decisions/25-speed.md, D25.44).
	parts := make([]string, 0, 48)
	hasRead := contains(o.ActiveTools, "read")
	if custom != "" {
		parts = append(parts, custom)
		// pi: skills with a custom prompt when read is selected or no tool list is set.
		hasRead = o.ActiveTools == nil || hasRead
	} else {
		parts = o.appendDefault(parts)
	}
	if appendText != "" {
		parts = append(parts, "\n\n", appendText)
	}
	parts = append(parts, FormatContextFiles(r.ContextFiles))
	if hasRead {
		parts = append(parts, FormatSkills(o.Skills))
	}
	parts = append(parts, "\nCurrent working directory: ", promptCwd)
	if custom != "" {
		parts = append(parts, "\n")
	}
	r.Text = strings.Join(parts, "")
	return r
}

// appendDefault appends pi's default prompt, in pieces, to parts.
func (o *Options) appendDefault(parts []string) []string {
	tools := o.ToolLines
	if len(tools) == 0 {
		tools = []string{"(none)"}
	}
	guidelines := o.Guidelines
	if guidelines == nil {
		guidelines = []string{guidelineConcise, guidelinePaths}
	}
	pkg := o.packageDir()
	parts = append(parts, intro, "\n\nAvailable tools:\n")
	for i, t := range tools {
		if i > 0 {
			parts = append(parts, "\n")
		}
		parts = append(parts, t)
	}
	parts = append(parts, "\n\n", additionalTools, "\n\nGuidelines:\n")
	for i, g := range guidelines {
		if i > 0 {
			parts = append(parts, "\n")
		}
		parts = append(parts, "- ", g)
	}
	parts = append(parts, "\n\n", docsIntro, "\n",
		"- Main documentation: ", filepath.Join(pkg, "README.md"), "\n",
		"- Additional docs: ", filepath.Join(pkg, "docs"), "\n",
		"- Examples: ", filepath.Join(pkg, "examples"), " (extensions, custom tools, SDK)\n",
		docsRules)
	return parts
}

// docsRules are the last lines of the docs block.
const docsRules = "- When reading pi docs or examples, resolve docs/... under Additional docs and examples/... under Examples, not the current working directory\n" +
	"- When asked about: extensions (docs/extensions.md, examples/extensions/), themes (docs/themes.md), skills (docs/skills.md), prompt templates (docs/prompt-templates.md), TUI components (docs/tui.md), keybindings (docs/keybindings.md), SDK integrations (docs/sdk.md), custom providers (docs/custom-provider.md), adding models (docs/models.md), pi packages (docs/packages.md), environment variables (docs/environment-variables.md)\n" +
	"- When working on pi topics, read the docs and examples, and follow .md cross-references before implementing\n" +
	"- Always read pi .md files completely and follow links to related docs (e.g., tui.md for TUI API details)"

// readSystemPrompt is pi's custom prompt: --system-prompt (a file when it exists, else the
// text), else the trusted project's .pi/SYSTEM.md, else AGENTDIR/SYSTEM.md.
func (o *Options) readSystemPrompt(r *Result) (text, file string) {
	src := o.SystemPrompt
	if src == "" {
		src = o.discover("SYSTEM.md")
	}
	return o.resolveInput(src, "system prompt", r)
}

func (o *Options) readAppends(r *Result) []string {
	srcs := o.AppendSystemPrompt
	if len(srcs) == 0 {
		if f := o.discover("APPEND_SYSTEM.md"); f != "" {
			srcs = []string{f}
		}
	}
	var out []string
	for _, s := range srcs {
		text, file := o.resolveInput(s, "append system prompt", r)
		if file != "" {
			r.AppendFiles = append(r.AppendFiles, file)
		}
		if s != "" {
			out = append(out, text)
		}
	}
	return out
}

func (o *Options) discover(name string) string {
	if o.Trusted {
		if p := filepath.Join(o.Cwd, ".pi", name); exists(p) {
			return p
		}
	}
	if o.AgentDir != "" {
		if p := filepath.Join(o.AgentDir, name); exists(p) {
			return p
		}
	}
	return ""
}

// resolveInput is pi's resolvePromptInput: an existing file's content (BOM stripped), else
// the value itself. An unreadable file warns and the value is used as text.
func (o *Options) resolveInput(src, what string, r *Result) (text, file string) {
	if src == "" {
		return "", ""
	}
	p := src
	if !filepath.IsAbs(p) {
		p = filepath.Join(o.Cwd, p)
	}
	if _, err := os.Stat(p); err != nil {
		return src, ""
	}
	b, err := os.ReadFile(p)
	if err != nil {
		r.Warnings = append(r.Warnings, "Warning: Could not read "+what+" file "+src+": "+err.Error())
		return src, ""
	}
	return stripBOM(string(b)), p
}

func stripBOM(s string) string { return strings.TrimPrefix(s, "\ufeff") }

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
