package config

// Kind is the kind of a config or declaration file; it selects the schema definition that
// validates it. The names are the `kind` values of `pigo check --format json`.
type Kind string

// The file kinds of D1.
const (
	Settings   Kind = "settings"
	Sandbox    Kind = "sandbox"
	LSP        Kind = "lsp"
	Models     Kind = "models"
	SpawnAgent Kind = "spawn-agent"
	Proxy      Kind = "proxy"
	OpenAICost Kind = "openai-cost"
	WebSearch  Kind = "web-search"
	Trust      Kind = "trust"
	MCP        Kind = "mcp"
	Agent      Kind = "agent"
	Prompt     Kind = "prompt"
	Skill      Kind = "skill"
	Extension  Kind = "extension"
	Toolset    Kind = "toolset"
	Command    Kind = "command"
)

// Scope says where a file comes from.
type Scope string

// The scopes of `pigo check --format json`.
const (
	Global  Scope = "global"
	Project Scope = "project"
	Builtin Scope = "builtin"
	CLI     Scope = "cli"
)

// kindInfo describes the JSON config kinds.
type kindInfo struct {
	kind Kind
	file string // file name in the agent dir or .pi/
	def  string // schema definition
	// globalOnly files are read from the agent dir only.
	globalOnly bool
}

// jsonKinds lists the JSON files of D1 in the order check reports them.
var jsonKinds = []kindInfo{
	{Settings, "settings.json", "#Settings", false},
	{Sandbox, "sandbox.json", "#Sandbox", false},
	{LSP, "lsp.json", "#LSP", false},
	{Models, "models.json", "#Models", false},
	{SpawnAgent, "spawn-agent.json", "#SpawnAgent", false},
	{Proxy, "proxy.json", "#Proxy", false},
	{OpenAICost, "openai-cost.json", "#OpenAICost", false},
	{Trust, "trust.json", "#Trust", true},
	{MCP, "mcp.json", "#MCP", false},
}

// EditableKinds are the FILE arguments of `pigo config`.
var EditableKinds = []Kind{Settings, Sandbox, LSP, Models, SpawnAgent, Proxy, OpenAICost, MCP}

// FileName returns the file name of a JSON kind ("settings.json"), or "".
func FileName(k Kind) string {
	for _, ki := range jsonKinds {
		if ki.kind == k {
			return ki.file
		}
	}
	if k == WebSearch {
		return "web-search.json"
	}
	return ""
}

// Definition returns the schema definition that validates a kind.
func Definition(k Kind) string {
	for _, ki := range jsonKinds {
		if ki.kind == k {
			return ki.def
		}
	}
	switch k {
	case WebSearch:
		return "#WebSearch"
	case Agent:
		return "#AgentFrontmatter"
	case Prompt:
		return "#PromptFrontmatter"
	case Skill:
		return "#SkillFrontmatter"
	case Extension, Toolset, Command:
		return "#Extension"
	}
	return ""
}

// ParseKind accepts a kind name as typed on the command line.
func ParseKind(s string) (Kind, bool) {
	for _, k := range []Kind{Settings, Sandbox, LSP, Models, SpawnAgent, Proxy, OpenAICost, WebSearch, Trust, MCP} {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// lenient reports whether a file of kind k with errors still applies, minus the entries in
// error: settings.json (as pi and the seed read it) and mcp.json (pi reports an invalid server
// and connects the others). Every other kind is refused whole (fail closed).
func lenient(k Kind) bool { return k == Settings || k == MCP }
