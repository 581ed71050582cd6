package app

import (
	"encoding/json"
	"strings"

	"github.com/pigo-agent/pigo/internal/tools/claudecode"
	"github.com/pigo-agent/pigo/internal/tools/opencode"
)

func joinComma(s []string) string { return strings.Join(s, ", ") }

// TodoLines draws TodoWrite's and todowrite's lists for a todo widget (nil for other tools).
func TodoLines(tool string, details json.RawMessage) []string {
	switch tool {
	case "TodoWrite":
		return claudecode.CCTodoWidget(details)
	case "todowrite":
		return opencode.OCTodoWidget(details)
	}
	return nil
}
