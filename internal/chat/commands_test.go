package chat

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/app"
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
	f := fake("local/m")
	f.state = app.State{Model: "local/m", ContextWindow: 1000, Thinking: "high"}
	f.cmds["model"] = withPick(cmd("model", func(ref string) (app.Result, error) {
		got = append(got, ref)
		f.state = app.State{Model: ref, ContextWindow: 2000, Thinking: "off"}
		return app.Result{Text: "Model: " + ref}, nil
	}), func() (app.Picker, error) {
		return app.Picker{Title: "Select model", Items: []app.PickItem{{Label: "local/m ✓", Arg: "local/m"}, {Label: "anthropic/claude-x", Arg: "anthropic/claude-x"}}}, nil
	})
	f.cmds["model"] = interactive(f.cmds["model"])
	m := newTestModel(Options{Session: f}, 80, 12)
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
	if m.state.Model != "local/m" || m.state.ContextWindow != 2000 || m.state.Thinking != "off" {
		t.Fatalf("footer model %q window %d", m.state.Model, m.state.ContextWindow)
	}
}

// An empty selector says so instead of opening.
func TestPickEmpty(t *testing.T) {
	o := Options{Session: fake("local/m", withPick(cmd("resume", noop),
		func() (app.Picker, error) {
			return app.Picker{Title: "Resume session", Empty: "No sessions found"}, nil
		}))}
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
	o := Options{Session: fake("local/m", withPick(cmd("fork", func(id string) (app.Result, error) {
		got = id
		return app.Result{Text: "Forked to new session", Input: "second prompt"}, nil
	}), func() (app.Picker, error) {
		return app.Picker{Title: "Fork from which message?", Items: []app.PickItem{{Label: "first prompt", Arg: "e1"}, {Label: "second prompt", Arg: "e3"}}, Current: 1}, nil
	}))}
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
	var items []app.PickItem
	for i := range 30 {
		items = append(items, app.PickItem{Label: "model-" + itoa(i), Arg: itoa(i)})
	}
	o := Options{Session: fake("local/m", withPick(cmd("model", noop),
		func() (app.Picker, error) { return app.Picker{Title: "Select model", Items: items, Current: 25}, nil }))}
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
	o := Options{Session: fake("local/m", withPick(cmd("model", func(ref string) (app.Result, error) {
		got = append(got, ref)
		return app.Result{}, nil
	}), func() (app.Picker, error) {
		return app.Picker{Title: "Select model", Items: []app.PickItem{{Label: "anthropic/claude-sonnet", Arg: "a"}, {Label: "openai/gpt-5", Arg: "o"}, {Label: "local/qwen", Arg: "l"}}}, nil
	}))}
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
	o := Options{Start: "/resume", Prompt: "not sent", Session: fake("local/m", withPick(cmd("resume", noop), func() (app.Picker, error) {
		return app.Picker{Title: "Resume Session (Current Folder)", Items: []app.PickItem{{Label: "old work · 2 messages", Arg: "/s.jsonl"}}}, nil
	}))}
	m := newTestModel(o, 80, 12)
	settle(m, m.first())
	if m.dialog == nil || m.dialog.title != "Resume Session (Current Folder)" || m.running {
		t.Fatalf("start: dialog %+v running %v", m.dialog, m.running)
	}
}

func noop(string) (app.Result, error) { return app.Result{}, nil }

func interactive(c app.Command) app.Command { c.Interactive = true; return c }
