package mcp

import (
	"encoding/json"
	"strings"
	"time"
)

// Tool is one tool a server offers (tools/list), as the protocol describes it.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are the boolean hints (readOnlyHint, destructiveHint, idempotentHint,
	// openWorldHint) and the annotation title.
	Annotations *Annotations `json:"annotations,omitempty"`
}

// Annotations are a tool's annotations that pigo keeps.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolList is what a server announced when it connected: its tools, its instructions and
// whether it offers resources. The schema cache stores one per server.
type ToolList struct {
	// Key is the server entry's Key when the list was taken.
	Key          string    `json:"key"`
	Server       string    `json:"server"`
	Tools        []Tool    `json:"tools"`
	Instructions string    `json:"instructions,omitempty"`
	HasResources bool      `json:"hasResources,omitempty"`
	Time         time.Time `json:"time"`
	// Normalized says the input schemas are already InputSchema's form (Normalize): a list is
	// normalized once when it is read from the server, not at every resolution.
	Normalized bool `json:"normalized,omitempty"`
}

// Normalize rewrites every input schema as the model is sent it (InputSchema).
func (l *ToolList) Normalize() {
	if l.Normalized {
		return
	}
	for i := range l.Tools {
		l.Tools[i].InputSchema = InputSchema(l.Tools[i].InputSchema)
	}
	l.Normalized = true
}

// Label is pi's label of an MCP tool: "server/tool".
func Label(server, tool string) string { return server + "/" + tool }

// Description is pi's description of an MCP tool: the tool's description, else its title,
// else a sentence naming it.
func (t *Tool) ModelDescription(server string) string {
	if d := strings.TrimSpace(t.Description); d != "" {
		return d
	}
	if t.Title != "" {
		return t.Title
	}
	if t.Annotations != nil && t.Annotations.Title != "" {
		return t.Annotations.Title
	}
	return "MCP tool " + t.Name + " from server " + server
}

// Summary is pi's mcpServerSummary: the first line of the configured description, else of the
// server's instructions; "" when it has neither.
func Summary(description, instructions string) string {
	text := strings.TrimSpace(description)
	if text == "" {
		text = strings.TrimSpace(instructions)
	}
	first, _, _ := strings.Cut(text, "\n")
	return strings.TrimSpace(first)
}
