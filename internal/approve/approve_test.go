package approve

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/internal/sandbox"
)

// person answers every request with d and counts the questions.
type person struct {
	mu   sync.Mutex
	d    Decision
	asks []Request
}

func (p *person) Ask(_ context.Context, r Request) (Decision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asks = append(p.asks, r)
	return p.d, nil
}

// Nobody to ask: every kind is refused with the caller's own reference text, as a Refusal.
func TestHeadlessRefusesWithTheCallersText(t *testing.T) {
	for _, o := range []Options{{}, {UI: &person{d: Decision{Choice: Allow}}, Headless: true}} {
		a := New(o)
		for _, r := range []Request{
			{Kind: KindWrite, Tool: "Write", Path: "/srv/x", NoUI: `Path "/srv/x" is outside workspace. No UI available for approval.`},
			{Kind: KindCommand, Tool: "Bash", Command: "git push", NoUI: "User denied unsandboxed execution."},
			{Kind: KindQuestion, Tool: "question", NoUI: "Cannot ask questions: interactive UI is not available in this mode"},
		} {
			_, err := a.Ask(context.Background(), r)
			var ref *Refusal
			if !errors.As(err, &ref) || err.Error() != r.NoUI {
				t.Errorf("%s: got %v, want the refusal %q", r.Kind, err, r.NoUI)
			}
		}
	}
}

// "For this session" is asked once per path or command; "once" is asked every time; a
// question is never remembered.
func TestRememberForThisSession(t *testing.T) {
	p := &person{d: Decision{Choice: AllowSession}}
	a := New(Options{UI: p})
	ctx := context.Background()
	w := Request{Kind: KindWrite, Path: "/srv/a"}
	for range 3 {
		if d, err := a.Ask(ctx, w); err != nil || !d.Allowed() {
			t.Fatalf("write: %+v %v", d, err)
		}
	}
	c := Request{Kind: KindCommand, Command: "git push"}
	a.Ask(ctx, c)
	a.Ask(ctx, c)
	a.Ask(ctx, Request{Kind: KindWrite, Path: "/srv/b"})
	q := Request{Kind: KindQuestion, Question: &Question{Question: "?"}}
	a.Ask(ctx, q)
	a.Ask(ctx, q)
	if len(p.asks) != 5 {
		t.Fatalf("asked %d times, want 5 (a, git push, b, the question twice)", len(p.asks))
	}
	once := &person{d: Decision{Choice: Allow}}
	a = New(Options{UI: once})
	a.Ask(ctx, w)
	a.Ask(ctx, w)
	if len(once.asks) != 2 {
		t.Fatalf("an 'allow once' was remembered")
	}
}

// A codemode script's calls: writes and commands are refused with codemode's text, questions
// reach the person.
func TestNested(t *testing.T) {
	p := &person{d: Decision{Choice: Answered, Answers: []string{"Red"}}}
	a := Nested(p, func(r Request) string { return "no dialogs inside codemode: " + r.Tool })
	if _, err := a.Ask(context.Background(), Request{Kind: KindCommand, Tool: "bash"}); err == nil || err.Error() != "no dialogs inside codemode: bash" {
		t.Fatalf("command: %v", err)
	}
	d, err := a.Ask(context.Background(), Request{Kind: KindQuestion})
	if err != nil || !slices.Equal(d.Answers, []string{"Red"}) {
		t.Fatalf("question: %+v %v", d, err)
	}
}

// Ticked "always allow" patterns go to the save hook and into the running rules, except when
// the command was sent back into the sandbox; a failed save is reported and changes no rule.
func TestPersistHook(t *testing.T) {
	for _, c := range []struct {
		choice   Choice
		saveErr  error
		saved    bool
		allowNow bool
	}{
		{Allow, nil, true, true},
		{AllowSession, nil, true, true},
		{Deny, nil, true, true},
		{RunInSandbox, nil, false, false},
		{Allow, errors.New("disk full"), true, false},
	} {
		rules := NewRules([]sandbox.Rule{{Action: "deny", Pattern: "rm *"}})
		var saved []string
		var reported error
		a := New(Options{UI: &person{d: Decision{Choice: c.choice, Persist: []string{"git push *"}}}, Rules: rules,
			Save:   func(p []string) (string, error) { saved = p; return "/p/.pi/sandbox.json", c.saveErr },
			Report: func(_ []string, err error) { reported = err }})
		if _, err := a.Ask(context.Background(), Request{Kind: KindCommand, Command: "git push origin"}); err != nil {
			t.Fatal(err)
		}
		if (saved != nil) != c.saved || reported != c.saveErr {
			t.Errorf("%v: saved %v, reported %v", c.choice, saved, reported)
		}
		allow := rules.Evaluate("git push origin main").Decision == sandbox.Allow
		if allow != c.allowNow {
			t.Errorf("%v: the running rules allow git push: %v", c.choice, allow)
		}
		if allow {
			if l := rules.List(); l[len(l)-1].Origin.File != "/p/.pi/sandbox.json" {
				t.Errorf("origin %+v", l[len(l)-1].Origin)
			}
		}
	}
}

// The rules are evaluated by tool calls on their own goroutines while a person's answer adds
// to them: under -race this fails if the swap is not under the lock (issue 21: the chat
// reassigned the compiled rules from the UI goroutine while tool calls read them).
func TestRulesSwapUnderLock(t *testing.T) {
	rules := NewRules(nil)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				rules.Evaluate("git push origin main")
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			rules.Allow("", "git push *", "make "+string(rune('a'+i)))
		}()
	}
	wg.Wait()
	if rules.Evaluate("git push x").Decision != sandbox.Allow || len(rules.List()) != 8 {
		t.Fatalf("after the swaps: %d rules", len(rules.List()))
	}
}
