package chat

import (
	"context"
	"io"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
)

// fakeSession stands in for app.Session: its commands are test closures, steering and
// follow-ups are echoed as the agent's queue_update through the bridge.
type fakeSession struct {
	state    app.State
	msgs     []llm.Message
	cmds     map[string]app.Command
	complete func(prefix string) []app.Completion
	bash     func(command string, exclude bool) (app.Result, error)
	bridge   *Bridge

	steering, followUp []string
	aborted            bool
	leaf               string
	file               *session.Session
}

// fake is a session on model with the given commands (all interactive).
func fake(model string, cmds ...app.Command) *fakeSession {
	f := &fakeSession{state: app.State{Model: model}, cmds: map[string]app.Command{}}
	for _, c := range cmds {
		c.Interactive = true
		f.cmds[c.Name] = c
	}
	return f
}

// cmd is a command whose Run calls run with its argument.
func cmd(name string, run func(arg string) (app.Result, error)) app.Command {
	return app.Command{Name: name, Run: func(_ context.Context, _ *app.Session, arg string) (app.Result, error) { return run(arg) }}
}

// withPick adds a selector to c.
func withPick(c app.Command, p func() (app.Picker, error)) app.Command {
	c.Pick = func(context.Context, *app.Session) (app.Picker, error) { return p() }
	return c
}

func (f *fakeSession) Prompt(ctx context.Context, text string, out io.Writer) (app.Reply, error) {
	return app.Reply{}, nil
}

func (f *fakeSession) queue() {
	if f.bridge != nil {
		f.bridge.Event(agent.Event{Type: agent.EventQueueUpdate, Steering: f.steering, FollowUp: f.followUp})
	}
}

func (f *fakeSession) Steer(text string)       { f.steering = append(f.steering, text); f.queue() }
func (f *fakeSession) FollowUp(text string)    { f.followUp = append(f.followUp, text); f.queue() }
func (f *fakeSession) Abort()                  { f.aborted = true }
func (f *fakeSession) Messages() []llm.Message { return f.msgs }
func (f *fakeSession) State() app.State        { return f.state }
func (f *fakeSession) Leaf() string            { return f.leaf }
func (f *fakeSession) SetLeaf(l string) error  { f.leaf = l; return nil }

func (f *fakeSession) File() *session.Session { return f.file }

func (f *fakeSession) Dequeue() []string {
	q := append(append([]string{}, f.steering...), f.followUp...)
	f.steering, f.followUp = nil, nil
	return q
}

func (f *fakeSession) Lookup(name string) (app.Command, bool) {
	c, ok := f.cmds[name]
	return c, ok
}

func (f *fakeSession) Run(ctx context.Context, name, arg string) (app.Result, error) {
	return f.cmds[name].Run(ctx, nil, arg)
}

func (f *fakeSession) Pick(ctx context.Context, name string) (app.Picker, error) {
	return f.cmds[name].Pick(ctx, nil)
}

func (f *fakeSession) UserBash(_ context.Context, command string, exclude bool) (app.Result, error) {
	return f.bash(command, exclude)
}

func (f *fakeSession) Completions(prefix string) []app.Completion {
	if f.complete == nil {
		return nil
	}
	return f.complete(prefix)
}
