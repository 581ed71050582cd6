package app

import (
	"context"

	"github.com/pigo-agent/pigo/internal/bwrap"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// seedCommands are the seed's /bwrap* and /lsp-* commands: they act on the session's sandbox
// and language servers in the chat and in `pigo -p` alike (the mode switches answer
// bwrap.TextNoUI where no person is, as the seed does). A sub-agent's fixed sandbox has no
// /bwrap* commands: they go to the model as text, as unregistered commands do.
func seedCommands() []Command {
	var out []Command
	for _, name := range bwrap.Names {
		out = append(out, Command{Name: name, Available: func(s *Session) bool { return s.bwrap != nil },
			Run: func(_ context.Context, s *Session, arg string) (Result, error) {
				r, _ := s.bwrap.Run(name, arg)
				return Result{Text: leveled(r.Text, r.Level)}, nil
			}})
	}
	for _, name := range lsp.CommandNames {
		out = append(out, Command{Name: name, Run: func(ctx context.Context, s *Session, arg string) (Result, error) {
			var m *lsp.Manager
			if s.lsp != nil {
				m = s.lsp.M
			}
			var reload func() (*lsp.Config, error)
			if s.cfg != nil {
				reload = s.cfg.LSP
			}
			r, _ := lsp.RunCommand(ctx, m, name, arg, reload)
			return Result{Text: leveled(r.Text, r.Level)}, nil
		}})
	}
	return out
}

// leveled prefixes a warning's or an error's text with its level, as the seed's notify does
// without a UI.
func leveled(text, level string) string {
	if level == "warning" || level == "error" {
		return level + ": " + text
	}
	return text
}

// startSeed makes the session's /bwrap* commands (none for a sub-agent's fixed sandbox); a new
// session file starts from sandbox.json again, escalations asked about again.
func (s *Session) startSeed(fresh bool) {
	s.tools.SetDenyRequests(false)
	if s.setup.FixedSandbox {
		return
	}
	s.bwrap = &bwrap.Commands{Session: s.tools, Interactive: s.interactive, Reload: func() (sandbox.Policy, error) {
		if s.cfg == nil {
			return s.setup.Policy, nil
		}
		return s.cfg.Sandbox()
	}}
	if !fresh {
		s.bwrap.Run("bwrap-reload", "")
	}
}
