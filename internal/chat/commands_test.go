package chat

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// enter types line, presses Enter and runs what follows (a selector's computation, a host
// command) until the chat is idle again.
func enter(m *Model, line string) {
	key(m, line)
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	settle(m, cmd)
}

func settle(m *Model, cmd tea.Cmd) {
	for _, msg := range runBatch(cmd) {
		if msg == nil {
			continue
		}
		_, next := m.Update(msg)
		settle(m, next)
	}
}

// /model without an argument opens the selector the command line computes; choosing runs the
// host command with the chosen item's argument and the footer shows the new model. /model
// with an argument switches directly.
func TestModelCommand(t *testing.T) {
	var got []string
	o := Options{Model: "local/m", ContextWindow: 1000, Thinking: "high",
		Host: map[string]func(context.Context, string) (HostResult, error){
			"model": func(_ context.Context, ref string) (HostResult, error) {
				got = append(got, ref)
				return HostResult{Text: "Model: " + ref, Model: ref, ContextWindow: 2000, Thinking: "off", Keep: true}, nil
			}},
		Pick: map[string]func() (Picker, error){
			"model": func() (Picker, error) {
				return Picker{Title: "Select model", Items: []PickItem{{Label: "local/m ✓", Arg: "local/m"}, {Label: "anthropic/claude-x", Arg: "anthropic/claude-x"}}}, nil
			}}}
	m := newTestModel(o, 80, 12)
	enter(m, "/model")
	if m.dialog == nil || m.dialog.kind != "pick" {
		t.Fatal("/model did not open the selector")
	}
	golden(t, "model-picker", m.View())
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyDown})
	settle(m, cmd)
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	settle(m, cmd)
	if m.dialog != nil {
		t.Fatal("the selector stayed open")
	}
	golden(t, "model-switched", m.View())
	enter(m, "/model local/m")
	if strings.Join(got, ",") != "anthropic/claude-x,local/m" {
		t.Fatalf("host got %q", got)
	}
	if m.o.Model != "local/m" || m.o.ContextWindow != 2000 || m.o.Thinking != "off" {
		t.Fatalf("footer model %q window %d", m.o.Model, m.o.ContextWindow)
	}
}

// An empty selector says so instead of opening.
func TestPickEmpty(t *testing.T) {
	o := Options{Model: "local/m",
		Host: map[string]func(context.Context, string) (HostResult, error){
			"resume": func(context.Context, string) (HostResult, error) { return HostResult{}, nil }},
		Pick: map[string]func() (Picker, error){
			"resume": func() (Picker, error) { return Picker{Title: "Resume session", Empty: "No sessions found"}, nil }}}
	m := newTestModel(o, 80, 12)
	enter(m, "/resume")
	if m.dialog != nil || !strings.Contains(m.View(), "No sessions found") {
		t.Fatalf("empty selector:\n%s", m.View())
	}
}

// /fork's selector starts at the newest message; the forked message's text comes back into
// the editor with the host's status line.
func TestForkCommand(t *testing.T) {
	var got string
	o := Options{Model: "local/m",
		Host: map[string]func(context.Context, string) (HostResult, error){
			"fork": func(_ context.Context, id string) (HostResult, error) {
				got = id
				return HostResult{Text: "Forked to new session", Input: "second prompt"}, nil
			}},
		Pick: map[string]func() (Picker, error){
			"fork": func() (Picker, error) {
				return Picker{Title: "Fork from which message?", Items: []PickItem{{Label: "first prompt", Arg: "e1"}, {Label: "second prompt", Arg: "e3"}}, Current: 1}, nil
			}}}
	m := newTestModel(o, 80, 12)
	enter(m, "/fork")
	golden(t, "fork-picker", m.View())
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	settle(m, cmd)
	if got != "e3" || m.ed.Text() != "second prompt" {
		t.Fatalf("forked %q, editor %q", got, m.ed.Text())
	}
	golden(t, "fork-done", m.View())
}

// A selector longer than pickRows shows a window that follows the selection.
func TestPickWindow(t *testing.T) {
	var items []PickItem
	for i := range 30 {
		items = append(items, PickItem{Label: "model-" + itoa(i), Arg: itoa(i)})
	}
	o := Options{Model: "local/m",
		Host: map[string]func(context.Context, string) (HostResult, error){
			"model": func(context.Context, string) (HostResult, error) { return HostResult{}, nil }},
		Pick: map[string]func() (Picker, error){
			"model": func() (Picker, error) { return Picker{Title: "Select model", Items: items, Current: 25}, nil }}}
	m := newTestModel(o, 80, 24)
	enter(m, "/model")
	golden(t, "pick-window", m.View())
	for range 10 {
		m.Update(tea.KeyMsg{Type: tea.KeyDown})
	}
	if v := m.View(); !strings.Contains(v, "→ model-5") || strings.Contains(v, "model-29") {
		t.Fatalf("the window did not follow the selection:\n%s", v)
	}
}

// Typing in a selector filters it (fuzzy); Enter chooses among the matches, Backspace widens
// the filter again, and no match chooses nothing.
func TestPickFilter(t *testing.T) {
	var got []string
	o := Options{Model: "local/m",
		Host: map[string]func(context.Context, string) (HostResult, error){
			"model": func(_ context.Context, ref string) (HostResult, error) {
				got = append(got, ref)
				return HostResult{}, nil
			}},
		Pick: map[string]func() (Picker, error){
			"model": func() (Picker, error) {
				return Picker{Title: "Select model", Items: []PickItem{{Label: "anthropic/claude-sonnet", Arg: "a"}, {Label: "openai/gpt-5", Arg: "o"}, {Label: "local/qwen", Arg: "l"}}}, nil
			}}}
	m := newTestModel(o, 80, 12)
	enter(m, "/model")
	key(m, "gpt")
	golden(t, "pick-filter", m.View())
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	settle(m, cmd)
	enter(m, "/model")
	key(m, "zzz")
	if !strings.Contains(m.View(), "No matches") {
		t.Fatalf("no-match view:\n%s", m.View())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if m.dialog == nil {
		t.Fatal("Enter with no match closed the selector")
	}
	for range 3 {
		m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	key(m, "down")
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	settle(m, cmd)
	if strings.Join(got, ",") != "o,o" {
		t.Fatalf("chosen %q", got)
	}
}

// `pigo -r` starts with /resume's selector (Options.Start) instead of a prompt.
func TestStartCommand(t *testing.T) {
	o := Options{Model: "local/m", Start: "/resume", Prompt: "not sent",
		Host: map[string]func(context.Context, string) (HostResult, error){
			"resume": func(context.Context, string) (HostResult, error) { return HostResult{}, nil }},
		Pick: map[string]func() (Picker, error){
			"resume": func() (Picker, error) {
				return Picker{Title: "Resume Session (Current Folder)", Items: []PickItem{{Label: "old work · 2 messages", Arg: "/s.jsonl"}}}, nil
			}}}
	m := newTestModel(o, 80, 12)
	settle(m, m.first())
	if m.dialog == nil || m.dialog.title != "Resume Session (Current Folder)" || m.running {
		t.Fatalf("start: dialog %+v running %v", m.dialog, m.running)
	}
}
