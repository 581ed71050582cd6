package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Plan is what would run for one file: the servers that handle it and, for
// the others, why not. Its JSON form is the `pigo lsp plan` contract.
type Plan struct {
	// File is the absolute path of the planned file.
	File    string       `json:"file"`
	Servers []ServerPlan `json:"servers"`
	Skipped []Skipped    `json:"skipped"`
	// Warnings repeats the config warnings (bad durations, unknown fields)
	// so the caller can print them next to the plan.
	Warnings []Warning `json:"-"`
}

// ServerPlan is one server to start for the file, fully resolved.
type ServerPlan struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Root string `json:"root"`
	// Argv is the resolved binary followed by the configured args.
	Argv []string `json:"argv"`
	// Cwd is the spawn directory.
	Cwd string `json:"cwd"`
	// Env holds only the configured variables, resolved.
	Env                   map[string]string `json:"env"`
	LanguageID            string            `json:"language_id"`
	InitializationOptions map[string]any    `json:"initialization_options,omitempty"`
	Settings              map[string]any    `json:"settings,omitempty"`
	Timeouts              PlanTimeouts      `json:"timeouts"`
	// Deferred lists the commands planning did not run (Config.DeferCommands): the {sh}
	// env values ("env NAME: argv") and initializationOptionsCommand. Starting the server
	// runs them; `pigo lsp plan` runs nothing.
	Deferred []string `json:"deferred,omitempty"`
	// Environ is the full environment of the server process (the process
	// env overlaid with Env), as sorted K=V strings. Not part of the JSON.
	Environ []string `json:"-"`
}

// PlanTimeouts are the effective durations of one server, in milliseconds.
type PlanTimeouts struct {
	// StartupMs bounds spawn + initialize (startupTimeoutMs, else
	// initializeTimeoutMs).
	StartupMs int64 `json:"startup_ms"`
	// DocumentWaitMs bounds the wait for the first diagnostics of the file
	// (diagnosticsWaitMs, else diagnosticsDocumentWaitTimeoutMs).
	DocumentWaitMs int64 `json:"document_wait_ms"`
	// SilentWaitMs bounds the wait for a follow-up after an empty publish.
	SilentWaitMs int64 `json:"silent_wait_ms"`
	// FullWaitMs bounds the whole diagnostics collection.
	FullWaitMs int64 `json:"full_wait_ms"`
	// DebounceMs is the quiet time after a non-empty publish.
	DebounceMs int64 `json:"debounce_ms"`
	// RequestMs bounds ordinary requests such as shutdown.
	RequestMs int64 `json:"request_ms"`
}

// Skipped is a configured server that does not handle the file.
type Skipped struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
	// Error is true when the server should have handled the file but
	// could not be prepared (bin missing, env command failed, ...).
	Error bool `json:"error,omitempty"`
}

// Plan decides, for file (absolute or relative to cwd), which configured
// servers handle it and how each is started. It returns an error only for
// config-level problems (an unknown id in `enabled`); a server that cannot
// be prepared lands in Skipped with Error set. Servers are in id order.
//
// env is the process environment used for ${VAR}, PATH lookup and the
// children's environment. Commands the config asks for ({sh} env values,
// initializationOptionsCommand) really run here, bounded by the server's
// startup timeout.
func (c *Config) Plan(cwd, file string, env Env) (*Plan, error) {
	return c.PlanContext(context.Background(), cwd, file, env)
}

