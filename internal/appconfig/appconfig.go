// Package appconfig is a session's configuration: it turns a loaded config.Config, its
// resolution and a run's flags into the values app.Session opens with (app.Setup), and it is
// app.Config and app.Settings over package config for the moments a running session reads or
// writes the files again (/reload, /model, /bwrap-reload, "always allow", /settings, /trust).
//
// The command line parses the flags and loads the configuration; this package resolves what a
// session takes from it. It imports config and app, never the command line or a UI: app does
// not import config (no runtime package reaches the configuration files but through here).
package appconfig

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/prompt"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/tools/aft"
	"github.com/pigo-agent/pigo/internal/tools/vision"
)

// Run is what a session run's flags and environment add to the configuration.
type Run struct {
	// NoMCP is --no-mcp: no servers start.
	NoMCP bool
	// SystemPrompt, AppendSystemPrompt, NoContextFiles and Extensions are --system-prompt,
	// --append-system-prompt, -nc and -e.
	SystemPrompt       string
	AppendSystemPrompt []string
	NoContextFiles     bool
	Extensions         []string
	// Getenv reads the environment (HOME, PATH, PIGO_MCP_STARTUP_WAIT, …).
	Getenv func(string) string
	// Version is pigo's version (the MCP client's name).
	Version string
	// OpenURL opens a sign-in page in the browser.
	OpenURL func(string)
}

// Environ is sandbox.HostEnviron through the run's environment.
func (r Run) Environ() sandbox.Environ {
	return sandbox.Environ{Home: r.Getenv("HOME"), Path: r.Getenv("PATH"), UID: os.Getuid(), GID: os.Getgid(), RuntimeDir: r.Getenv("XDG_RUNTIME_DIR")}
}

// Setup resolves a session run's configuration for its model and sub-agent (ag, nil for
// none): the registry, the sandbox policy (a sub-agent's own; an unreadable sandbox.json fails
// the run), the settings, MCP, the proxy and the system prompt.
func Setup(cfg *config.Config, res *config.Resolution, ag *config.AgentInfo, r Run) (*app.Setup, error) {
	st := &app.Setup{}
	var sub *config.ResolvedAgent
	var err error
	if ag != nil {
		if sub, err = cfg.Agent(ag.Name); err != nil {
			return nil, &app.Error{Msg: "--agent: " + err.Error()}
		}
		// A sub-agent runs in its own fixed sandbox (D12), never the user's sandbox.json.
		st.Policy, st.AgentThinking, st.FixedSandbox = sub.Sandbox, ag.ThinkingLevel, true
	} else if st.Policy, _, err = cfg.SandboxPolicy(); err != nil {
		return nil, &app.Error{Msg: "sandbox.json: " + err.Error()}
	}
	if err := Fill(st, cfg, res, r); err != nil {
		return nil, err
	}
	st.MCP = MCP(cfg, res, st.Policy, r)
	if st.Proxy, err = cfg.ProxyURL(); err != nil {
		return nil, err
	}
	// A sub-agent's Markdown body is one more append prompt.
	if sub != nil && strings.TrimSpace(sub.Prompt) != "" {
		r.AppendSystemPrompt = append(append([]string{}, r.AppendSystemPrompt...), strings.TrimSpace(sub.Prompt))
	}
	p := Prompt(cfg, res, r)
	st.SystemPrompt, st.PromptWarnings = p.Text, p.Warnings
	return st, nil
}

// Fill sets what every session takes from the configuration: the workspace, the registry, the
// model's facts, the settings, lsp.json, describe_image's model and spawn-agent's roster, and
// the host facts the sandbox plans use.
func Fill(st *app.Setup, cfg *config.Config, res *config.Resolution, r Run) error {
	cwd, err := filepath.Abs(cfg.ProjectDir)
	if err != nil {
		return err
	}
	st.Cwd, st.AgentDir, st.Registry, st.Commands, st.Environ = cwd, cfg.AgentDir, res.Tools, res.Commands, r.Environ()
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
	st.StartNotices = func() []aft.Notice {
		return aft.StartNotices(res.Tools, aft.AFTStart{Found: a.Found, Tried: a.Tried, Config: a.Config})
	}
	return nil
}

// Prompt builds a session run's system prompt: pi 0.84's layout (prompt.Build) over the
// resolution, the seed's template when a package or -e names one, and the prompt flags.
func Prompt(cfg *config.Config, res *config.Resolution, r Run) prompt.Result {
	cwd, _ := filepath.Abs(cfg.ProjectDir)
	o := prompt.FromResolution(res.Tools, res.Commands)
	o.Cwd, o.AgentDir, o.Trusted, o.Getenv = cwd, cfg.AgentDir, cfg.Trusted, r.Getenv
	var pks []prompt.Package
	for _, p := range cfg.PackageSources() {
		pks = append(pks, prompt.Package{Source: p.Source, Extensions: p.Extensions, Project: p.Project})
	}
	if p := prompt.SeedTemplate(cfg.AgentDir, cwd, pks, r.Extensions); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			o.Template = string(b)
		}
	}
	o.SystemPrompt = r.SystemPrompt
	o.AppendSystemPrompt = r.AppendSystemPrompt
	o.NoContextFiles = r.NoContextFiles
	return prompt.Build(o)
}

