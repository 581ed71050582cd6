package chat

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/app"
)

func ctrl(m *Model, t tea.KeyType) tea.Cmd {
	_, cmd := m.Update(tea.KeyMsg{Type: t})
	return cmd
}

// Ctrl+C clears the editor; a second within 500 ms quits. Ctrl+D quits only on an empty
// editor.
func TestClearAndExitKeys(t *testing.T) {
	m := newTestModel(Options{}, 80, 24)
	key(m, "draft")
	if cmd := ctrl(m, tea.KeyCtrlC); cmd != nil || m.quitting || m.ed.Text() != "" {
		t.Fatalf("first Ctrl+C: quit=%v text=%q", m.quitting, m.ed.Text())
	}
	m.lastCtrlC = time.Now().Add(-time.Second)
	ctrl(m, tea.KeyCtrlC)
	if m.quitting {
		t.Fatal("a Ctrl+C a second after the last one quit")
	}
	ctrl(m, tea.KeyCtrlC)
	if !m.quitting {
		t.Fatal("a double Ctrl+C did not quit")
	}
	m = newTestModel(Options{}, 80, 24)
	key(m, "ab")
	ctrl(m, tea.KeyLeft)
	ctrl(m, tea.KeyCtrlD)
	if m.quitting || m.ed.Text() != "a" {
		t.Fatalf("Ctrl+D with text: quit=%v text=%q", m.quitting, m.ed.Text())
	}
	ctrl(m, tea.KeyCtrlU)
	ctrl(m, tea.KeyCtrlD)
	if !m.quitting {
		t.Fatal("Ctrl+D on an empty editor did not quit")
	}
}

// A double Escape on an empty editor opens /tree (doubleEscapeAction), or /fork, or nothing.
func TestDoubleEscape(t *testing.T) {
	for _, c := range []struct{ setting, want string }{{"", "tree"}, {"fork", "fork"}, {"none", ""}} {
		var got string
		host := func(name string) app.Command {
			return cmd(name, func(string) (app.Result, error) { got = name; return app.Result{}, nil })
		}
		m := newTestModel(Options{Session: fake("local/m", host("tree"), host("fork")), UI: UI{DoubleEscape: c.setting}}, 80, 24)
		settle(m, ctrl(m, tea.KeyEsc))
		settle(m, ctrl(m, tea.KeyEsc))
		if got != c.want {
			t.Errorf("doubleEscapeAction %q ran %q", c.setting, got)
		}
	}
}

// Shift+Tab cycles the thinking level through the host; a model without thinking says so.
func TestThinkingCycle(t *testing.T) {
	var got []string
	f := fake("local/m")
	f.state = app.State{Model: "local/m", Reasoning: true, Thinking: "medium"}
	f.cmds["thinking"] = cmd("thinking", func(l string) (app.Result, error) {
		got = append(got, l)
		f.state.Thinking = l
		return app.Result{}, nil
	})
	m := newTestModel(Options{Session: f}, 80, 24)
	settle(m, ctrl(m, tea.KeyShiftTab))
	settle(m, ctrl(m, tea.KeyShiftTab))
	if strings.Join(got, ",") != "high,xhigh" || m.state.Thinking != "xhigh" {
		t.Fatalf("cycled %v, now %q", got, m.state.Thinking)
	}
	if !strings.Contains(m.View(), "m • xhigh") {
		t.Fatalf("the footer does not show the level:\n%s", m.View())
	}
	m2 := newTestModel(Options{}, 80, 24)
	ctrl(m2, tea.KeyShiftTab)
	if !strings.Contains(m2.View(), "does not support thinking") {
		t.Fatal("no note for a model without thinking")
	}
}

// Alt+Up takes the queued messages back into the editor.
func TestDequeue(t *testing.T) {
	b := NewBridge()
	f := fake("local/m")
	f.bridge = b
	m := newTestModel(Options{Session: f, Bridge: b}, 80, 24)
	m.running = true
	key(m, "one", "enter")
	m.Update(<-b.ch)
	key(m, "two", "alt+enter")
	m.Update(<-b.ch)
	m.Update(tea.KeyMsg{Type: tea.KeyUp, Alt: true})
	if m.ed.Text() != "one\ntwo" || len(m.steering)+len(m.followUp) != 0 {
		t.Fatalf("editor %q, queues %v %v", m.ed.Text(), m.steering, m.followUp)
	}
}

