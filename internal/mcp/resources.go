package mcp

import "encoding/json"

// The MCP resource tools (pi 1.6, after Codex and opencode): they reach every enabled,
// non-hidden server with resources.
const (
	ListResourcesTool         = "list_mcp_resources"
	ListResourceTemplatesTool = "list_mcp_resource_templates"
	ReadResourceTool          = "read_mcp_resource"
)

// IsResourceTool reports whether name is one of the resource tools.
func IsResourceTool(name string) bool {
	return name == ListResourcesTool || name == ListResourceTemplatesTool || name == ReadResourceTool
}

// IsToolName is pi's isMcpToolName: a server tool (mcp__…) or a resource tool.
func IsToolName(name string) bool {
	return len(name) > 5 && name[:5] == "mcp__" || IsResourceTool(name)
}

// ResourceDecl is the declaration of one resource tool.
type ResourceDecl struct {
	Name, Description  string
	Parameters, Output json.RawMessage
}

const listParameters = `{"type":"object","properties":{"server":{"type":"string","description":"MCP server name. Omit to list every server with resources."},"cursor":{"type":"string","description":"Opaque cursor from a previous call with the same server; omit for the first page."}},"additionalProperties":false}`

const listingErrors = `{"type":"array","description":"Servers that could not be listed","items":{"type":"object","properties":{"server":{"type":"string"},"error":{"type":"string"}},"required":["server","error"]}}`

// ResourceDecls are the three resource tools with pi's texts and schemas.
var ResourceDecls = []ResourceDecl{
	{
		Name:        ListResourcesTool,
		Description: "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible.",
		Parameters:  json.RawMessage(listParameters),
		Output:      json.RawMessage(`{"type":"object","properties":{"server":{"type":"string"},"resources":{"type":"array","items":{"type":"object","properties":{"server":{"type":"string"},"uri":{"type":"string"},"name":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},"mimeType":{"type":"string"},"size":{"type":"number"}},"required":["server","uri","name"]}},"nextCursor":{"type":"string"},"errors":` + listingErrors + `},"required":["resources"]}`),
	},
	{
		Name:        ListResourceTemplatesTool,
		Description: "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible.",
		Parameters:  json.RawMessage(listParameters),
		Output:      json.RawMessage(`{"type":"object","properties":{"server":{"type":"string"},"resourceTemplates":{"type":"array","items":{"type":"object","properties":{"server":{"type":"string"},"uriTemplate":{"type":"string","description":"RFC 6570 URI template"},"name":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},"mimeType":{"type":"string"}},"required":["server","uriTemplate","name"]}},"nextCursor":{"type":"string"},"errors":` + listingErrors + `},"required":["resourceTemplates"]}`),
	},
	{
		Name:        ReadResourceTool,
		Description: "Read a specific resource from an MCP server given the server name and resource URI.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."},"uri":{"type":"string","description":"Resource URI to read. Must be one of the URIs returned by list_mcp_resources."}},"required":["server","uri"],"additionalProperties":false}`),
		Output:      json.RawMessage(`{"type":"object","properties":{"server":{"type":"string"},"uri":{"type":"string"},"contents":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"uri":{"type":"string"},"mimeType":{"type":"string"},"text":{"type":"string"}},"required":["uri","text"]},{"type":"object","properties":{"uri":{"type":"string"},"mimeType":{"type":"string"},"blob":{"type":"string","description":"base64"}},"required":["uri","blob"]}]}}},"required":["server","uri","contents"]}`),
	},
}

// ToolSearchName is pi 1.6's tool_search tool.
const ToolSearchName = "tool_search"

// ToolSearchDescription is tool_search's description (pi 1.6's TOOL_SEARCH_DESCRIPTION).
const ToolSearchDescription = "# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call.\n\nSome of the tools, such as tools of MCP servers, may not have been provided to you upfront, and you should use this tool (`tool_search`) to search for the required tools. For MCP tool discovery, always use `tool_search`."

// ToolSearchSnippet is tool_search's prompt snippet.
const ToolSearchSnippet = "Search for tools that are not loaded yet and load the matches"

// DefaultToolSearchLimit is tool_search's default limit.
const DefaultToolSearchLimit = 8

// ToolSearchParameters is tool_search's parameter schema.
const ToolSearchParameters = `{"type":"object","properties":{"query":{"type":"string","description":"Search query for deferred tools."},"limit":{"type":"number","description":"Maximum number of tools to return. Defaults to 8."}},"required":["query"]}`
