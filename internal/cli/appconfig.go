package cli

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/appconfig"
)

// sessionSetup loads the configuration for a session run and resolves it for the run's model
// and sub-agent (appconfig.Setup); the configuration it returns reloads with the same flags.
func (c *CLI) sessionSetup(a *args) (*app.Setup, *appconfig.Config, error) {
	cfg, res, ag, code := c.resolveAgent(a)
	if res == nil {
		return nil, nil, &exitError{code: code}
	}
	st, err := appconfig.Setup(cfg, res, ag, c.runConfig(a))
	if err != nil {
		return nil, nil, err
	}
	return st, c.appConfig(a, cfg), nil
}

// appConfig is the session's configuration cfg, which /reload loads again with the run's flags.
func (c *CLI) appConfig(a *args, cfg *config.Config) *appconfig.Config {
	return appconfig.New(cfg, func(model string) (*app.Setup, *config.Config, error) { return c.reload(a, model) })
}

// runConfig is what the run's flags and environment add to the configuration.
func (c *CLI) runConfig(a *args) appconfig.Run {
	return appconfig.Run{NoMCP: a.has("--no-mcp"), SystemPrompt: a.str("--system-prompt"), AppendSystemPrompt: a.list("--append-system-prompt"),
		NoContextFiles: a.has("-nc"), Extensions: a.list("-e"), Getenv: c.getenv, Version: Version, OpenURL: c.openURL}
}

// sessionSpec turns the session flags into where the session file comes from.
func (c *CLI) sessionSpec(a *args, cfg *config.Config) app.SessionSpec {
	return app.SessionSpec{Location: c.sessionLocation(cfg, a), InMemory: a.has("--no-session"), Fork: a.str("--fork"),
		Open: a.str("--session"), Continue: a.has("-c")}
}

// reload is /reload: the configuration read again with the run's flags for model; the notices
// it prints are returned in Notes instead of going to the terminal under the chat.
func (c *CLI) reload(a *args, model string) (*app.Setup, *config.Config, error) {
	var notes bytes.Buffer
	stderr := c.Stderr
	c.Stderr = &notes
	defer func() { c.Stderr = stderr }()
	a.vals["--model"] = []string{model}
	st, next, err := c.sessionSetup(a)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) && ee.msg == "" {
			return nil, nil, fmt.Errorf("reload failed (exit %d): %s", ee.code, strings.TrimSpace(notes.String()))
		}
		return nil, nil, err
	}
	for _, w := range st.PromptWarnings {
		fmt.Fprintf(&notes, "pigo: warning: %s\n", w)
	}
	st.PromptWarnings = nil
	if n := strings.TrimSpace(notes.String()); n != "" {
		st.Notes = strings.Split(n, "\n")
	}
	return st, next.Files(), nil
}

// splitModelFlag reads --model ID | PROVIDER/ID[:THINKING] (with --provider). A suffix that is
// not a thinking level stays part of the id (ids may contain colons).
func splitModelFlag(provider, model string) (ref, thinking string) {
	if i := strings.LastIndex(model, ":"); i > 0 && slices.Contains(app.ThinkingLevels, model[i+1:]) {
		model, thinking = model[:i], model[i+1:]
	}
	if provider != "" && model != "" {
		if p, rest, ok := strings.Cut(model, "/"); ok && strings.EqualFold(p, provider) {
			model = rest
		}
		return provider + "/" + model, thinking
	}
	return model, thinking
}
