package chat

import (
	"encoding/json"
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/llm"
)

// longChat is a chat with n finished messages (a third of them tool cards) and one
// streaming answer.
func longChat(n int) *Model {
	m := newTestModel(Options{Session: &fakeSession{state: app.State{Model: "local/m", ContextWindow: 200000}}}, 160, 45)
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			m.Update(ev(agent.Event{Type: agent.EventMessageStart, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(fmt.Sprintf("question %d", i))}}}))
		case 1:
			a := assistant(fmt.Sprintf("## Answer %d\n\nSome **text** with `code` and a list:\n\n- one\n- two", i), "thinking", &llm.Usage{Input: 10, Output: 5})
			m.Update(ev(agent.Event{Type: agent.EventMessageStart, Message: a}))
			m.Update(ev(agent.Event{Type: agent.EventMessageEnd, Message: a}))
		case 2:
			id := fmt.Sprint("c", i)
			m.Update(ev(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: id, ToolName: "Read", Args: json.RawMessage(`{"file_path":"a.go"}`)}))
			m.Update(ev(agent.Event{Type: agent.EventToolExecutionEnd, ToolCallID: id, ToolName: "Read", Result: &agent.Result{Content: []llm.Content{llm.TextBlock("line\nline\nline")}}}))
		}
	}
	m.View()
	m.running = true
	m.Update(ev(agent.Event{Type: agent.EventMessageStart, Message: assistant("", "", nil)}))
	return m
}

// BenchmarkKeyWithLongTranscript is one keystroke (Update and View) with 1,000 messages in
// the transcript: the input-latency budget is 16 ms.
func BenchmarkKeyWithLongTranscript(b *testing.B) {
	m := longChat(1000)
	k := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(k)
		_ = m.View()
	}
}

// BenchmarkStreamDeltaWithLongTranscript is one streamed text delta (Update and View) with
// 1,000 messages in the transcript.
func BenchmarkStreamDeltaWithLongTranscript(b *testing.B) {
	m := longChat(1000)
	text := ""
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text += "word "
		m.Update(ev(agent.Event{Type: agent.EventMessageUpdate, Message: assistant(text[max(0, len(text)-2000):], "", nil)}))
		_ = m.View()
	}
}

// BenchmarkToolProgressWithLongTranscript is one progress update of a streaming tool.
func BenchmarkToolProgressWithLongTranscript(b *testing.B) {
	m := longChat(1000)
	m.Update(ev(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: "run", ToolName: "Bash", Args: json.RawMessage(`{"command":"make"}`)}))
	out := ""
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out += fmt.Sprintf("line %d\n", i)
		if len(out) > 50000 {
			out = out[len(out)-50000:]
		}
		m.Update(ev(agent.Event{Type: agent.EventToolExecutionUpdate, ToolCallID: "run", ToolName: "Bash", Result: &agent.Result{Content: []llm.Content{llm.TextBlock(out)}}}))
		_ = m.View()
	}
}
