package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

func newTestModel(o Options, w, h int) *Model {
	if o.Session == nil {
		o.Session = fake("local/m")
	}
	if o.Cwd == "" {
		o.Cwd, o.Home = "/home/u/proj", "/home/u"
	}
	if o.Version == "" {
		o.Version = "test"
	}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	m := New(o, r)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

func key(m *Model, ks ...string) {
	for _, k := range ks {
		keyCmd(m, k)
	}
}

// keyCmd presses keys and returns the command the chat asked for after the last.
func keyCmd(m *Model, ks ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range ks {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "alt+enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter, Alt: true}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		case "up":
			msg = tea.KeyMsg{Type: tea.KeyUp}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "space":
			msg = tea.KeyMsg{Type: tea.KeySpace}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		_, last = m.Update(msg)
	}
	return last
}

// golden compares got, without its escapes (the layout; styles have their own tests), with
// testdata/<name>.golden (UPDATE_GOLDEN=1 rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	got = ansi.Strip(got)
	p := filepath.Join("testdata", name+".golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1)", err)
	}
	if string(want) != got {
		t.Fatalf("%s differs from the golden view:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func writeRequest() approve.Request {
	preview := toolrun.Preview("notes.txt", []byte("a\nb\n"), []byte("a\nc\n"))
	title := "Model requests write access outside workspace:\n\n  Tool:  Write\n  Path:  /srv/notes.txt\n\n" + preview + "\n\nAllow?"
	return approve.Request{Kind: approve.KindWrite, Tool: "Write", Path: "/srv/notes.txt", Preview: preview, Title: title}
}

// ask opens req's dialog and returns the channel its answer arrives on.
func ask(m *Model, req approve.Request) chan approve.Decision {
	reply := make(chan approve.Decision, 1)
	m.Update(askMsg{req, reply})
	return reply
}

// Each write-dialog answer, through keys, gives the guard the decision the reference names.
func TestWriteDialog(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
		want approve.Decision
	}{
		{"approve", []string{"enter"}, approve.Decision{Choice: approve.Allow}},
		{"block", []string{"down", "enter"}, approve.Decision{Choice: approve.Deny}},
		{"reason", []string{"down", "down", "enter", "no", "space", "thanks", "enter"}, approve.Decision{Choice: approve.DenyReason, Reason: "no thanks"}},
		// Esc in the reason input asks again (reference §1.5); then Block.
		{"reason-cancelled", []string{"3", "x", "esc", "2"}, approve.Decision{Choice: approve.Deny}},
		{"session", []string{"4"}, approve.Decision{Choice: approve.AllowSession}},
		{"dismissed", []string{"esc"}, approve.Decision{Choice: approve.Dismissed}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModel(Options{Session: fake("local/m")}, 80, 24)
			reply := ask(m, writeRequest())
			if c.name == "approve" {
				golden(t, "write-dialog", m.View())
			}
			for _, k := range c.keys {
				settle(m, keyCmd(m, k))
			}
			if c.name == "reason" {
				// the reason step is shown until Enter; check the answer only
			}
			select {
			case r := <-reply:
				if !reflect.DeepEqual(r, c.want) {
					t.Fatalf("got %+v, want %+v", r, c.want)
				}
			default:
				t.Fatal("the dialog did not answer")
			}
			if m.dialog != nil {
				t.Fatal("the dialog stayed open")
			}
		})
	}
}

func TestWriteDialogReasonView(t *testing.T) {
	m := newTestModel(Options{Session: fake("local/m")}, 80, 24)
	ask(m, writeRequest())
	key(m, "3", "not", "space", "there")
	golden(t, "write-reason", m.View())
}

