package cli

import (
	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/appconfig"
	"github.com/pigo-agent/pigo/internal/chat"
	"github.com/pigo-agent/pigo/internal/theme"
	"github.com/pigo-agent/pigo/internal/tui"
)

// configEmbed is the chat's /config: the explorer with this session's own options (the same
// agent dir, project, trust and model as the session, the chat's theme).
func (c *CLI) configEmbed(a *args, ac *appconfig.Config, s *app.Session, color bool, th func() *theme.Theme) func(w, h int) chat.Embedded {
	return tui.Embed(c.Stdout, func() tui.Options {
		load := c.loadOptions(a)
		trusted := ac.Files().Trusted
		load.Approve = &trusted
		load.AskTrust = nil
		return tui.Options{Load: load, Color: color, Theme: th(),
			Resolve: config.ResolveOptions{Model: s.State().Model, Tools: a.csv("--tools"),
				ExcludeTools: a.csv("--exclude-tools"), NoBuiltinTools: a.has("--no-builtin-tools"), NoTools: a.has("--no-tools")}}
	})
}
