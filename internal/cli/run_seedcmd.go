package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/bwrap"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// seedCommand runs the seed's /bwrap* and /lsp-* commands on the session (the chat and -p
// both expand prompts through here); false when text is not one of them. A sub-agent's fixed
// sandbox has no /bwrap* commands (they go to the model as text, as unregistered commands do).
func (c *CLI) seedCommand(ctx context.Context, r *run, text string, out io.Writer) bool {
	if !strings.HasPrefix(text, "/") {
		return false
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(text), "/"), " ")
	var msg, level string
	switch {
	case bwrap.IsCommand(name) && r.bwrap != nil:
		res, _ := r.bwrap.Run(name, strings.TrimSpace(args))
		msg, level = res.Text, res.Level
	case lsp.IsCommand(name):
		var m *lsp.Manager
		if r.lsp != nil {
			m = r.lsp.M
		}
		res, _ := lsp.RunCommand(ctx, m, name, args, func() (*lsp.Config, error) {
			fresh, err := config.Load(r.cfg.Opts)
			if err != nil {
				return nil, err
			}
			lc, _, err := fresh.LSPConfig()
			return lc, err
		})
		msg, level = res.Text, res.Level
	default:
		return false
	}
	if level == "warning" || level == "error" {
		msg = level + ": " + msg
	}
	fmt.Fprintln(out, msg)
	return true
}

// seedCommands makes the session's /bwrap* commands (none for a sub-agent's fixed sandbox).
func seedCommands(r *run, fixed bool) {
	if fixed {
		return
	}
	opts := r.cfg.Opts
	r.bwrap = &bwrap.Commands{Session: r.toolSess, Reload: func() (sandbox.Policy, error) {
		fresh, err := config.Load(opts)
		if err != nil {
			return sandbox.Policy{}, err
		}
		p, _, err := fresh.SandboxPolicy()
		return p, err
	}}
}

// resetSeedState is a new session's start for the seed's session-scoped switches: the
// sandbox as sandbox.json says (no /bwrap-* override), escalations asked about again.
func (r *run) resetSeedState() {
	if r.bwrap != nil {
		interactive := r.bwrap.Interactive
		seedCommands(r, false)
		r.bwrap.Interactive = interactive
		r.bwrap.Run("bwrap-reload", "")
	}
	r.toolSess.SetDenyRequests(false)
}
