package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// LongContext is the context of a long coding session of about size bytes of message text,
// for benchmarks of what a turn costs before its request leaves: rounds of a user prompt, an
// assistant reply with a read call, the file it read (source text with quotes, tabs and line
// breaks, ~4 KB) and the assistant's answer, and the four built-in tools.
func LongContext(size int) *llm.Context {
	src := strings.Repeat("func f(s string) int {\n\tif s == \"\\\\\" {\n\t\treturn 1 // a \"quoted\" comment: é, ✓\n\t}\n\treturn len(s)\n}\n", 48)
	params := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"Path to the file"}},"required":["path"]}`)
	c := &llm.Context{SystemPrompt: "You are a coding agent. " + strings.Repeat("Follow the rules. ", 200)}
	for _, name := range []string{"read", "bash", "edit", "write"} {
		c.Tools = append(c.Tools, llm.Tool{Name: name, Description: "The " + name + " tool. " + strings.Repeat("It does what it says. ", 20), Parameters: params})
	}
	f := false
	for n, i := 0, 0; n < size; i++ {
		id := fmt.Sprintf("call_%08d", i)
		path := fmt.Sprintf("internal/pkg%d/file.go", i)
		msgs := []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(fmt.Sprintf("Look at %s and tell me what f does when s is a backslash.", path))}, Timestamp: int64(i)},
			{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("I'll read the file."),
				{Type: llm.TypeToolCall, ID: id, Name: "read", Arguments: json.RawMessage(`{"path":"` + path + `"}`)}},
				API: "openai-completions", Provider: "p", Model: "m", Usage: &llm.Usage{Input: 1000, Output: 20}, StopReason: llm.StopToolUse, Timestamp: int64(i)},
			{Role: llm.RoleToolResult, ToolCallID: id, ToolName: "read", Content: []llm.Content{llm.TextBlock(src)}, IsError: &f, Timestamp: int64(i)},
			{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("When s is a single backslash, f returns 1; otherwise it returns the length of s in bytes.")},
				API: "openai-completions", Provider: "p", Model: "m", Usage: &llm.Usage{Input: 5000, Output: 30}, StopReason: llm.StopStop, Timestamp: int64(i)},
		}
		for _, m := range msgs {
			for _, b := range m.Content {
				n += len(b.Text) + len(b.Arguments)
			}
		}
		c.Messages = append(c.Messages, msgs...)
	}
	return c
}
