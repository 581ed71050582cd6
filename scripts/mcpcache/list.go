package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/pigo-agent/pigo/internal/mcp"
)

// mcpList is a server's tool list of T tools with typical schemas.
func mcpList(server string, t int) *mcp.ToolList {
	l := &mcp.ToolList{Time: time.Now()}
	for i := 0; i < t; i++ {
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
			"path":  map[string]any{"type": "string", "description": "A path"},
			"limit": map[string]any{"type": "number", "description": "How many"}}, "required": []string{"path"}})
		l.Tools = append(l.Tools, mcp.Tool{Name: fmt.Sprintf("tool_%02d", i), Description: "Does thing " + server, InputSchema: schema})
	}
	return l
}
