// Package engine resolves pigo's tool and command declarations for one session start (D9): it
// collects built-ins and extensions in load order, evaluates `when` conditions, picks the file
// toolset, applies the personalExtensions rules and pi's selection flags, and returns the
// registry, the model-visible active list, the codemode bus, the system-prompt tool section,
// warnings, and for every tool the steps that decided its state (for `pigo explain`).
//
// The engine is a pure, deterministic library: it does no I/O (the caller fills the condition
// environment, including `which`), never iterates a map into its output, and does not import
// CUE, the config loader or any rendering code.
package engine

import (
	"encoding/json"

	"github.com/pigo-agent/pigo/internal/cond"
	"github.com/pigo-agent/pigo/internal/diag"
)

// SourceKind says where a declaration comes from.
type SourceKind string

// The source kinds.
const (
	KindBuiltin   SourceKind = "builtin"   // pi's own tools and commands
	KindToolset   SourceKind = "toolset"   // the shipped toolsets (a package, ranks last)
	KindExtension SourceKind = "extension" // a declarative extension file of the user or project
	KindCLI       SourceKind = "cli"       // an `-e FILE` extension
	KindMCP       SourceKind = "mcp"       // the tools an MCP server offers (mcp.json)
)

// Scope is pi's source scope: user, project or temporary.
type Scope string

// The scopes.
const (
	ScopeUser      Scope = "user"
	ScopeProject   Scope = "project"
	ScopeTemporary Scope = "temporary"
)

// Source identifies the file or toolset a declaration comes from.
type Source struct {
	Kind SourceKind
	// Name is the toolset or extension name ("opencode", "git-tools"); empty for built-ins.
	Name string
	// File is the declaring file as the user gave it (or the embedded toolset's path).
	File  string
	Scope Scope
	// Line and Column point into File (an MCP server's entry); 0 when the source is the file.
	Line, Column int
}

// String renders the source as the registry shows it: "builtin", "toolset:opencode",
// "extension:NAME", "cli:NAME".
func (s Source) String() string {
	if s.Kind == KindBuiltin || s.Kind == "" {
		return string(KindBuiltin)
	}
	name := s.Name
	if name == "" {
		name = s.File
	}
	return string(s.Kind) + ":" + name
}

// The file toolsets (personalExtensions.fileIo).
const (
	FileIOClaudeCode = "claude-code"
	FileIOOpencode   = "opencode"
)

// Tool is one tool declaration.
type Tool struct {
	Name             string
	Label            string
	Description      string
	PromptSnippet    string
	PromptGuidelines []string
	// Structured is true when the tool declares a structured output schema (codemode-callable).
	Structured bool
	// CodemodeOnly is the declaration's fixed codemode-only flag (the GitHub read-only tools).
	CodemodeOnly bool
	// Unit is the module the tool loads with ("read/edit/write", "github", …).
	Unit string
	// When is the availability condition (expr-lang), "" for always; WhenSpan is the JSON string.
	When     string
	WhenSpan diag.Span
	// FileIO is the file toolset the tool belongs to: "", "claude-code" or "opencode".
	FileIO string
	// Span is the declaration (its name) in its file.
	Span diag.Span
	// Parameters and Output are the declared JSON Schemas (the runtime validates against
	// Parameters; Output is nil for a tool without structured output). Exec is a declarative
	// extension's argv template.
	Parameters json.RawMessage
	Output     json.RawMessage
	Exec       []string
	// MCP is set for a tool an MCP server offers (and for the MCP resource tools).
	MCP *MCPTool
}

// MCPTool says how an MCP tool reaches the model (pi 1.6's exposure).
type MCPTool struct {
	// Server is the server's name ("" for the resource tools, which reach every server); Tool the
	// server's own name of the tool.
	Server, Tool string
	// Exposure is "direct", "codemode", "deferred" or "hidden"; ExposureRule is where it was
	// decided (the toolExposure or exposure value, or the server entry for the default).
	Exposure     string
	ExposureRule *RuleRef
	// Disabled is a server with "enabled": false (DisabledRule points at it): its tools are
	// listed from the schema cache but unreachable.
	Disabled     bool
	DisabledRule *RuleRef
	// Stale marks tools listed from a schema cache entry written for another version of the
	// server's entry.
	Stale bool
}

// MCPInput is what MCP adds to a resolution beyond its tools.
type MCPInput struct {
	// Activate are the tools MCP servers activate (pi's ensureDiscoveryActive): codemode for
	// servers with codemode exposure, tool_search for deferred ones.
	Activate []Activation
	// Indirect is set when an enabled server has codemode or deferred tools: without codemode or
	// tool_search active they cannot be called, which is warned about once.
	Indirect bool
	// NoAutoCodemode is autoEnableCodemode: false (named in that warning).
	NoAutoCodemode bool
	// Loaded are the MCP tools tool_search loaded on this branch: they are declared.
	Loaded []string
}

// Activation is one tool MCP activates, and why.
type Activation struct {
	Tool   string
	Reason string
	Rule   *RuleRef
}

// Extension is one group of declarations: pi's built-ins, a shipped toolset or an extension
// file. Extensions are given in load order, built-ins first.
type Extension struct {
	Source Source
	// OverridesBuiltins marks an extension whose replacement of built-ins is by design (the
	// shipped opencode toolset): no builtin-override warning.
	OverridesBuiltins bool
	Tools             []Tool
	Commands          []ExtCommand
}

// Pattern is one tool or model pattern as written in the config, with the span of its JSON
// string (opening quote included).
type Pattern struct {
	Text string
	Span diag.Span
}