// Ctrl+O expands tool output and the header; Ctrl+T hides and shows thinking.
func TestExpandKeys(t *testing.T) {
	m := newTestModel(Options{}, 80, 40)
	if strings.Contains(m.View(), "to cycle thinking level") {
		t.Fatal("the header starts expanded")
	}
	ctrl(m, tea.KeyCtrlO)
	if !strings.Contains(m.View(), "to cycle thinking level") {
		t.Fatalf("Ctrl+O did not expand the header:\n%s", m.View())
	}
}

// The mouse wheel scrolls the fullscreen transcript (Alt: five times as far) and back down.
func TestMouseWheel(t *testing.T) {
	m := newTestModel(Options{}, 80, 20)
	for i := 0; i < 30; i++ {
		m.info("line " + itoa(i))
	}
	m.View()
	m.Update(tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
	if m.scroll != 3 || !strings.Contains(m.View(), "Jump to latest message") {
		t.Fatalf("wheel up: scroll %d", m.scroll)
	}
	m.Update(tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp, Alt: true})
	if m.scroll != 18 {
		t.Fatalf("alt+wheel: scroll %d", m.scroll)
	}
	for i := 0; i < 10; i++ {
		m.Update(tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown})
	}
	if m.scroll != 0 || strings.Contains(m.View(), "Jump to latest message") {
		t.Fatalf("wheel down: scroll %d", m.scroll)
	}
}

// A command's questions while it runs (a sign-in): a choice, a text, a secret never shown;
// Escape cancels.
func TestInputDialogs(t *testing.T) {
	b := NewBridge()
	m := newTestModel(Options{Bridge: b}, 80, 24)
	ask := func(r InputRequest) chan inputReply {
		reply := make(chan inputReply, 1)
		m.Update(inputMsg{r, reply})
		return reply
	}
	r := ask(InputRequest{Kind: "select", Message: "Sign in to?", Options: []InputOption{{"a", "Anthropic"}, {"o", "OpenAI"}}})
	key(m, "down", "enter")
	if a := <-r; a.text != "o" || a.err != nil {
		t.Fatalf("select: %+v", a)
	}
	r = ask(InputRequest{Kind: "secret", Message: "Enter API key"})
	key(m, "sk-secret")
	if v := m.View(); strings.Contains(v, "sk-secret") || !strings.Contains(v, "•••••••••") {
		t.Fatalf("the secret shows:\n%s", v)
	}
	key(m, "enter")
	if a := <-r; a.text != "sk-secret" {
		t.Fatalf("secret: %+v", a)
	}
	r = ask(InputRequest{Kind: "text", Message: "Paste the redirect URL"})
	key(m, "esc")
	if a := <-r; a.err != ErrInputCancelled {
		t.Fatalf("escape: %+v", a)
	}
	m.Update(showMsg{"Open https://example.com/auth"})
	if !strings.Contains(m.View(), "Open https://example.com/auth") {
		t.Fatal("Show is not drawn")
	}
}

// Status lines replace each other while they are the last entry, as pi's showStatus does:
// three Ctrl+O presses leave one "Tool output" line; after another entry a new one is added.
func TestStatusReplaces(t *testing.T) {
	m := newTestModel(Options{}, 80, 30)
	for i := 0; i < 3; i++ {
		ctrl(m, tea.KeyCtrlO)
	}
	v := m.View()
	if n := strings.Count(v, "Tool output:"); n != 1 || !strings.Contains(v, "Tool output: expanded") {
		t.Fatalf("%d status lines:\n%s", n, v)
	}
	m.info("something else")
	ctrl(m, tea.KeyCtrlT)
	ctrl(m, tea.KeyCtrlO)
	v = m.View()
	if strings.Count(v, "Tool output:") != 2 || strings.Contains(v, "Thinking blocks:") {
		t.Fatalf("statuses after another entry:\n%s", v)
	}
}