// PlanContext is Plan with a context that cancels the commands it runs.
func (c *Config) PlanContext(ctx context.Context, cwd, file string, env Env) (*Plan, error) {
	ids := c.ServerIDs()
	if c.Enabled != nil {
		if err := CheckEnabled(c.Enabled, ids); err != nil {
			return nil, err
		}
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("lsp: cwd: %w", err)
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(cwd, file)
	}
	file = filepath.Clean(file)
	plan := &Plan{File: file, Servers: []ServerPlan{}, Skipped: []Skipped{}, Warnings: c.Warnings}
	for _, id := range ids {
		s := c.Servers[id]
		sp, skip := c.planServer(ctx, s, cwd, file, env)
		if skip != nil {
			plan.Skipped = append(plan.Skipped, *skip)
			continue
		}
		plan.Servers = append(plan.Servers, *sp)
	}
	return plan, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (c *Config) planServer(ctx context.Context, s *Server, cwd, file string, env Env) (*ServerPlan, *Skipped) {
	skip := func(reason string) (*ServerPlan, *Skipped) { return nil, &Skipped{ID: s.ID, Reason: reason} }
	fail := func(err error) (*ServerPlan, *Skipped) {
		return nil, &Skipped{ID: s.ID, Reason: err.Error(), Error: true}
	}
	if c.Enabled != nil && !contains(c.Enabled, s.ID) {
		return skip("not listed in enabled")
	}
	if contains(c.Disabled, s.ID) {
		return skip("listed in disabled")
	}
	if !within(file, cwd) {
		return skip(fmt.Sprintf("file is outside the working directory %s", cwd))
	}
	root := serverRoot(s, cwd, file)
	if !within(file, root) {
		return skip(fmt.Sprintf("file is outside the server root %s", root))
	}
	if !s.include.match(includeCandidates(file, root, cwd)) {
		return skip(fmt.Sprintf("include %q does not match the file", s.Include))
	}
	if s.Bin == "" {
		return fail(fmt.Errorf("no bin configured"))
	}
	bin, ok, err := findBin(s.Bin, root, cwd, env["PATH"], c.ProjectTrusted)
	if err != nil {
		return fail(err)
	}
	if !ok {
		return fail(fmt.Errorf("bin %q not found", s.Bin))
	}
	spawnDir := root
	if s.Cwd != "" {
		spawnDir = expandPlaceholders(s.Cwd, root, cwd)
		if !filepath.IsAbs(spawnDir) {
			spawnDir = filepath.Join(cwd, spawnDir)
		}
		spawnDir = filepath.Clean(spawnDir)
	}
	t := c.Timeouts
	startup := t.Initialize
	if s.StartupTimeout > 0 {
		startup = s.StartupTimeout
	}
	docWait := t.DiagnosticsDocumentWait
	if s.DiagnosticsWait > 0 {
		docWait = s.DiagnosticsWait
	}
	var deferred []string
	var vars map[string]string
	var opts map[string]any
	if c.DeferCommands {
		vars, deferred = planEnv(s, root, cwd, env)
		full := env.with(vars)
		if s.InitializationOptions != nil {
			opts = interpolateDeep(s.InitializationOptions, full).(map[string]any)
		}
		if len(s.InitializationOptionsCommand) > 0 {
			deferred = append(deferred, "initializationOptionsCommand: "+strings.Join(s.InitializationOptionsCommand, " "))
		}
	} else {
		vars, err = resolveEnv(ctx, s, root, cwd, spawnDir, env, startup)
		if err != nil {
			return fail(err)
		}
		opts, err = resolveInitOptions(ctx, s, root, cwd, env.with(vars), startup)
		if err != nil {
			return fail(err)
		}
	}
	full := env.with(vars)
	return &ServerPlan{
		ID:                    s.ID,
		Kind:                  s.Kind,
		Root:                  root,
		Argv:                  append([]string{bin}, s.Args...),
		Cwd:                   spawnDir,
		Env:                   vars,
		LanguageID:            LanguageID(file, s.LanguageIDByExtension),
		InitializationOptions: opts,
		Settings:              s.Settings,
		Timeouts: PlanTimeouts{
			StartupMs:      startup.Milliseconds(),
			DocumentWaitMs: docWait.Milliseconds(),
			SilentWaitMs:   t.DiagnosticsSilentWait.Milliseconds(),
			FullWaitMs:     t.DiagnosticsFullWait.Milliseconds(),
			DebounceMs:     t.DiagnosticsDebounce.Milliseconds(),
			RequestMs:      t.DiagnosticsRequest.Milliseconds(),
		},
		Environ:  full.List(),
		Deferred: deferred,
	}, nil
}

// planEnv resolves the plain env values of s and lists the {sh} ones without running them.
func planEnv(s *Server, root, cwd string, env Env) (map[string]string, []string) {
	out := make(map[string]string, len(s.Env))
	var deferred []string
	for _, v := range s.Env {
		if v.Sh != nil {
			deferred = append(deferred, "env "+v.Name+": "+strings.Join(v.Sh, " "))
			continue
		}
		out[v.Name] = expandVars(expandPlaceholders(v.Value, root, cwd), env)
	}
	return out, deferred
}