// Rule is one entry of disabledTools, enabledTools or codemodeOnlyTools (a bare string is
// given as a rule with one tool pattern and no models).
type Rule struct {
	// Field is "disabledTools", "enabledTools" or "codemodeOnlyTools"; Index is the entry's index.
	Field  string
	Index  int
	Tools  []Pattern
	Models []Pattern
	// When is an optional condition on the rule; WhenSpan its JSON string.
	When     string
	WhenSpan diag.Span
	Span     diag.Span
}

// FileIOEntry is one personalExtensions.fileIoByModel entry.
type FileIOEntry struct {
	Index  int
	Models []Pattern
	FileIO string
	Span   diag.Span
}

// Personal is the merged personalExtensions section (global + project, merged by the caller).
type Personal struct {
	// FileIO is "" (default claude-code), "claude-code" or "opencode"; FileIOSpan its value.
	FileIO            string
	FileIOSpan        diag.Span
	FileIOByModel     []FileIOEntry
	DisabledTools     []Rule
	EnabledTools      []Rule
	CodemodeOnlyTools []Rule
}

// Flags are pi's tool-selection flags and a sub-agent's tools list. A nil list is "not given";
// an empty non-nil list is "given, empty".
type Flags struct {
	Tools          []string
	ExcludeTools   []string
	NoBuiltinTools bool
	NoTools        bool
	// AgentTools is the sub-agent's `tools` list (a strict allowlist); AgentName names it in reasons.
	AgentTools []string
	AgentName  string
}

// Model is the session's model.
type Model struct {
	Provider      string
	ID            string
	Reasoning     bool
	Input         []string
	ContextWindow int
	MaxTokens     int
}

// Input is everything one resolution needs.
type Input struct {
	// Extensions in load order: built-ins (Source.Kind == KindBuiltin) first, then `-e` files,
	// trusted project extensions, agent-dir extensions, shipped toolsets.
	Extensions []Extension
	Personal   Personal
	// DefaultTools is settings.defaultTools: nil = unset (read bash edit write), [] = none.
	DefaultTools     []string
	DefaultToolsSpan diag.Span
	Flags            Flags
	// Model is the session's model, nil for none.
	Model *Model
	// Env is the condition environment; its Model is filled from Model by the engine.
	Env cond.Env
	// MCP holds the MCP activations and tool_search loads.
	MCP MCPInput
}

// State is a tool's single final state in the registry.
type State string

// The tool states.
const (
	Active       State = "active"
	Inactive     State = "inactive"
	CodemodeOnly State = "codemode-only"
	Disabled     State = "disabled"
	Unavailable  State = "unavailable"
	Excluded     State = "excluded"
	Overridden   State = "overridden"
)

// RuleRef points at the configured rule that decided something.
type RuleRef struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"` // left out, never 0, for a rule without a position
	Column int    `json:"column,omitempty"`
	Text   string `json:"text"`
}

// ToolResult is one registry row (cli.md `tools[]`).
type ToolResult struct {
	Name          string   `json:"name"`
	State         State    `json:"state"`
	Source        string   `json:"source"`
	File          string   `json:"file,omitempty"`
	Line          int      `json:"line,omitempty"`
	Column        int      `json:"column,omitempty"`
	Unit          string   `json:"unit"`
	Structured    bool     `json:"structured"`
	PromptSnippet bool     `json:"prompt_snippet"`
	Reason        string   `json:"reason"`
	Rule          *RuleRef `json:"rule,omitempty"`
	// RuleDisabled is true when personalExtensions.disabledTools turns the tool off, whether
	// or not it is available otherwise (a toolset's session-start notices are then not
	// given: the user turned it off).
	RuleDisabled bool `json:"-"`
}

// ModelRef is the model as the output names it.
type ModelRef struct {
	Provider string `json:"provider"`
	ID       string `json:"id"`
}

// SystemPrompt is the tools part of the default system prompt.
type SystemPrompt struct {
	// Tools are the "Available tools:" lines (`- name: snippet`), or ["(none)"].
	Tools []string `json:"tools"`
	// Guidelines are the de-duplicated "Guidelines:" lines.
	Guidelines []string `json:"guidelines"`
}

// Warning is a diagnostic as the JSON output shows it.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// Result is the resolved registry (cli.md `pigo tools`; the caller adds "version").
type Result struct {
	Model            *ModelRef    `json:"model"`
	FileIO           string       `json:"file_io"`
	Tools            []ToolResult `json:"tools"`
	Active           []string     `json:"active"`
	CodemodeOnly     []string     `json:"codemode_only"`
	CodemodeCallable []string     `json:"codemode_callable"`
	SystemPrompt     SystemPrompt `json:"system_prompt"`
	Warnings         []Warning    `json:"warnings"`
	// Diagnostics are the same warnings with their spans, in the order they arose.
	Diagnostics diag.List `json:"-"`

	decls []*decl
}

// Step is one decision of D9 about one tool.
type Step struct {
	// Step is one of file-io, condition, disabled, enabled, codemode-only, selection, override.
	Step    string   `json:"step"`
	Outcome string   `json:"outcome"`
	Rule    *RuleRef `json:"rule,omitempty"`
}

// ExplainResult is every step for one tool declaration (cli.md `pigo explain`).
type ExplainResult struct {
	Tool   string `json:"tool"`
	Source string `json:"source"`
	State  State  `json:"state"`
	Steps  []Step `json:"steps"`
}
