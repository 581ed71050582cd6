package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// UserBash runs the person's own command (`!cmd`; `!!cmd` with exclude, kept out of the
// model's context) as the session's bash would, in its sandbox; the output is recorded as pi's
// bashExecution message, so the agent sees it from the next prompt on. The result's text is
// the output and its exit status.
func (s *Session) UserBash(ctx context.Context, command string, exclude bool) (Result, error) {
	ctx, done, err := s.begin(ctx)
	if err != nil {
		return Result{}, err
	}
	defer done()
	plan, err := toolkit.BashPlan(s.tools)
	if err != nil {
		return Result{}, err
	}
	out, err := toolkit.RunBash(ctx, toolkit.BashRun{Command: command, Dir: s.tools.Cwd, Plan: plan})
	if err != nil {
		return Result{}, err
	}
	be := session.BashExecution{Command: command, Output: out.Output, ExitCode: out.ExitCode, Cancelled: out.Aborted,
		Truncated: out.Truncation.Truncated, FullOutputPath: out.FullOutputPath, Timestamp: time.Now().UnixMilli(), ExcludeFromContext: exclude}
	s.mu.Lock()
	_, err = s.file.AppendBashExecution(be)
	if err == nil {
		s.rebuild()
	}
	s.mu.Unlock()
	if err != nil {
		return Result{}, err
	}
	text := strings.TrimRight(out.Output, "\n")
	if out.ExitCode != nil && *out.ExitCode != 0 {
		text += fmt.Sprintf("\n(exit %d)", *out.ExitCode)
	} else if out.ExitCode == nil {
		text += "\n(cancelled)"
	}
	return Result{Text: text}, nil
}
