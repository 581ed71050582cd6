package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// ocTodo is one todowrite item.
type ocTodo struct {
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority"`
}

var ocTodoMarks = map[string]string{"pending": " ", "in_progress": ">", "completed": "x", "cancelled": "-"}

// OCTodoWidget is the widget the chat draws for a todowrite result's
// details: one "- [m] content" line per item, the mark m being " ", ">",
// "x" or "-" by status and the priority in backquotes after it; nil when
// the list is empty.
func OCTodoWidget(details json.RawMessage) []string {
	var d struct {
		Todos []ocTodo `json:"todos"`
	}
	if json.Unmarshal(details, &d) != nil {
		return nil
	}
	return ocTodoLines(d.Todos)
}

// ocTodoLines are the lines of a todowrite list (nil when empty).
func ocTodoLines(todos []ocTodo) []string {
	if len(todos) == 0 {
		return nil
	}
	out := make([]string, len(todos))
	for i, t := range todos {
		out[i] = "- [" + ocTodoMarks[t.Status] + "] " + t.Content + " `" + t.Priority + "`"
	}
	return out
}

func ocTodoMarkdown(todos []ocTodo) string {
	open := 0
	for _, t := range todos {
		if t.Status != "completed" {
			open++
		}
	}
	lines := []string{"## Tasks", "", fmt.Sprintf("**%d open · %d total**", open, len(todos))}
	if len(todos) == 0 {
		return strings.Join(append(lines, "", "_No todos_"), "\n")
	}
	return strings.Join(append(append(lines, ""), ocTodoLines(todos)...), "\n")
}

func ocTodoWrite(_ context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		Todos []ocTodo `json:"todos"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	todos := make([]ocTodo, len(a.Todos))
	for i, t := range a.Todos {
		todos[i] = ocTodo{Content: toolkit.JsTrim(t.Content), Status: t.Status, Priority: t.Priority}
	}
	text, err := jsonIndent(todos)
	if err != nil {
		return toolrun.Result{}, err
	}
	type pendant struct {
		Markdown string `json:"markdown"`
	}
	return toolrun.TextResult(text, struct {
		Todos   []ocTodo `json:"todos"`
		Pendant pendant  `json:"pendant"`
	}{todos, pendant{ocTodoMarkdown(todos)}}), nil
}

// jsonIndent is JSON.stringify(v, null, 2).
func jsonIndent(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
