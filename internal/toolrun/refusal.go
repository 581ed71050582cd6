package toolrun

// RefusalKind says why a call was refused before it did its work.
type RefusalKind int

// The kinds of refusal.
const (
	// RefusedHeadless: the call needs a person and nobody can answer (-p, `pigo tool run`,
	// a codemode script).
	RefusedHeadless RefusalKind = iota + 1
	// RefusedUser: the person said no (Block, Deny, a dismissed dialog).
	RefusedUser
	// RefusedPolicy: a standing rule said no (/bwrap-deny-request, a deny approval rule,
	// the network policy, Windows).
	RefusedPolicy
)

// Refusal is a typed refusal: the model sees Text (the reference text, byte for byte), and
// callers tell a refusal from a failure with errors.As instead of matching the text.
type Refusal struct {
	Text string
	Kind RefusalKind
}

func (r *Refusal) Error() string { return r.Text }
