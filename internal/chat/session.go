package chat

import (
	"context"
	"io"

	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
)

// Session is what the chat drives: *app.Session implements it. Every method that waits (a
// prompt, a command, a selector, `!cmd`) runs off the UI goroutine, in a tea.Cmd or a
// goroutine; the others are safe to call from Update.
type Session interface {
	// Prompt sends one input (a command, a template, or text for the model) and waits until
	// the agent stops; a command's output goes to out.
	Prompt(ctx context.Context, text string, out io.Writer) (app.Reply, error)
	// Steer and FollowUp queue text for the running prompt; Abort cancels it (or a command).
	Steer(text string)
	FollowUp(text string)
	Abort()
	// Messages is the conversation to draw; State the model and thinking level for the footer.
	Messages() []llm.Message
	State() app.State
	// Lookup finds a slash command; Run runs it; Pick computes its selector.
	Lookup(name string) (app.Command, bool)
	Run(ctx context.Context, name, arg string) (app.Result, error)
	Pick(ctx context.Context, name string) (app.Picker, error)
	// UserBash runs `!cmd` (`!!cmd` with exclude).
	UserBash(ctx context.Context, command string, exclude bool) (app.Result, error)
	// Completions is the slash menu for a typed prefix.
	Completions(prefix string) []app.Completion
	// File is the session file (nil never; in memory it has no path): the footer's totals,
	// the editor's history, /export and /session read its entries.
	File() *session.Session
	// Dequeue takes back the queued steering and follow-up messages.
	Dequeue() []string
	// Leaf is where the next prompt goes; SetLeaf moves the session back there (/rewind).
	Leaf() string
	SetLeaf(leaf string) error
}

var _ Session = (*app.Session)(nil)
