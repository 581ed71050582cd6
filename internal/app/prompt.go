package app

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/pigo-agent/pigo/internal/prompt"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// Prompt handles one input as pi's prompt() does: a slash command of the dispatcher runs
// (interactive ones only where a person is: `pigo -p` sends "/model" to the model as text, as
// pi's print mode does); then an extension command, `/skill:name` or a prompt template
// expands (a `run` command runs in the sandbox, its output to out); anything else is sent to
// the model and the loop runs until it stops. A command's text goes to out. Reply.Handled is
// true when no model turn ran (a command, or an input that could not be expanded).
func (s *Session) Prompt(ctx context.Context, text string, out io.Writer) (Reply, error) {
	parent := ctx
	ctx, done, err := s.begin(ctx)
	if err != nil {
		return Reply{}, err
	}
	defer done()
	out = printer(out)
	if name, arg, ok := commandWord(text); ok {
		if c, ok := s.Lookup(name); ok && (!c.Interactive || s.interactive) {
			r, err := c.Run(ctx, s, arg)
			if r.Text != "" {
				fmt.Fprintln(out, r.Text)
			}
			return Reply{Handled: true, Result: r}, err
		}
	}
	s.mu.Lock()
	rv := &prompt.Resolver{Commands: s.setup.Commands.Commands, Skills: prompt.FromResolution(s.setup.Registry, s.setup.Commands).Skills}
	ag := s.ag
	runner, tools := s.runner, s.tools
	s.mu.Unlock()
	s.warmSandbox(runner, tools)
	ex, err := rv.Expand(text)
	if err != nil {
		return Reply{Handled: true}, err
	}
	if ex.Kind == prompt.KindRun {
		return Reply{Handled: true}, s.runCommand(ctx, ex, out)
	}
	s.startNaming(parent, ex.Text)
	s.talkTurn(ag)
	m, err := ag.Prompt(ctx, ex.Text)
	s.talkSettle()
	return Reply{Message: m}, err
}

// warmSandbox starts, once a session and on a goroutine of its own, what the first sandboxed
// command would otherwise make on its path (toolkit.WarmSandbox: /tmp's socket directories,
// the pids hierarchy's probe, os/exec's pidfd check; ~1.5 ms of the 4-request session's
// bash call), when the model may call bash: the first request and its reply take longer.
func (s *Session) warmSandbox(runner *toolrun.Runner, tools *toolrun.Session) {
	s.sandboxOnce.Do(func() {
		if runner == nil || tools == nil || (runner.Callable("bash") == nil && runner.Callable("Bash") == nil) {
			return
		}
		done := make(chan struct{})
		s.sandboxWarmed = done
		go func() {
			defer close(done)
			toolkit.WarmSandbox(tools)
		}()
	})
}

// commandWord splits "/name args" into its name and trimmed arguments.
func commandWord(text string) (name, arg string, ok bool) {
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	name, arg, _ = strings.Cut(text[1:], " ")
	return name, strings.TrimSpace(arg), name != ""
}

// runCommand runs a declarative extension command's `run` argv in the sandbox (arguments are
// whole words, never re-parsed by a shell); its output goes to out, its errors to
// Options.Stderr (else out).
func (s *Session) runCommand(ctx context.Context, ex prompt.Expansion, out io.Writer) error {
	line, err := sandbox.QuoteWords(ex.Argv)
	if err != nil {
		return usagef("%v", err)
	}
	pl, err := sandbox.NewPlan(s.setup.Policy, s.setup.Cwd, s.setup.Environ)
	if err != nil {
		return fmt.Errorf("/%s: %v", ex.Command.Invocation, err)
	}
	errOut := s.o.Stderr
	if errOut == nil {
		errOut = out
	}
	res, err := sandbox.Run(ctx, pl, line, sandbox.Options{Stdout: out, Stderr: errOut})
	if err != nil {
		return fmt.Errorf("/%s: %v", ex.Command.Invocation, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("/%s: the command exited with code %d", ex.Command.Invocation, res.ExitCode)
	}
	return nil
}
