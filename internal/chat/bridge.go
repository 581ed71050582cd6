package chat

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/approve"
)

// Bridge carries everything that happens off the UI goroutine into the chat as tea.Msgs: the
// agent's events, the session's notices, the end of a run, and the dialogs a tool call waits
// on. It is the session's app.Frontend and its approve.Approver (the chat's one method for
// every question a person answers); a dialog blocks only the tool goroutine that asked, never
// the UI. The "for this session" memory and saving "always allow" rules are the session's
// approvals' (package approve), not the chat's.
type Bridge struct {
	ch chan tea.Msg
}

// NewBridge returns a bridge with room for a burst of events.
func NewBridge() *Bridge {
	return &Bridge{ch: make(chan tea.Msg, 4096)}
}

// Event is the agent's event sink.
func (b *Bridge) Event(e agent.Event) { b.ch <- eventMsg{e} }

// Notice shows a line the session reports (a saved rule, a warning).
func (b *Bridge) Notice(n app.Notice) { b.ch <- noticeMsg{n} }

// listen waits for the next message from the bridge.
func (b *Bridge) listen() tea.Cmd {
	return func() tea.Msg { return <-b.ch }
}

// askMsg opens the dialog of one request.
type askMsg struct {
	req   approve.Request
	reply chan approve.Decision
}

// noticeMsg is one session notice.
type noticeMsg struct{ n app.Notice }

// cancelDialogMsg closes the dialog whose call was aborted; reply is that call's reply channel.
type cancelDialogMsg struct{ reply any }

// asks reports whether msg is the question answered on reply.
func asks(msg tea.Msg, reply any) bool {
	switch v := msg.(type) {
	case askMsg:
		return any(v.reply) == reply
	case inputMsg:
		return any(v.reply) == reply
	}
	return false
}

// asks reports whether d is the dialog of the question answered on reply.
func (d *dialog) asks(reply any) bool {
	return (d.ask != nil && any(d.ask.reply) == reply) || (d.in != nil && any(d.in.reply) == reply)
}

// Ask puts one request to the person: the write-guard dialog, the escalation dialog or a
// question picker. When the call is aborted first, the dialog closes and the answer is
// Dismissed with ctx's error.
func (b *Bridge) Ask(ctx context.Context, req approve.Request) (approve.Decision, error) {
	reply := make(chan approve.Decision, 1)
	b.ch <- askMsg{req, reply}
	select {
	case d := <-reply:
		return d, nil
	case <-ctx.Done():
		b.ch <- cancelDialogMsg{reply}
		return approve.Decision{Choice: approve.Dismissed}, ctx.Err()
	}
}

var (
	_ approve.Approver = (*Bridge)(nil)
	_ app.Frontend     = (*Bridge)(nil)
)
