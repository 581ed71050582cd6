package chat

import (
	"context"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools"
)

// Bridge carries everything that happens off the UI goroutine into the chat as tea.Msgs: the
// agent's events, the end of a run, and the dialogs a tool call waits on. It implements
// toolrun.Approver and tools.Asker, so the session's tools ask the person through it; a
// dialog blocks only the tool goroutine that asked, never the UI.
type Bridge struct {
	ch chan tea.Msg

	mu     sync.Mutex
	cancel context.CancelFunc
	// session holds the "for this session" approvals: in memory only, never written.
	session map[string]bool
}

// NewBridge returns a bridge with room for a burst of events.
func NewBridge() *Bridge {
	return &Bridge{ch: make(chan tea.Msg, 4096), session: map[string]bool{}}
}

// Emit is the agent's event sink (agent.Config.Emit).
func (b *Bridge) Emit(e agent.Event) { b.ch <- eventMsg{e} }

// Abort cancels the running prompt (toolrun.Session.Abort: a dismissed dialog aborts).
func (b *Bridge) Abort() {
	b.mu.Lock()
	c := b.cancel
	b.mu.Unlock()
	if c != nil {
		c()
	}
}

func (b *Bridge) setCancel(c context.CancelFunc) {
	b.mu.Lock()
	b.cancel = c
	b.mu.Unlock()
}

func (b *Bridge) allowed(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.session[key]
}

func (b *Bridge) allow(key string) {
	b.mu.Lock()
	b.session[key] = true
	b.mu.Unlock()
}

// listen waits for the next message from the bridge.
func (b *Bridge) listen() tea.Cmd {
	return func() tea.Msg { return <-b.ch }
}

// writeAskMsg opens the write-guard dialog.
type writeAskMsg struct {
	req   toolrun.WriteRequest
	reply chan writeReply
}

type writeReply struct {
	d       toolrun.WriteDecision
	session bool
}

// commandAskMsg opens the escalation dialog.
type commandAskMsg struct {
	req   toolrun.CommandRequest
	reply chan commandReply
}

type commandReply struct {
	d       toolrun.CommandDecision
	session bool
}

// questionMsg opens a question picker.
type questionMsg struct {
	q     tools.Question
	reply chan []string
}

// cancelDialogMsg closes a dialog whose call was aborted.
type cancelDialogMsg struct{}

// ApproveWrite asks the person about a write outside the workspace. A path approved "for this
// session" is not asked again until the chat exits.
func (b *Bridge) ApproveWrite(ctx context.Context, req toolrun.WriteRequest) (toolrun.WriteDecision, error) {
	key := "write\x00" + req.Path
	if b.allowed(key) {
		return toolrun.WriteDecision{Choice: toolrun.WriteApproveOnce}, nil
	}
	reply := make(chan writeReply, 1)
	b.ch <- writeAskMsg{req, reply}
	select {
	case r := <-reply:
		if r.session {
			b.allow(key)
		}
		return r.d, nil
	case <-ctx.Done():
		b.ch <- cancelDialogMsg{}
		return toolrun.WriteDecision{Choice: toolrun.WriteDismissed}, nil
	}
}

// ApproveCommand asks the person about a command that leaves the sandbox. A command allowed
// "for this session" runs unasked until the chat exits.
func (b *Bridge) ApproveCommand(ctx context.Context, req toolrun.CommandRequest) (toolrun.CommandDecision, error) {
	key := "cmd\x00" + req.Command
	if b.allowed(key) {
		return toolrun.CommandDecision{Choice: toolrun.CommandAllowOnce}, nil
	}
	reply := make(chan commandReply, 1)
	b.ch <- commandAskMsg{req, reply}
	select {
	case r := <-reply:
		if r.session {
			b.allow(key)
		}
		return r.d, nil
	case <-ctx.Done():
		b.ch <- cancelDialogMsg{}
		return toolrun.CommandDecision{Choice: toolrun.CommandDismissed}, nil
	}
}

// Ask puts one question to the person (AskUserQuestion, question): the chosen labels or the
// typed answer; none means unanswered.
func (b *Bridge) Ask(ctx context.Context, q tools.Question) ([]string, error) {
	reply := make(chan []string, 1)
	b.ch <- questionMsg{q, reply}
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		b.ch <- cancelDialogMsg{}
		return nil, ctx.Err()
	}
}

var (
	_ toolrun.Approver = (*Bridge)(nil)
	_ tools.Asker      = (*Bridge)(nil)
)
