package app

import (
	"encoding/json"
	"strings"

	"github.com/pigo-agent/pigo/internal/tools"
)

func joinComma(s []string) string { return strings.Join(s, ", ") }

// TodoLines draws TodoWrite's and todowrite's lists for a todo widget (nil for other tools).
func TodoLines(tool string, details json.RawMessage) []string {
	switch tool {
	case "TodoWrite":
		return tools.CCTodoWidget(details)
	case "todowrite":
		return tools.OCTodoWidget(details)
	}
	return nil
}
