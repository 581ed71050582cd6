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
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools"
)

func newTestModel(o Options, w, h int) *Model {
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

// keyCmd presses one key and returns the command the chat asked for.
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

func writeRequest() toolrun.WriteRequest {
	preview := toolrun.Preview("notes.txt", []byte("a\nb\n"), []byte("a\nc\n"))
	title := "Model requests write access outside workspace:\n\n  Tool:  Write\n  Path:  /srv/notes.txt\n\n" + preview + "\n\nAllow?"
	return toolrun.WriteRequest{Tool: "Write", Path: "/srv/notes.txt", Preview: preview, Title: title}
}

// Each write-dialog answer, through keys, gives the guard the decision the reference names.
func TestWriteDialog(t *testing.T) {
	for _, c := range []struct {
		name    string
		keys    []string
		want    toolrun.WriteDecision
		session bool
	}{
		{"approve", []string{"enter"}, toolrun.WriteDecision{Choice: toolrun.WriteApproveOnce}, false},
		{"block", []string{"down", "enter"}, toolrun.WriteDecision{Choice: toolrun.WriteBlock}, false},
		{"reason", []string{"down", "down", "enter", "no", "space", "thanks", "enter"}, toolrun.WriteDecision{Choice: toolrun.WriteBlockWithReason, Reason: "no thanks"}, false},
		// Esc in the reason input asks again (reference §1.5); then Block.
		{"reason-cancelled", []string{"3", "x", "esc", "2"}, toolrun.WriteDecision{Choice: toolrun.WriteBlock}, false},
		{"session", []string{"4"}, toolrun.WriteDecision{Choice: toolrun.WriteApproveOnce}, true},
		{"dismissed", []string{"esc"}, toolrun.WriteDecision{Choice: toolrun.WriteDismissed}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModel(Options{Model: "local/m"}, 80, 24)
			reply := make(chan writeReply, 1)
			m.Update(writeAskMsg{writeRequest(), reply})
			if c.name == "approve" {
				golden(t, "write-dialog", m.View())
			}
			key(m, c.keys...)
			if c.name == "reason" {
				// the reason step is shown until Enter; check the answer only
			}
			select {
			case r := <-reply:
				if !reflect.DeepEqual(r.d, c.want) || r.session != c.session {
					t.Fatalf("got %+v session=%v, want %+v session=%v", r.d, r.session, c.want, c.session)
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
	m := newTestModel(Options{Model: "local/m"}, 80, 24)
	m.Update(writeAskMsg{writeRequest(), make(chan writeReply, 1)})
	key(m, "3", "not", "space", "there")
	golden(t, "write-reason", m.View())
}

// "Approve for this session" sticks for the path (and only it) without asking again.
func TestBridgeSessionScope(t *testing.T) {
	b := NewBridge()
	go func() {
		msg := (<-b.ch).(writeAskMsg)
		msg.reply <- writeReply{d: toolrun.WriteDecision{Choice: toolrun.WriteApproveOnce}, session: true}
	}()
	req := writeRequest()
	if d, _ := b.ApproveWrite(t.Context(), req); d.Choice != toolrun.WriteApproveOnce {
		t.Fatalf("first answer %+v", d)
	}
	if d, _ := b.ApproveWrite(t.Context(), req); d.Choice != toolrun.WriteApproveOnce {
		t.Fatalf("second answer %+v", d)
	}
	select {
	case msg := <-b.ch:
		t.Fatalf("asked again: %#v", msg)
	default:
	}
	other := req
	other.Path = "/srv/other.txt"
	go func() {
		msg := (<-b.ch).(writeAskMsg)
		msg.reply <- writeReply{d: toolrun.WriteDecision{Choice: toolrun.WriteBlock}}
	}()
	if d, _ := b.ApproveWrite(t.Context(), other); d.Choice != toolrun.WriteBlock {
		t.Fatalf("another path was not asked: %+v", d)
	}
}

func commandRequest() toolrun.CommandRequest {
	return toolrun.CommandRequest{Tool: "Bash", Command: "git push origin main",
		Approval: sandbox.Approval{Decision: sandbox.Ask, Suggestions: []string{"git push *"}}}
}

func TestCommandDialog(t *testing.T) {
	for _, c := range []struct {
		name    string
		keys    []string
		want    toolrun.CommandDecision
		session bool
	}{
		{"allow", []string{"enter"}, toolrun.CommandDecision{Choice: toolrun.CommandAllowOnce}, false},
		{"sandbox", []string{"2"}, toolrun.CommandDecision{Choice: toolrun.CommandRunInSandbox}, false},
		{"deny", []string{"3"}, toolrun.CommandDecision{Choice: toolrun.CommandDeny}, false},
		{"reason", []string{"4", "risky", "enter"}, toolrun.CommandDecision{Choice: toolrun.CommandDenyWithReason, Reason: "risky"}, false},
		// Edit approval rules: tick the suggestion, back, Allow once persists it.
		{"rules", []string{"5", "space", "esc", "1"}, toolrun.CommandDecision{Choice: toolrun.CommandAllowOnce, Persist: []string{"git push *"}}, false},
		{"session", []string{"6"}, toolrun.CommandDecision{Choice: toolrun.CommandAllowOnce}, true},
		{"dismissed", []string{"esc"}, toolrun.CommandDecision{Choice: toolrun.CommandDismissed}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var saved []string
			m := newTestModel(Options{Model: "local/m", Persist: func(p []string) error { saved = p; return nil }}, 80, 24)
			reply := make(chan commandReply, 1)
			m.Update(commandAskMsg{commandRequest(), reply})
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
			r := <-reply
			if !reflect.DeepEqual(r.d, c.want) || r.session != c.session {
				t.Fatalf("got %+v session=%v, want %+v", r.d, r.session, c.want)
			}
			if c.name == "rules" && !reflect.DeepEqual(saved, []string{"git push *"}) {
				t.Fatalf("persisted %q", saved)
			}
			if c.name != "rules" && saved != nil {
				t.Fatalf("persisted %q without a tick", saved)
			}
		})
	}
}

func question(multi bool) tools.Question {
	return tools.Question{Title: "Colour: Which colour?", Question: "Which colour?", Header: "Colour",
		Options:  []tools.QuestionOption{{Label: "Red", Description: "warm"}, {Label: "Blue", Description: "cold"}, {Label: "Green"}},
		Multiple: multi, Other: "Other", Done: "Done", InputPrompt: "Type your answer"}
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
			m := newTestModel(Options{Model: "local/m"}, 80, 24)
			reply := make(chan []string, 1)
			m.Update(questionMsg{question(c.multi), reply})
			if c.name == "single" || c.name == "multi" {
				golden(t, "question-"+c.name, m.View())
			}
			if c.name == "multi" {
				key(m, c.keys[:4]...)
				golden(t, "question-multi-ticked", m.View())
				c.keys = c.keys[4:]
			}
			key(m, c.keys...)
			if got := <-reply; !reflect.DeepEqual(got, c.want) {
				t.Fatalf("answer %q, want %q", got, c.want)
			}
		})
	}
}

// A second dialog waits behind the open one and opens when it is answered.
func TestDialogsQueue(t *testing.T) {
	m := newTestModel(Options{Model: "local/m"}, 80, 24)
	r1, r2 := make(chan writeReply, 1), make(chan []string, 1)
	m.Update(writeAskMsg{writeRequest(), r1})
	m.Update(questionMsg{question(false), r2})
	key(m, "2")
	if (<-r1).d.Choice != toolrun.WriteBlock || m.dialog == nil || m.dialog.kind != "question" {
		t.Fatalf("the question did not follow: %+v", m.dialog)
	}
	key(m, "1")
	if got := <-r2; !reflect.DeepEqual(got, []string{"Red"}) {
		t.Fatalf("answer %q", got)
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
	todo := func(tool string, d json.RawMessage) []string { return tools.CCTodoWidget(d) }
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		m := newTestModel(Options{Model: "local/m", Thinking: "medium", ContextWindow: 200000, Todo: todo}, size[0], size[1])
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
	cmds := func(q string) []Completion {
		all := []Completion{{Name: "model", Description: "Select model", Builtin: true}, {Name: "review", Tag: "[p]", Description: "Review the diff"}, {Name: "skill:lint", Tag: "[u]", Description: "Lint"}}
		var out []Completion
		for _, c := range all {
			if strings.Contains(c.Name, q) {
				out = append(out, c)
			}
		}
		return out
	}
	expand := func(context.Context, string, io.Writer) (string, bool, error) { return "", false, nil }
	m := newTestModel(Options{Model: "local/m", Commands: cmds, Expand: expand}, 80, 24)
	key(m, "/")
	golden(t, "slash-menu", m.View())
	key(m, "r", "e")
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	if got := m.ed.Text(); got != "/review " {
		t.Fatalf("completion gave %q", got)
	}
}

// Host commands run off the UI goroutine: /name's argument reaches the command line's
// handler and its text is shown when it is done; `!cmd` goes to the "!" handler.
func TestHostCommands(t *testing.T) {
	var got []string
	host := func(name string) func(ctx context.Context, arg string) (HostResult, error) {
		return func(_ context.Context, arg string) (HostResult, error) {
			got = append(got, name+"="+arg)
			return HostResult{Text: "done " + name}, nil
		}
	}
	m := newTestModel(Options{Model: "local/m", Host: map[string]func(context.Context, string) (HostResult, error){
		"name": host("name"), "!": host("!"), "!!": host("!!")}}, 80, 24)
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
	ag := agent.New(agent.Config{Emit: b.Emit})
	m := newTestModel(Options{Model: "local/m", Agent: ag, Bridge: b}, 80, 24)
	m.running = true
	aborted := false
	b.setCancel(func() { aborted = true })
	key(m, "use tabs", "enter")
	m.Update(<-b.ch)
	key(m, "then lint", "alt+enter")
	m.Update(<-b.ch)
	if !reflect.DeepEqual(m.steering, []string{"use tabs"}) || !reflect.DeepEqual(m.followUp, []string{"then lint"}) {
		t.Fatalf("steering %q, follow-up %q", m.steering, m.followUp)
	}
	golden(t, "queues", m.View())
	key(m, "esc")
	if !aborted {
		t.Fatal("Esc did not abort the run")
	}
}

// While the agent works the spinner asks for the next frame (every 100 ms, so a streaming
// tool's output is drawn at least that often); idle, it stops.
func TestTickOnlyWhileRunning(t *testing.T) {
	m := newTestModel(Options{Model: "local/m"}, 80, 24)
	m.running = true
	if _, cmd := m.Update(tickMsg{}); cmd == nil || m.frame != 1 {
		t.Fatalf("no next frame while running (frame %d)", m.frame)
	}
	m.running = false
	if _, cmd := m.Update(tickMsg{}); cmd != nil {
		t.Fatal("ticks go on while idle")
	}
}