// The bridge is the chat's one approver: a request becomes a dialog message and the
// person's decision comes back to the asking call; an aborted call closes its dialog.
func TestBridgeAsk(t *testing.T) {
	b := NewBridge()
	go func() {
		msg := (<-b.ch).(askMsg)
		msg.reply <- approve.Decision{Choice: approve.AllowSession}
	}()
	if d, err := b.Ask(t.Context(), writeRequest()); err != nil || d.Choice != approve.AllowSession {
		t.Fatalf("answer %+v %v", d, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-b.ch // the dialog opens
		cancel()
	}()
	if d, err := b.Ask(ctx, writeRequest()); err == nil || d.Choice != approve.Dismissed {
		t.Fatalf("aborted: %+v %v", d, err)
	}
	if _, ok := (<-b.ch).(cancelDialogMsg); !ok {
		t.Fatal("the aborted dialog was not closed")
	}
}

func commandRequest() approve.Request {
	return approve.Request{Kind: approve.KindCommand, Tool: "Bash", Command: "git push origin main",
		Approval: sandbox.Approval{Decision: sandbox.Ask, Suggestions: []string{"git push *"}}}
}

// Each escalation answer gives the decision the reference names. Ticked "always allow"
// patterns travel with the answer: the chat saves nothing itself (no I/O in Update); the
// session's approvals save them on the asking tool's goroutine.
func TestCommandDialog(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
		want approve.Decision
	}{
		{"allow", []string{"enter"}, approve.Decision{Choice: approve.Allow}},
		{"sandbox", []string{"2"}, approve.Decision{Choice: approve.RunInSandbox}},
		{"deny", []string{"3"}, approve.Decision{Choice: approve.Deny}},
		{"reason", []string{"4", "risky", "enter"}, approve.Decision{Choice: approve.DenyReason, Reason: "risky"}},
		// Edit approval rules: tick the suggestion, back, Allow once persists it.
		{"rules", []string{"5", "space", "esc", "1"}, approve.Decision{Choice: approve.Allow, Persist: []string{"git push *"}}},
		{"session", []string{"6"}, approve.Decision{Choice: approve.AllowSession}},
		{"dismissed", []string{"esc"}, approve.Decision{Choice: approve.Dismissed}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModel(Options{Session: fake("local/m")}, 80, 24)
			reply := ask(m, commandRequest())
			switch c.name {
			case "allow":
				golden(t, "command-dialog", m.View())
			case "rules":
				key(m, "5", "space")
				golden(t, "command-rules", m.View())
				c.keys = c.keys[2:]
			}
			for _, k := range c.keys {
				settle(m, keyCmd(m, k))
			}
			if r := <-reply; !reflect.DeepEqual(r, c.want) {
				t.Fatalf("got %+v, want %+v", r, c.want)
			}
		})
	}
}

func question(multi bool) approve.Request {
	q := &approve.Question{Title: "Colour: Which colour?", Question: "Which colour?", Header: "Colour",
		Options:  []approve.Option{{Label: "Red", Description: "warm"}, {Label: "Blue", Description: "cold"}, {Label: "Green"}},
		Multiple: multi, Other: "Other", Done: "Done", InputPrompt: "Type your answer"}
	return approve.Request{Kind: approve.KindQuestion, Tool: "AskUserQuestion", Title: q.Title, Question: q}
}

func TestQuestionPicker(t *testing.T) {
	for _, c := range []struct {
		name  string
		multi bool
		keys  []string
		want  []string
	}{
		{"single", false, []string{"down", "enter"}, []string{"Blue"}},
		{"other", false, []string{"4", "teal", "enter"}, []string{"teal"}},
		// An empty free-text answer goes back to the options.
		{"other-empty", false, []string{"4", "enter", "1"}, []string{"Red"}},
		{"unanswered", false, []string{"esc"}, nil},
		{"multi", true, []string{"space", "down", "down", "enter", "5"}, []string{"Red", "Green"}},
		{"multi-none", true, []string{"5"}, nil},
		{"multi-other", true, []string{"space", "4", "teal", "enter"}, []string{"Red", "teal"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModel(Options{Session: fake("local/m")}, 80, 24)
			reply := ask(m, question(c.multi))
			if c.name == "single" || c.name == "multi" {
				golden(t, "question-"+c.name, m.View())
			}
			if c.name == "multi" {
				key(m, c.keys[:4]...)
				golden(t, "question-multi-ticked", m.View())
				c.keys = c.keys[4:]
			}
			for _, k := range c.keys {
				settle(m, keyCmd(m, k))
			}
			if got := <-reply; !reflect.DeepEqual(got.Answers, c.want) {
				t.Fatalf("answer %q, want %q", got.Answers, c.want)
			}
		})
	}
}

