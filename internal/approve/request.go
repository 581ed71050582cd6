package approve

import (
	"context"

	"github.com/pigo-agent/pigo/internal/sandbox"
)

// Kind is what a request asks for.
type Kind uint8

// The kinds of request.
const (
	// KindWrite asks to write a file outside the workspace or into a protected path.
	KindWrite Kind = iota + 1
	// KindCommand asks to run a command outside the sandbox.
	KindCommand
	// KindQuestion is the model's question to the person.
	KindQuestion
)

func (k Kind) String() string {
	switch k {
	case KindWrite:
		return "write"
	case KindCommand:
		return "command"
	case KindQuestion:
		return "question"
	}
	return "unknown"
}

// Request is one question put to a person.
type Request struct {
	Kind Kind
	// Tool is the tool that asks.
	Tool string
	// Title is the dialog's text (for a write: the reference's text, the preview included).
	Title string
	// NoUI is the reference text to refuse with when nobody can be asked.
	NoUI string

	// Path is the resolved target of a write (where the bytes would go), Asked the path as
	// the model named it (different when a link leads elsewhere); Protected says why the
	// target is on the protected list ("" when it is not); Preview is the fenced unified diff.
	Path, Asked, Protected, Preview string

	// Command is the command line of an escalation; Approval the approval rules' verdict on
	// it (its Suggestions are the "always allow" patterns a dialog offers).
	Command  string
	Approval sandbox.Approval

	// Question is the model's question (KindQuestion).
	Question *Question
}

// Question is one question as a dialog shows it.
type Question struct {
	// Title is "<header>: <question>" (the question alone when the header is empty).
	Title    string
	Question string
	Header   string
	Options  []Option
	Multiple bool
	// Other is the label of the free-text option ("Other" or "Type your own answer."); Done
	// ends a multi-select ("Done", "✓ Done").
	Other, Done string
	// InputPrompt is the prompt of the free-text input.
	InputPrompt string
}

// Option is one choice of a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// Choice is the person's answer.
type Choice uint8

// The answers. The reference's dialogs name them differently per kind ("Approve once" /
// "Allow once", "Block" / "Deny"); the callers keep their own texts for each.
const (
	// Dismissed: the dialog was closed without an answer (a write or command aborts the turn;
	// a question is unanswered).
	Dismissed Choice = iota
	// Allow: approve or allow once.
	Allow
	// AllowSession: allow, and do not ask again for the same path or command this session.
	AllowSession
	// Deny: block or deny.
	Deny
	// DenyReason: block or deny with Reason.
	DenyReason
	// RunInSandbox: run the command inside the sandbox after all (escalations only).
	RunInSandbox
	// Answered: a question's Answers (none means unanswered).
	Answered
)

// Decision is the answer to one Request.
type Decision struct {
	Choice Choice
	// Reason goes with DenyReason.
	Reason string
	// Persist are the "always allow" patterns the person ticked, to save as allow rules.
	Persist []string
	// Answers are a question's chosen labels or typed text.
	Answers []string
}

// Allowed reports whether the request may go ahead as asked (once or for the session).
func (d Decision) Allowed() bool { return d.Choice == Allow || d.Choice == AllowSession }

// Approver answers requests. A front end implements it with its dialogs; a dialog blocks only
// the goroutine that asks. When ctx is done before an answer it returns ctx.Err() (with a
// Dismissed decision).
type Approver interface {
	Ask(ctx context.Context, r Request) (Decision, error)
}

// Func adapts a function to an Approver.
type Func func(ctx context.Context, r Request) (Decision, error)

// Ask calls f.
func (f Func) Ask(ctx context.Context, r Request) (Decision, error) { return f(ctx, r) }

// Refusal is a request refused without asking anybody; its text is the model-visible text
// of the refusal (the caller's reference text).
type Refusal struct{ Text string }

func (r *Refusal) Error() string { return r.Text }
