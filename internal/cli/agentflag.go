package cli

import (
	"fmt"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/validate"
)

// applyAgent narrows a resolution to a sub-agent: its tools list becomes the allowlist and its
// model the session model.
func (c *CLI) applyAgent(cfg *config.Config, name string, o *config.ResolveOptions) int {
	fmt.Fprintf(c.Stderr, "pigo: --agent %s: sub-agent resolution is not wired yet\n", name)
	return ExitFailed
}

func suggestName(s string, names []string) string { return validate.Suggest(s, names) }