// A second dialog waits behind the open one and opens when it is answered.
func TestDialogsQueue(t *testing.T) {
	m := newTestModel(Options{Session: fake("local/m")}, 80, 24)
	r1 := ask(m, writeRequest())
	r2 := ask(m, question(false))
	key(m, "2")
	if (<-r1).Choice != approve.Deny || m.dialog == nil || m.dialog.kind != "question" {
		t.Fatalf("the question did not follow: %+v", m.dialog)
	}
	key(m, "1")
	if got := <-r2; !reflect.DeepEqual(got.Answers, []string{"Red"}) {
		t.Fatalf("answer %q", got.Answers)
	}
}

func ev(e agent.Event) eventMsg { return eventMsg{e} }

func assistant(text, thinking string, u *llm.Usage) *llm.Message {
	m := &llm.Message{Role: llm.RoleAssistant, Usage: u}
	if thinking != "" {
		m.Content = append(m.Content, llm.Content{Type: llm.TypeThinking, Thinking: thinking})
	}
	if text != "" {
		m.Content = append(m.Content, llm.TextBlock(text))
	}
	return m
}

// A run's events draw the transcript: the user message, collapsed thinking, Markdown once
// the message ends, a tool card with its diff, the todo widget and the footer's usage.
func TestTranscriptView(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		f := fake("local/m")
		f.state = app.State{Model: "local/m", Thinking: "medium", ContextWindow: 200000}
		m := newTestModel(Options{Session: f}, size[0], size[1])
		m.running = true
		user := &llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("fix the bug")}}
		m.Update(ev(agent.Event{Type: agent.EventMessageStart, Message: user}))
		u := &llm.Usage{Input: 1200, Output: 80, TotalTokens: 1280, Cost: llm.Cost{Total: 0.0042}}
		a := assistant("# Plan\n\nI will **edit** `main.go`:\n\n- read it\n- fix it\n\n```go\nfunc main() {}\n```", "let me think\nabout it", u)
		m.Update(ev(agent.Event{Type: agent.EventMessageStart, Message: assistant("", "", nil)}))
		m.Update(ev(agent.Event{Type: agent.EventMessageUpdate, Message: assistant("# Pl", "let me", nil)}))
		if !strings.Contains(m.View(), "Pl") {
			t.Fatalf("the streaming text is not shown:\n%s", m.View())
		}
		m.Update(ev(agent.Event{Type: agent.EventMessageEnd, Message: a}))
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: "c1", ToolName: "Edit", Args: json.RawMessage(`{"file_path":"main.go","old_string":"a","new_string":"b"}`)}))
		details := json.RawMessage(`{"diff":"-a\n+b"}`)
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionEnd, ToolCallID: "c1", ToolName: "Edit",
			Result: &agent.Result{Content: []llm.Content{llm.TextBlock("ok")}, Details: details}}))
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: "c2", ToolName: "TodoWrite", Args: json.RawMessage(`{}`)}))
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionEnd, ToolCallID: "c2", ToolName: "TodoWrite",
			Result: &agent.Result{Content: []llm.Content{llm.TextBlock("Todos have been modified")},
				Details: json.RawMessage(`{"todos":[{"content":"Fix","status":"completed","activeForm":"Fixing"},{"content":"Test","status":"in_progress","activeForm":"Testing"}]}`)}}))
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: "c3", ToolName: "Bash", Args: json.RawMessage(`{"command":"go test ./..."}`)}))
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionUpdate, ToolCallID: "c3", ToolName: "Bash",
			Result: &agent.Result{Content: []llm.Content{llm.TextBlock("ok  pkg/a\nok  pkg/b")}}}))
		m.Update(ev(agent.Event{Type: agent.EventQueueUpdate, Steering: []string{"also lint"}}))
		golden(t, fmt.Sprintf("transcript-%dx%d", size[0], size[1]), m.View())
		if got := strings.Join(m.lines(m.items[2], 80), "\n"); !strings.Contains(got, "let me think") {
			t.Fatalf("thinking is not shown (pi shows it unless hideThinkingBlock):\n%s", got)
		}
		m.Update(tea.KeyMsg{Type: tea.KeyCtrlT})
		if got := strings.Join(m.lines(m.items[2], 80), "\n"); strings.Contains(got, "let me think") || !strings.Contains(got, "Thinking...") {
			t.Fatalf("Ctrl+T does not hide the thinking:\n%s", got)
		}
	}
}

