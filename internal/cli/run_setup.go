package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/llm"
	_ "github.com/pigo-agent/pigo/internal/llm/providers" // the wire clients register themselves
	"github.com/pigo-agent/pigo/internal/prompt"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools"
)

// splitModelFlag reads --model ID | PROVIDER/ID[:THINKING] (with --provider). A suffix that is
// not a thinking level stays part of the id (ids may contain colons).
func splitModelFlag(provider, model string) (ref, thinking string) {
	if i := strings.LastIndex(model, ":"); i > 0 && slices.Contains(thinkingLevels, model[i+1:]) {
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

// runSettings are the settings.json keys a run reads.
type runSettings struct {
	Retry *struct {
		Enabled     *bool `json:"enabled"`
		MaxRetries  *int  `json:"maxRetries"`
		BaseDelayMs *int  `json:"baseDelayMs"`
	} `json:"retry"`
	Compaction *struct {
		Enabled          *bool `json:"enabled"`
		ReserveTokens    *int  `json:"reserveTokens"`
		KeepRecentTokens *int  `json:"keepRecentTokens"`
	} `json:"compaction"`
	SteeringMode         string `json:"steeringMode"`
	FollowUpMode         string `json:"followUpMode"`
	DefaultThinkingLevel string `json:"defaultThinkingLevel"`
}

func (s runSettings) agentSettings() agent.Settings {
	out := agent.DefaultSettings()
	if r := s.Retry; r != nil {
		if r.Enabled != nil {
			out.Retry.Enabled = *r.Enabled
		}
		if r.MaxRetries != nil {
			out.Retry.MaxRetries = *r.MaxRetries
		}
		if r.BaseDelayMs != nil {
			out.Retry.BaseDelayMs = *r.BaseDelayMs
		}
	}
	if c := s.Compaction; c != nil {
		if c.Enabled != nil {
			out.Compaction.Enabled = *c.Enabled
		}
		if c.ReserveTokens != nil {
			out.Compaction.ReserveTokens = *c.ReserveTokens
		}
		if c.KeepRecentTokens != nil {
			out.Compaction.KeepRecentTokens = *c.KeepRecentTokens
		}
	}
	if s.SteeringMode != "" {
		out.SteeringMode = s.SteeringMode
	}
	if s.FollowUpMode != "" {
		out.FollowUpMode = s.FollowUpMode
	}
	return out
}

// prepareRun loads the configuration, resolves the registry for the run's model (and
// sub-agent), opens the session and binds the tools.
func (c *CLI) prepareRun(a *args) (*run, error) {
	if t := a.str("--thinking"); t != "" && !slices.Contains(thinkingLevels, t) {
		return nil, exitf(ExitUsage, "--thinking %q: expected one of %s", t, strings.Join(thinkingLevels, ", "))
	}
	if a.has("--fork") {
		var bad []string
		for _, f := range [][2]string{{"--session", "--session"}, {"-c", "--continue"}, {"--no-session", "--no-session"}} {
			if a.has(f[0]) {
				bad = append(bad, f[1])
			}
		}
		if len(bad) > 0 {
			return nil, exitf(ExitUsage, "--fork cannot be combined with %s", strings.Join(bad, ", "))
		}
	}
	ref, suffix := splitModelFlag(a.str("--provider"), a.str("--model"))
	if ref != "" {
		a.vals["--model"] = []string{ref}
	}
	c.liveMCP = true
	cfg, res, ag, code := c.resolveAgent(a)
	if res == nil {
		return nil, &exitError{code: code}
	}
	r := &run{cfg: cfg, res: res}
	var err error
	var sub *config.ResolvedAgent
	if ag != nil {
		if sub, err = cfg.Agent(ag.Name); err != nil {
			return nil, exitf(ExitFailed, "--agent: %v", err)
		}
		// A sub-agent runs in its own fixed sandbox (D12), never the user's sandbox.json.
		r.policy = sub.Sandbox
	} else if r.policy, _, err = cfg.SandboxPolicy(); err != nil {
		return nil, exitf(ExitFailed, "sandbox.json: %v", err)
	}
	settings, err := cfg.Effective(config.Settings)
	if err != nil {
		return nil, err
	}
	var rs runSettings
	_ = json.Unmarshal(settings.JSON(), &rs)
	r.settings = rs.agentSettings()

	// The session first: a continued session names its model and thinking level.
	if r.sess, err = c.openSession(a, cfg); err != nil {
		return nil, err
	}
	r.closers = append(r.closers, func() { r.sess.Close() })
	ctxInfo := r.sess.Context()
	existing := len(ctxInfo.Messages) > 0

	if res.Model == nil {
		return nil, exitf(ExitUsage, "no model: give --model PROVIDER/ID or set defaultProvider and defaultModel in settings.json")
	}
	if r.model, err = c.llmModel(cfg, res.Model, res.Model.Provider+"/"+res.Model.ID, a.str("--api-key")); err != nil {
		return nil, err
	}
	if r.proxy, err = cfg.ProxyURL(); err != nil {
		return nil, err
	}
	if r.provider, err = providerFor(r.model.API); err != nil {
		return nil, err
	}
	// Thinking: --thinking, the --model suffix, the agent's frontmatter, the session's, then
	// settings, then pi's default; a model without reasoning runs with it off.
	r.thinking = a.str("--thinking")
	hasThinkingEntry := false
	for _, e := range r.sess.Branch("") {
		if e.Type == session.TypeThinkingLevelChange {
			hasThinkingEntry = true
		}
	}
	for _, t := range []string{suffix, agentThinking(ag), sessionThinking(existing, hasThinkingEntry, ctxInfo.ThinkingLevel), rs.DefaultThinkingLevel, "medium"} {
		if r.thinking == "" {
			r.thinking = t
		}
	}
	r.thinking = clampThinking(r.model, r.thinking)
	if !existing {
		if _, err := r.sess.AppendModelChange(r.model.Provider, r.model.ID); err != nil {
			return nil, err
		}
	}
	if !hasThinkingEntry {
		if _, err := r.sess.AppendThinkingLevelChange(r.thinking); err != nil {
			return nil, err
		}
	}

	r.mcp = c.startMCP(a, r)
	if r.tools, err = c.bindTools(cfg, res, r); err != nil {
		return nil, err
	}
	seedCommands(r, ag != nil)
	r.settingsJSON = settings.JSON()
	if err := c.startTalk(r, r.settingsJSON, r.toolSess); err != nil {
		return nil, err
	}
	r.system = c.systemPrompt(a, cfg, res, sub)
	return r, nil
}

// extendedLevels are pi-ai's thinking levels in order.
var extendedLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"}

// clampThinking is pi-ai's clampThinkingLevel: a level the model does not support becomes the
// nearest supported one above it, else below it (a model without reasoning: off; xhigh and
// max only where the model's thinkingLevelMap names them; a level mapped to null is off
// limits).
func clampThinking(m *llm.Model, level string) string {
	supported := []string{"off"}
	if m.Reasoning {
		supported = nil
		for _, l := range extendedLevels {
			mapped, present := m.ThinkingLevelMap[l]
			if present && mapped == nil {
				continue
			}
			if (l == "xhigh" || l == "max") && !present {
				continue
			}
			supported = append(supported, l)
		}
	}
	if slices.Contains(supported, level) {
		return level
	}
	i := slices.Index(extendedLevels, level)
	if i < 0 {
		return supported[0]
	}
	for j := i; j < len(extendedLevels); j++ {
		if slices.Contains(supported, extendedLevels[j]) {
			return extendedLevels[j]
		}
	}
	for j := i - 1; j >= 0; j-- {
		if slices.Contains(supported, extendedLevels[j]) {
			return extendedLevels[j]
		}
	}
	return supported[0]
}

func agentThinking(ag *agentInfo) string {
	if ag == nil {
		return ""
	}
	return ag.ThinkingLevel
}

func sessionThinking(existing, hasEntry bool, level string) string {
	if existing && hasEntry {
		return level
	}
	return ""
}

// openSession applies the session flags: --no-session, --fork, --session, -c, else a new one.
func (c *CLI) openSession(a *args, cfg *config.Config) (*session.Session, error) {
	cwd := cfg.ProjectDir
	loc := session.Locate(cfg.AgentDir, cwd, a.str("--session-dir"), c.getenv(session.EnvDir))
	switch {
	case a.has("--no-session"):
		return session.InMemory(cwd), nil
	case a.has("--fork"):
		p, _, err := session.Resolve(loc, a.str("--fork"))
		if err != nil {
			return nil, exitf(ExitFailed, "%v", err)
		}
		s, err := session.Fork(p, cwd, loc.Dir)
		if err != nil {
			return nil, exitf(ExitFailed, "--fork: %v", err)
		}
		return s, nil
	case a.has("--session"):
		p, global, err := session.Resolve(loc, a.str("--session"))
		if err != nil {
			return nil, exitf(ExitFailed, "%v", err)
		}
		if global {
			return nil, exitf(ExitFailed, "session %s belongs to another project; use --fork %s to continue a copy of it here", p, a.str("--session"))
		}
		s, err := session.Open(p, session.OpenOptions{Dir: loc.Dir, Cwd: cwd})
		if err != nil {
			return nil, exitf(ExitFailed, "--session: %v", err)
		}
		c.sessionWarnings(s)
		return s, nil
	case a.has("-c"):
		if p := session.Recent(loc); p != "" {
			s, err := session.Open(p, session.OpenOptions{Dir: loc.Dir, Cwd: cwd})
			if err != nil {
				return nil, exitf(ExitFailed, "-c: %v", err)
			}
			c.sessionWarnings(s)
			return s, nil
		}
	}
	return session.New(cwd, loc.Dir, session.Options{}), nil
}

func (c *CLI) sessionWarnings(s *session.Session) {
	for _, w := range s.Warnings {
		fmt.Fprintf(c.Stderr, "pigo: %s: warning: %s\n", s.Path(), w)
	}
}

// bindTools turns the registry's active tools into the loop's tools, each running through the
// one execution path (toolrun): the same list, names, descriptions and parameters as
// `pigo tools` shows active.
func (c *CLI) bindTools(cfg *config.Config, res *config.Resolution, r *run) ([]agent.Tool, error) {
	// The same tool session `pigo tool run` builds (shell settings, PI_* environment, file
	// toolset, approval rules), with the run's model, sandbox and session: read-before-write
	// state is replayed from the session's branch, and lsp.json's servers give diagnostics.
	ts, code := c.toolSession(cfg, res)
	if ts == nil {
		return nil, exitf(code, "cannot set up the tools")
	}
	ts.Model = r.model
	ts.Env.Provider, ts.Env.Model = r.model.Provider, r.model.ID
	ts.Sandbox, ts.SandboxErr = r.policy, nil
	ts.Rules = sandbox.CompileRules(r.policy.ApprovalRules)
	ts.Env.SessionID = r.sess.ID()
	if p := r.sess.Path(); p != "" {
		ts.Env.SessionFile = p
	}
	var msgs []llm.Message
	for _, e := range r.sess.Branch("") {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.LLM != nil {
			msgs = append(msgs, *e.Message.LLM)
		}
	}
	ts.Replay(msgs)
	r.toolSess = ts
	r.closers = append(r.closers, ts.Close)
	if l := toolLSP(cfg, ts.Cwd); l != nil {
		ts.LSP = l
		r.lsp = l
		r.closers = append(r.closers, func() { l.Close() })
	}
	impls := tools.All()
	if r.mcp != nil {
		impls = r.mcp.impls(res)
	}
	runner := toolrun.New(res.Tools, impls, ts)
	if r.mcp != nil {
		r.mcp.runner = runner
	}
	return agentTools(runner, r.mcp), nil
}

func agentResult(r toolrun.Result) agent.Result {
	return agent.Result{Content: r.Content, Details: r.Details, Terminate: r.Terminate, IsError: r.IsError}
}

// skills are the run's loaded skills (the resolved command set's skill entries).
func skills(res *config.Resolution) []prompt.Skill {
	return prompt.FromResolution(res.Tools, res.Commands).Skills
}

// systemPrompt builds the run's system prompt (runPrompt: pi 0.84's layout from the resolved
// registry, the prompt flags, SYSTEM.md / APPEND_SYSTEM.md, context files, skills, or the
// seed's template); a sub-agent's Markdown body is appended as one more append prompt.
func (c *CLI) systemPrompt(a *args, cfg *config.Config, res *config.Resolution, sub *config.ResolvedAgent) string {
	if sub != nil && strings.TrimSpace(sub.Prompt) != "" {
		a.vals["--append-system-prompt"] = append(a.list("--append-system-prompt"), strings.TrimSpace(sub.Prompt))
	}
	r := c.runPrompt(a, cfg, res)
	for _, w := range r.Warnings {
		fmt.Fprintf(c.Stderr, "pigo: warning: %s\n", w)
	}
	return r.Text
}

// expander resolves `/name` prompts as pi's print mode does: extension commands, /skill:,
// prompt templates (built-in interactive commands are not dispatched headless; pi sends them
// to the model as text).
func (c *CLI) expander(r *run, out io.Writer) func(ctx context.Context, text string) (string, bool, error) {
	rv := &prompt.Resolver{Commands: r.res.Commands.Commands, Skills: skills(r.res)}
	return func(ctx context.Context, text string) (string, bool, error) {
		if r.talkCommand(text, out) || c.seedCommand(ctx, r, text, out) {
			return "", true, nil
		}
		if handled, err := r.mcpCommand(ctx, text, out); handled {
			return "", true, err
		}
		ex, err := rv.Expand(text)
		if err != nil {
			return "", false, err
		}
		if ex.Kind == prompt.KindRun {
			return "", true, c.runCommand(ctx, r, ex, out)
		}
		return ex.Text, false, nil
	}
}

// runCommand runs a declarative extension command's `run` argv in the sandbox (arguments are
// whole words, never re-parsed by a shell); its output goes to out.
func (c *CLI) runCommand(ctx context.Context, r *run, ex prompt.Expansion, out io.Writer) error {
	line, err := quoteWords(ex.Argv)
	if err != nil {
		return err
	}
	pl, err := sandbox.NewPlan(r.policy, r.cfg.ProjectDir, c.hostEnviron())
	if err != nil {
		return fmt.Errorf("/%s: %v", ex.Command.Invocation, err)
	}
	res, err := sandbox.Run(ctx, pl, line, sandbox.Options{Stdout: out, Stderr: c.Stderr})
	if err != nil {
		return fmt.Errorf("/%s: %v", ex.Command.Invocation, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("/%s: the command exited with code %d", ex.Command.Invocation, res.ExitCode)
	}
	return nil
}

// llmModel turns the session model into what a provider needs (config.ProviderModel:
// models.json's provider and model entries or the catalogue, the API key as pi resolves it).
// A model neither models.json nor the catalogue knows is a usage error.
func (c *CLI) llmModel(cfg *config.Config, mi *config.ModelInfo, flag, apiKey string) (*llm.Model, error) {
	if mi.Source == "defaults" {
		return nil, c.unknownModel(cfg, mi)
	}
	m, err := cfg.ProviderModel(flag, apiKey)
	if err != nil {
		return nil, exitf(ExitUsage, "model %s/%s: %v", mi.Provider, mi.ID, err)
	}
	if m == nil {
		return nil, exitf(ExitUsage, "no model: give --model PROVIDER/ID or set defaultProvider and defaultModel in settings.json")
	}
	return m, nil
}

// unknownModel is the exit-2 error for a model neither models.json nor the catalogue knows.
func (c *CLI) unknownModel(cfg *config.Config, mi *config.ModelInfo) error {
	name := mi.ID
	if mi.Provider != "" {
		name = mi.Provider + "/" + mi.ID
	}
	var known []string
	if models, err := cfg.Effective(config.Models); err == nil {
		var doc struct {
			Providers map[string]struct {
				Models []struct {
					ID string `json:"id"`
				} `json:"models"`
			} `json:"providers"`
		}
		_ = json.Unmarshal(models.JSON(), &doc)
		for p, v := range doc.Providers {
			for _, m := range v.Models {
				known = append(known, p+"/"+m.ID)
			}
		}
	}
	for _, m := range config.CatalogueModels() {
		known = append(known, m.Provider+"/"+m.ID)
	}
	slices.Sort(known)
	msg := fmt.Sprintf("unknown model %q: it is neither in models.json nor in the shipped catalogue", name)
	if s := suggestName(name, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return exitf(ExitUsage, "%s", msg)
}

// providerFor returns the wire client of a models.json "api".
func providerFor(api string) (llm.Provider, error) {
	p, err := llm.ProviderFor(api)
	if err != nil {
		return nil, exitf(ExitUsage, "%v", err)
	}
	return p, nil
}
