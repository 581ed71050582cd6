package cli

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/tools/aft"
	"github.com/pigo-agent/pigo/internal/tools/vision"
)

// appConfig is app.Config over package config: the one place a session reaches the
// configuration files (and CUE). It keeps the command line's flags for /reload.
type appConfig struct {
	c   *CLI
	a   *args
	cfg *config.Config
}

// sessionSetup loads the configuration for a session run and resolves it for the run's model
// and sub-agent: the registry, the sandbox policy (a sub-agent's own; an unreadable
// sandbox.json fails the run), the settings, the proxy and the system prompt.
func (c *CLI) sessionSetup(a *args) (*app.Setup, *appConfig, error) {
	cfg, res, ag, code := c.resolveAgent(a)
	if res == nil {
		return nil, nil, &exitError{code: code}
	}
	st := &app.Setup{}
	var sub *config.ResolvedAgent
	var err error
	if ag != nil {
		if sub, err = cfg.Agent(ag.Name); err != nil {
			return nil, nil, exitf(ExitFailed, "--agent: %v", err)
		}
		// A sub-agent runs in its own fixed sandbox (D12), never the user's sandbox.json.
		st.Policy, st.AgentThinking, st.FixedSandbox = sub.Sandbox, ag.ThinkingLevel, true
	} else if st.Policy, _, err = cfg.SandboxPolicy(); err != nil {
		return nil, nil, exitf(ExitFailed, "sandbox.json: %v", err)
	}
	if err := c.fillSetup(st, cfg, res); err != nil {
		return nil, nil, err
	}
	st.MCP = c.mcpSetup(a, cfg, res, st.Policy)
	if st.Proxy, err = cfg.ProxyURL(); err != nil {
		return nil, nil, err
	}
	// A sub-agent's Markdown body is one more append prompt.
	if sub != nil && strings.TrimSpace(sub.Prompt) != "" {
		a.vals["--append-system-prompt"] = append(a.list("--append-system-prompt"), strings.TrimSpace(sub.Prompt))
	}
	p := c.runPrompt(a, cfg, res)
	st.SystemPrompt, st.PromptWarnings = p.Text, p.Warnings
	return st, &appConfig{c: c, a: a, cfg: cfg}, nil
}

// fillSetup sets what every session takes from the configuration: the workspace, the
// registry, the model's facts, the settings, lsp.json, describe_image's model and
// spawn-agent's roster, and the host facts the sandbox plans use.
func (c *CLI) fillSetup(st *app.Setup, cfg *config.Config, res *config.Resolution) error {
	cwd, err := filepath.Abs(cfg.ProjectDir)
	if err != nil {
		return err
	}
	st.Cwd, st.AgentDir, st.Registry, st.Commands, st.Environ = cwd, cfg.AgentDir, res.Tools, res.Commands, c.hostEnviron()
	if res.Model != nil {
		m := res.Model.Model
		st.Model = &m
	}
	settings, err := cfg.Effective(config.Settings)
	if err != nil {
		return err
	}
	st.Settings = settings.JSON()
	// lsp.json's problems are `pigo check`'s to report: a session without it has no LSP.
	if lc, _, err := cfg.LSPConfig(); err == nil {
		st.LSP = lc
	}
	v, err := cfg.VisionModel()
	st.Vision = vision.Vision{Configured: v.Configured, Provider: v.Provider, ModelID: v.ID, Model: v.Model, Proxy: v.Proxy, Err: err}
	st.Agents = cfg.Roster()
	a := cfg.AFT()
	if a.Available() {
		st.AFT = aft.AFTSetup{Bin: a.Binary.Path, Config: a.Config}
	}
	st.StartNotices = aft.StartNotices(res.Tools, aft.AFTStart{Found: a.Found, Tried: a.Tried, Config: a.Config})
	return nil
}

// sessionSpec turns the session flags into where the session file comes from.
func (c *CLI) sessionSpec(a *args, cfg *config.Config) app.SessionSpec {
	return app.SessionSpec{Location: c.sessionLocation(cfg, a), InMemory: a.has("--no-session"), Fork: a.str("--fork"),
		Open: a.str("--session"), Continue: a.has("-c")}
}

// Load is /reload: the configuration read again with the run's flags for model; the notices
// it prints are returned in Notes instead of going to the terminal under the chat.
func (x *appConfig) Load(model string) (*app.Setup, error) {
	var notes bytes.Buffer
	stderr := x.c.Stderr
	x.c.Stderr = &notes
	defer func() { x.c.Stderr = stderr }()
	x.a.vals["--model"] = []string{model}
	st, next, err := x.c.sessionSetup(x.a)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) && ee.msg == "" {
			return nil, fmt.Errorf("reload failed (exit %d): %s", ee.code, strings.TrimSpace(notes.String()))
		}
		return nil, err
	}
	x.cfg = next.cfg
	for _, w := range st.PromptWarnings {
		fmt.Fprintf(&notes, "pigo: warning: %s\n", w)
	}
	st.PromptWarnings = nil
	if n := strings.TrimSpace(notes.String()); n != "" {
		st.Notes = strings.Split(n, "\n")
	}
	return st, nil
}

// Model resolves "provider/id" as --model does (config.Model). An unknown model or one whose
// key cannot be resolved is a usage error (exit 2); the unknown one is app.ErrUnknownModel.
func (x *appConfig) Model(ref, apiKey string) (*llm.Model, error) {
	m, err := x.cfg.Model(ref, apiKey)
	var unknown *config.UnknownModelError
	switch {
	case errors.As(err, &unknown):
		return nil, unknownModelError{exitf(ExitUsage, "%v", err)}
	case errors.Is(err, config.ErrModelKey):
		return nil, exitf(ExitUsage, "%v", err)
	case err == nil && m == nil:
		return nil, app.ErrNoModel
	}
	return m, err
}

// unknownModelError is the command line's unknown-model error, which a session recognises as
// app.ErrUnknownModel.
type unknownModelError struct{ *exitError }

func (e unknownModelError) Unwrap() []error { return []error{e.exitError, app.ErrUnknownModel} }

// Models are the models /model offers (config.ModelRefs).
func (x *appConfig) Models() []string { return x.cfg.ModelRefs() }

// Sandbox reads sandbox.json again (/bwrap-reload: global, then the trusted project's).
func (x *appConfig) Sandbox() (sandbox.Policy, error) {
	fresh, err := config.Load(x.cfg.Opts)
	if err != nil {
		return sandbox.Policy{}, err
	}
	p, _, err := fresh.SandboxPolicy()
	return p, err
}

// LSP reads lsp.json again (/lsp-reload).
func (x *appConfig) LSP() (*lsp.Config, error) {
	fresh, err := config.Load(x.cfg.Opts)
	if err != nil {
		return nil, err
	}
	lc, _, err := fresh.LSPConfig()
	return lc, err
}

// MissingCredential is config.MissingCredential: the provider has no usable credential.
func (x *appConfig) MissingCredential(m *llm.Model, apiKey string) error {
	return x.cfg.MissingCredential(m, apiKey)
}

// SaveAllow is "always allow": the patterns go to the project's sandbox.json approvalRules.
func (x *appConfig) SaveAllow(patterns []string) (string, error) {
	return x.cfg.AllowCommands(patterns)
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

var _ app.Config = (*appConfig)(nil)