func TestSlashCompletion(t *testing.T) {
	cmds := func(q string) []app.Completion {
		all := []app.Completion{{Name: "model", Description: "Select model", Source: "builtin"}, {Name: "review", Tag: "[p]", Description: "Review the diff", Source: "prompt", Runs: true}, {Name: "skill:lint", Tag: "[u]", Description: "Lint", Source: "skill", Runs: true}}
		var out []app.Completion
		for _, c := range all {
			if strings.Contains(c.Name, q) {
				out = append(out, c)
			}
		}
		return out
	}
	f := fake("local/m")
	f.complete = cmds
	m := newTestModel(Options{Session: f}, 80, 24)
	key(m, "/")
	golden(t, "slash-menu", m.View())
	key(m, "r", "e")
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	if got := m.ed.Text(); got != "/review " {
		t.Fatalf("completion gave %q", got)
	}
}

// Session commands run off the UI goroutine: /name's argument reaches the session's command
// and its text is shown when it is done; `!cmd` and `!!cmd` go to UserBash.
func TestHostCommands(t *testing.T) {
	var got []string
	f := fake("local/m", cmd("name", func(arg string) (app.Result, error) {
		got = append(got, "name="+arg)
		return app.Result{Text: "done name"}, nil
	}))
	f.bash = func(command string, exclude bool) (app.Result, error) {
		name := "!"
		if exclude {
			name = "!!"
		}
		got = append(got, name+"="+command)
		return app.Result{Text: "done " + name}, nil
	}
	m := newTestModel(Options{Session: f}, 80, 24)
	for _, line := range []string{"/name my work", "!ls -la", "!!pwd"} {
		key(m, line)
		_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
		if !m.running {
			t.Fatalf("%s: not shown as working", line)
		}
		for _, msg := range runBatch(cmd) {
			m.Update(msg)
		}
		if m.running {
			t.Fatalf("%s: still working", line)
		}
	}
	want := []string{"name=my work", "!=ls -la", "!!=pwd"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("handlers got %q, want %q", got, want)
	}
	if v := m.View(); !strings.Contains(v, "done name") || !strings.Contains(v, "done !!") {
		t.Fatalf("results not shown:\n%s", v)
	}
}

// runBatch runs a command and the commands of a batch, skipping ticks.
func runBatch(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			if c == nil {
				continue
			}
			m := c()
			if _, isTick := m.(tickMsg); isTick {
				continue
			}
			out = append(out, m)
		}
		return out
	}
	return []tea.Msg{msg}
}

// While the agent works, Enter steers and Alt+Enter queues a follow-up (pi's queues); the
// queue is shown from the agent's queue_update; Esc aborts the run.
func TestSteerFollowUpAbort(t *testing.T) {
	b := NewBridge()
	f := fake("local/m")
	f.bridge = b
	m := newTestModel(Options{Session: f, Bridge: b}, 80, 24)
	m.running = true
	key(m, "use tabs", "enter")
	m.Update(<-b.ch)
	key(m, "then lint", "alt+enter")
	m.Update(<-b.ch)
	if !reflect.DeepEqual(m.steering, []string{"use tabs"}) || !reflect.DeepEqual(m.followUp, []string{"then lint"}) {
		t.Fatalf("steering %q, follow-up %q", m.steering, m.followUp)
	}
	golden(t, "queues", m.View())
	key(m, "esc")
	if !f.aborted {
		t.Fatal("Esc did not abort the run")
	}
}

// While the agent works the spinner asks for the next frame (every 100 ms, so a streaming
// tool's output is drawn at least that often); idle, it stops.
func TestTickOnlyWhileRunning(t *testing.T) {
	m := newTestModel(Options{Session: fake("local/m")}, 80, 24)
	m.running = true
	if _, cmd := m.Update(tickMsg{}); cmd == nil || m.frame != 1 {
		t.Fatalf("no next frame while running (frame %d)", m.frame)
	}
	m.running = false
	if _, cmd := m.Update(tickMsg{}); cmd != nil {
		t.Fatal("ticks go on while idle")
	}
}

