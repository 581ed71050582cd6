package approve

import (
	"sync"

	"github.com/pigo-agent/pigo/internal/sandbox"
)

// Rules are a session's running approval rules. Tool calls evaluate them on their own
// goroutines while a person's "always allow" adds to them; both go through the lock.
type Rules struct {
	mu       sync.RWMutex
	list     []sandbox.Rule
	compiled *sandbox.Rules
}

// NewRules compiles rules (sandbox.json approvalRules) for evaluation.
func NewRules(rules []sandbox.Rule) *Rules {
	list := append([]sandbox.Rule(nil), rules...)
	return &Rules{list: list, compiled: sandbox.CompileRules(list)}
}

// Evaluate is the rules' verdict on a command line (the last matching rule decides). A nil
// Rules has no rules.
func (r *Rules) Evaluate(line string) sandbox.Approval {
	if r == nil {
		return sandbox.CompileRules(nil).Evaluate(line)
	}
	r.mu.RLock()
	c := r.compiled
	r.mu.RUnlock()
	return c.Evaluate(line)
}

// Allow appends allow rules for patterns, written in file, and recompiles, under the lock.
func (r *Rules) Allow(file string, patterns ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := append([]sandbox.Rule(nil), r.list...)
	for _, p := range patterns {
		list = append(list, sandbox.Rule{Action: "allow", Pattern: p, Origin: sandbox.Origin{File: file}})
	}
	r.list, r.compiled = list, sandbox.CompileRules(list)
}

// List returns the rules in order.
func (r *Rules) List() []sandbox.Rule {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]sandbox.Rule(nil), r.list...)
}
