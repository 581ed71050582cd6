package approve

import (
	"context"
	"sync"
)

// Headless is the Approver of a session nobody can answer: every request is refused with its
// NoUI text.
func Headless() Approver {
	return Func(func(_ context.Context, r Request) (Decision, error) {
		return Decision{}, &Refusal{Text: r.NoUI}
	})
}

// Nested wraps the session's Approver for the calls a codemode script makes: a write or a
// command is refused with text(r) (nobody can be asked from inside a script), a question is
// put to next.
func Nested(next Approver, text func(r Request) string) Approver {
	return Func(func(ctx context.Context, r Request) (Decision, error) {
		if r.Kind == KindQuestion && next != nil {
			return next.Ask(ctx, r)
		}
		return Decision{}, &Refusal{Text: text(r)}
	})
}

// key is what "for this session" remembers of a request (codex keys its cached approvals the
// same way: by what was approved, not by who asked). Questions are never remembered.
func key(r Request) (string, bool) {
	switch r.Kind {
	case KindWrite:
		return "write\x00" + r.Path, true
	case KindCommand:
		return "cmd\x00" + r.Command, true
	}
	return "", false
}

// memory is the session's "allowed for this session" set.
type memory struct {
	next Approver
	mu   sync.Mutex
	set  map[string]bool
}

// Remember wraps next with the session's memory: after an AllowSession answer, the same write
// path or command is allowed without asking (as Allow) until the session ends.
func Remember(next Approver) Approver {
	return &memory{next: next, set: map[string]bool{}}
}

func (m *memory) Ask(ctx context.Context, r Request) (Decision, error) {
	k, ok := key(r)
	if ok {
		m.mu.Lock()
		seen := m.set[k]
		m.mu.Unlock()
		if seen {
			return Decision{Choice: Allow}, nil
		}
	}
	d, err := m.next.Ask(ctx, r)
	if err == nil && ok && d.Choice == AllowSession {
		m.mu.Lock()
		m.set[k] = true
		m.mu.Unlock()
	}
	return d, err
}

// persisting hands the ticked "always allow" patterns to the application's save hook.
type persisting struct {
	next   Approver
	save   func(patterns []string) (file string, err error)
	rules  *Rules
	report func(saved []string, err error)
}

func (p *persisting) Ask(ctx context.Context, r Request) (Decision, error) {
	d, err := p.next.Ask(ctx, r)
	if err != nil || r.Kind != KindCommand || len(d.Persist) == 0 || d.Choice == RunInSandbox || d.Choice == Dismissed {
		return d, err
	}
	file, serr := p.save(d.Persist)
	if serr == nil && p.rules != nil {
		p.rules.Allow(file, d.Persist...)
	}
	if p.report != nil {
		p.report(d.Persist, serr)
	}
	return d, nil
}