// An aborted call closes its own dialog only: when the question of a call that was aborted is
// still waiting behind another one (two tool calls asking at once), the open dialog stays and
// the aborted one never opens.
func TestCancelClosesOnlyItsDialog(t *testing.T) {
	m := newTestModel(Options{Session: fake("local/m")}, 80, 24)
	first := ask(m, writeRequest())
	second := ask(m, commandRequest())
	m.Update(cancelDialogMsg{second})
	if m.dialog == nil || m.dialog.ask.reply != first {
		t.Fatal("cancelling the waiting question closed the open one")
	}
	key(m, "enter")
	if m.dialog != nil {
		t.Fatalf("the cancelled question opened after the first was answered: %q", m.dialog.title)
	}
	if d := <-first; d.Choice != approve.Allow {
		t.Fatalf("first answer %+v", d)
	}
	third := ask(m, writeRequest())
	m.Update(cancelDialogMsg{third})
	if m.dialog != nil {
		t.Fatal("the aborted open dialog stayed")
	}
}

// TestToolCardPerCallWhenIDsRepeat: providers that number their calls per reply send call_0
// in every turn; each call still gets its own card with its own title and result (pi shows
// all three), where the later calls used to overwrite the first card.
func TestToolCardPerCallWhenIDsRepeat(t *testing.T) {
	m := newTestModel(Options{Session: fake("local/m")}, 100, 40)
	m.running = true
	for _, c := range []struct{ tool, args, out string }{
		{"read", `{"path":"main.go"}`, "package main"},
		{"bash", `{"command":"ls"}`, "main.go"},
		{"edit", `{"path":"main.go","edits":[]}`, "Successfully replaced 1 block(s) in main.go."},
	} {
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: "call_0", ToolName: c.tool, Args: json.RawMessage(c.args)}))
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionEnd, ToolCallID: "call_0", ToolName: c.tool,
			Result: &agent.Result{Content: []llm.Content{llm.TextBlock(c.out)}}}))
	}
	var cards []*item
	for _, it := range m.items {
		if it.kind == kindTool {
			cards = append(cards, it)
		}
	}
	if len(cards) != 3 {
		t.Fatalf("%d tool cards, want 3:\n%s", len(cards), m.View())
	}
	for i, want := range []string{"read", "bash", "edit"} {
		if cards[i].tool != want || !cards[i].done {
			t.Errorf("card %d: %s (done %v), want %s done", i, cards[i].tool, cards[i].done, want)
		}
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "$ ls") || !strings.Contains(v, "edit main.go") {
		t.Errorf("the bash and edit cards are not shown:\n%s", v)
	}
}

// TestReadCardCollapsedAsPi: pi's read card shows only its title until the tool output is
// expanded (Ctrl+O), then the whole file; a failed read shows its error either way.
func TestReadCardCollapsedAsPi(t *testing.T) {
	m := newTestModel(Options{Session: fake("local/m")}, 100, 40)
	m.running = true
	for _, c := range []struct {
		id, path, out string
		isErr         bool
	}{{"c1", "main.go", "package main\n\nfunc main() {}", false}, {"c2", "gone.go", "ENOENT: no such file or directory", true}} {
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: c.id, ToolName: "read", Args: json.RawMessage(`{"path":"` + c.path + `"}`)}))
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionEnd, ToolCallID: c.id, ToolName: "read", IsError: c.isErr,
			Result: &agent.Result{Content: []llm.Content{llm.TextBlock(c.out)}}}))
	}
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "read main.go") || strings.Contains(v, "package main") || !strings.Contains(v, "ENOENT") {
		t.Fatalf("collapsed: the read's title only, the failed read's error:\n%s", v)
	}
	ctrl(m, tea.KeyCtrlO)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "package main") || !strings.Contains(v, "func main() {}") {
		t.Fatalf("expanded: the whole file:\n%s", v)
	}
}