// Config is app.Config and app.Settings over package config: the one place a running session
// reaches the configuration files.
type Config struct {
	cfg    *config.Config
	reload func(model string) (*app.Setup, *config.Config, error)
}

// New is the session's configuration cfg; reload loads it again for /reload with the run's
// flags and the model given (nil: /reload fails).
func New(cfg *config.Config, reload func(model string) (*app.Setup, *config.Config, error)) *Config {
	return &Config{cfg: cfg, reload: reload}
}

// Files is the configuration as loaded last (at start or by /reload).
func (x *Config) Files() *config.Config { return x.cfg }

// Load is /reload: the configuration read again with the run's flags for model.
func (x *Config) Load(model string) (*app.Setup, error) {
	if x.reload == nil {
		return nil, errors.New("reload is not available")
	}
	st, cfg, err := x.reload(model)
	if err != nil {
		return nil, err
	}
	x.cfg = cfg
	return st, nil
}

// Model resolves "provider/id" as --model does (config.Model). An unknown model or one whose
// key cannot be resolved is a usage error (exit 2); the unknown one is app.ErrUnknownModel.
func (x *Config) Model(ref, apiKey string) (*llm.Model, error) {
	m, err := x.cfg.Model(ref, apiKey)
	var unknown *config.UnknownModelError
	switch {
	case errors.As(err, &unknown):
		return nil, unknownModelError{&app.Error{Usage: true, Msg: err.Error()}}
	case errors.Is(err, config.ErrModelKey):
		return nil, &app.Error{Usage: true, Msg: err.Error()}
	case err == nil && m == nil:
		return nil, app.ErrNoModel
	}
	return m, err
}

// unknownModelError is --model's unknown-model error (a usage error with its did-you-mean),
// which a session recognises as app.ErrUnknownModel.
type unknownModelError struct{ err *app.Error }

func (e unknownModelError) Error() string   { return e.err.Msg }
func (e unknownModelError) Unwrap() []error { return []error{e.err, app.ErrUnknownModel} }

// Models are the models /model offers (config.ModelRefs).
func (x *Config) Models() []string { return x.cfg.ModelRefs() }

// Sandbox reads sandbox.json again (/bwrap-reload: global, then the trusted project's).
func (x *Config) Sandbox() (sandbox.Policy, error) {
	fresh, err := config.Load(x.cfg.Opts)
	if err != nil {
		return sandbox.Policy{}, err
	}
	p, _, err := fresh.SandboxPolicy()
	return p, err
}

// LSP reads lsp.json again (/lsp-reload).
func (x *Config) LSP() (*lsp.Config, error) {
	fresh, err := config.Load(x.cfg.Opts)
	if err != nil {
		return nil, err
	}
	lc, _, err := fresh.LSPConfig()
	return lc, err
}

// MissingCredential is config.MissingCredential: the provider has no usable credential.
func (x *Config) MissingCredential(m *llm.Model, apiKey string) error {
	return x.cfg.MissingCredential(m, apiKey)
}

// SaveAllow is "always allow": the patterns go to the project's sandbox.json approvalRules.
func (x *Config) SaveAllow(patterns []string) (string, error) {
	return x.cfg.AllowCommands(patterns)
}

// ModelRefs, ConfiguredRefs, SaveSetting, SaveTrust and ProjectDir are app.Settings.
func (x *Config) ModelRefs() []string      { return x.cfg.ModelRefs() }
func (x *Config) ConfiguredRefs() []string { return x.cfg.ConfiguredRefs() }
func (x *Config) ProjectDir() string       { return x.cfg.ProjectDir }
func (x *Config) SaveTrust(arg string) (string, error) {
	return x.cfg.SaveProjectTrust(arg)
}

// SaveSetting goes through Apply, which reads settings.json again under its lock: the
// configuration loaded at start is stale after the first save (a second Edit+Write was refused
// as "changed on disk").
func (x *Config) SaveSetting(key string, v json.RawMessage) error {
	_, err := x.cfg.Apply(config.Settings, config.Global, false, config.EditOp{Op: config.OpSet, Path: key, Value: v})
	return err
}

// SettingsCommands are the chat's configuration commands (app.SettingsCommands) over this
// session's configuration, read again after /reload; settings are the session's settings.json.
func (x *Config) SettingsCommands(settings json.RawMessage) []app.Command {
	var us struct {
		EnabledModels []string `json:"enabledModels"`
	}
	_ = json.Unmarshal(settings, &us)
	return app.SettingsCommands(x, us.EnabledModels)
}

// Providers is how many providers the person configured (the chat's footer names the model's
// provider when there are several, as pi does for providers with credentials).
func (x *Config) Providers() int {
	seen := map[string]bool{}
	for _, ref := range x.cfg.ConfiguredRefs() {
		p, _, _ := strings.Cut(ref, "/")
		seen[p] = true
	}
	return len(seen)
}

// ThemeDirs are the themes folders of a trusted project, the agent dir and the packages, in
// pi's order (the chat's theme search).
func (x *Config) ThemeDirs() []string {
	var places []string
	for _, t := range x.cfg.Themes() {
		places = append(places, t.Path)
	}
	return places
}

var (
	_ app.Config   = (*Config)(nil)
	_ app.Settings = (*Config)(nil)
)
