package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// ccTodo is one TodoWrite item.
type ccTodo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

// ccTodoKey is the session's current TodoWrite list, replayed from the branch.
type ccTodoKey struct{}

type ccTodoList struct {
	mu    sync.Mutex
	todos []ccTodo
}

func ccTodos(s *toolrun.Session) *ccTodoList {
	return s.State(ccTodoKey{}, func() any { return &ccTodoList{} }).(*ccTodoList)
}

// ccTodoWrite merges the call's todos into the session's list by content (the seed's merge
// semantics): an item whose content is already listed takes the new status and activeForm in
// place, a new one is appended, and items the call does not name stay. details.todos is the
// whole merged list.
func ccTodoWrite(_ context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		Todos []ccTodo `json:"todos"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	for i, t := range a.Todos {
		a.Todos[i] = ccTodo{Content: toolkit.JsTrim(t.Content), Status: t.Status, ActiveForm: toolkit.JsTrim(t.ActiveForm)}
		if a.Todos[i].Content == "" || a.Todos[i].ActiveForm == "" {
			return toolrun.Result{}, errors.New("Todo content and activeForm must not be blank.")
		}
	}
	l := ccTodos(inv.Session)
	l.mu.Lock()
	defer l.mu.Unlock()
	todos := append([]ccTodo{}, l.todos...)
	for _, t := range a.Todos {
		found := false
		for i := range todos {
			if todos[i].Content == t.Content {
				todos[i], found = t, true
				break
			}
		}
		if !found {
			todos = append(todos, t)
		}
	}
	inProgress := 0
	for _, t := range todos {
		if t.Status == "in_progress" {
			inProgress++
		}
	}
	if inProgress > 1 {
		return toolrun.Result{}, errors.New("Only one todo may be in_progress at a time.")
	}
	l.todos = todos
	return toolrun.TextResult("Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
		struct {
			Todos []ccTodo `json:"todos"`
		}{todos}), nil
}

// CCTodoWidget is the widget the chat draws for TodoWrite's list:
// `Progress: c/n (p%)` then `- [ |>|x] text` (activeForm for the item in
// progress); nil for an empty list.
func CCTodoWidget(details json.RawMessage) []string {
	var d struct {
		Todos []ccTodo `json:"todos"`
	}
	if json.Unmarshal(details, &d) != nil || len(d.Todos) == 0 {
		return nil
	}
	done := 0
	for _, t := range d.Todos {
		if t.Status == "completed" {
			done++
		}
	}
	pct := int(math.Floor(float64(done)*100/float64(len(d.Todos)) + 0.5))
	out := []string{fmt.Sprintf("Progress: %d/%d (%d%%)", done, len(d.Todos), pct)}
	for _, t := range d.Todos {
		mark, text := " ", t.Content
		switch t.Status {
		case "in_progress":
			mark, text = ">", t.ActiveForm
		case "completed":
			mark = "x"
		}
		out = append(out, "- ["+mark+"] "+text)
	}
	return out
}
