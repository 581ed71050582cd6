package config

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/spawn"
)

// DefaultAgentTools are the tools of a sub-agent whose frontmatter has no `tools` (read-only).
var DefaultAgentTools = []string{"read", "grep", "find", "ls"}

// agentLevels are the reasoning levels a sub-agent may use ("max" is not one of them).
var agentLevels = map[string]bool{"off": true, "minimal": true, "low": true, "medium": true, "high": true, "xhigh": true}

// ResolvedAgent is one usable sub-agent definition (agents/*.md) with every default applied
// (D12, reference §5).
type ResolvedAgent struct {
	// Name is the frontmatter name, else the file name without ".md".
	Name        string
	Description string
	// File is the Markdown file as found; Scope is "user" (the agent dir) or "project".
	File  string
	Scope string
	// Tools are the frontmatter tools (a list or a comma-separated string), else
	// DefaultAgentTools.
	Tools []string
	// Provider and Model are the resolved model; Model is a bare id (empty when nothing set a
	// model: the session's default model is used). Provider is empty when unresolved.
	Provider string
	Model    string
	// ThinkingLevel is the resolved reasoning level, empty when unset.
	ThinkingLevel string
	// Sandbox is the agent's fixed sandbox: the frontmatter `sandbox` completed with the
	// sandbox.json defaults, else readonly with the network blocked. The user's sandbox.json is
	// never read for sub-agents, and escalation is always refused.
	Sandbox sandbox.Policy
	// SandboxFromFrontmatter is true when the frontmatter declared the sandbox.
	SandboxFromFrontmatter bool
	// Prompt is the Markdown body, appended to the agent's system prompt.
	Prompt string
	// Source is the loaded file.
	Source *File
}

// ModelRef returns the model as "provider/id", a bare id when the provider is unresolved, or ""
// when no model is configured.
func (a *ResolvedAgent) ModelRef() string {
	switch {
	case a.Model == "":
		return ""
	case a.Provider == "":
		return a.Model
	}
	return a.Provider + "/" + a.Model
}

// SkippedAgent is an agent file that is not used, with the reason.
type SkippedAgent struct {
	File   string
	Scope  string
	Reason string
	Source *File
}

// agentDefaults are the values of spawn-agent.json and, behind it, of settings.json.
type agentDefaults struct {
	// spawn holds spawn-agent.json's fields; use is true when the file exists, is valid and
	// sets at least one field: only then do settings.json's defaults apply (reference §5.6).
	spawn    map[string]string
	use      bool
	settings map[string]string
}

// agentTable is the outcome of reading every agent file.
type agentTable struct {
	agents  []*ResolvedAgent
	skipped []SkippedAgent
	// shadowed are agents that lost a name clash, each with the agent that won.
	shadowed []shadowedAgent
}

type shadowedAgent struct {
	lost, won *ResolvedAgent
}

// Agents returns the usable sub-agents, sorted by name, and the agent files that are skipped
// with the reason (broken frontmatter, no frontmatter, an untrusted project, a name taken by a
// project agent or a later file). Agents come from the agent dir's agents/*.md and the
// trusted project's .pi/agents/*.md; the project wins a name clash.
func (c *Config) Agents() ([]ResolvedAgent, []SkippedAgent) {
	t := c.agents()
	out := make([]ResolvedAgent, 0, len(t.agents))
	for _, a := range t.agents {
		out = append(out, *a)
	}
	skipped := append([]SkippedAgent{}, t.skipped...)
	for _, s := range t.shadowed {
		skipped = append(skipped, SkippedAgent{File: s.lost.File, Scope: s.lost.Scope, Source: s.lost.Source,
			Reason: fmt.Sprintf("the name %q is taken by %s", s.lost.Name, s.won.File)})
	}
	sort.SliceStable(skipped, func(i, j int) bool { return skipped[i].File < skipped[j].File })
	return out, skipped
}

// Agent returns the sub-agent called name. The error names the available agents
// ("name: description; ..." or "none"), or says why a file of that name was skipped.
func (c *Config) Agent(name string) (*ResolvedAgent, error) {
	agents, skipped := c.Agents()
	for i := range agents {
		if agents[i].Name == name {
			return &agents[i], nil
		}
	}
	return nil, roster(agents, skipped).Check(name)
}

// Roster is the sub-agents spawn-agent may start, as a value a session resolves once.
func (c *Config) Roster() spawn.Roster { return roster(c.Agents()) }

// addAgentList adds to spawn-agent's guidelines the sub-agents it may start, as the seed adds
// its list at session start (nothing when there are none), so the model knows the names
// without a failed call.
func addAgentList(ext *engine.Extension, r spawn.Roster) {
	if len(r.Agents) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("The sub-agents spawn-agent can start (give the name as `agent`):")
	for _, a := range r.Agents {
		b.WriteString("\n  - `" + a.Name + "`: " + strings.Join(strings.Fields(a.Description), " "))
	}
	for i := range ext.Tools {
		if ext.Tools[i].Name == "spawn-agent" {
			t := &ext.Tools[i]
			t.PromptGuidelines = append(append([]string{}, t.PromptGuidelines...), b.String())
		}
	}
}

func roster(agents []ResolvedAgent, skipped []SkippedAgent) spawn.Roster {
	var r spawn.Roster
	for _, a := range agents {
		r.Agents = append(r.Agents, spawn.Agent{Name: a.Name, Description: a.Description})
	}
	for _, s := range skipped {
		names := []string{strings.TrimSuffix(filepath.Base(s.File), ".md")}
		if s.Source != nil {
			names = append(names, s.Source.Name)
		}
		r.Unusable = append(r.Unusable, spawn.Unusable{Names: names, File: s.File, Reason: s.Reason})
	}
	return r
}

// checkAgentNames reports, as duplicate-name warnings, the agent definitions that lose a name
// clash: a user agent shadowed by a project agent, or an earlier file of one scope shadowed by
// a later one.
func (c *Config) checkAgentNames() diag.List {
	var out diag.List
	for _, s := range c.agents().shadowed {
		f := s.lost.Source
		sp := diag.At(f.Src, 0, 0)
		if f.Root != nil {
			if n := f.Root.Get("name"); n != nil {
				sp = diag.At(f.Src, n.Start, n.End)
			} else {
				sp = diag.At(f.Src, f.Root.Start, f.Root.Start)
			}
		}
		why := "a later file of the same scope wins"
		if s.won.Scope == "project" && s.lost.Scope == "user" {
			why = "the project's agent wins"
		}
		w := out.Add(sp, diag.Warning, "duplicate-name", "name",
			fmt.Sprintf("agent %q is also defined in %s: %s and this file is not used", s.lost.Name, s.won.File, why))
		w.Hint = "rename one of the agents"
	}
	return out
}

// agents reads and resolves every agent file once per call.
func (c *Config) agents() agentTable {
	var t agentTable
	defs := c.agentDefaults()
	byName := map[string]*ResolvedAgent{}
	for _, scope := range []Scope{Global, Project, CLI} {
		for _, f := range c.Files {
			if f.Kind != Agent || f.Scope != scope {
				continue
			}
			c.checkFile(nil, f) // schema checks come from the cache when allowed
			if reason := agentSkipReason(c, f); reason != "" {
				t.skipped = append(t.skipped, SkippedAgent{File: f.Path, Scope: agentScope(f.Scope), Reason: reason, Source: f})
				continue
			}
			a := resolveAgent(f, defs)
			if old := byName[a.Name]; old != nil {
				t.shadowed = append(t.shadowed, shadowedAgent{lost: old, won: a})
			}
			byName[a.Name] = a
		}
	}
	for _, a := range byName {
		t.agents = append(t.agents, a)
	}
	sort.Slice(t.agents, func(i, j int) bool { return t.agents[i].Name < t.agents[j].Name })
	return t
}

func agentScope(s Scope) string {
	if s == Project {
		return "project"
	}
	if s == CLI {
		return "cli"
	}
	return "user"
}

// agentSkipReason says why an agent file is not used, or "".
func agentSkipReason(c *Config, f *File) string {
	if f.Scope == Project && !c.Trusted {
		return "the project is not trusted (" + c.TrustReason + ")"
	}
	if !f.Broken && f.Root != nil && f.Root.Kind == jsonc.Object && !f.Diags.HasErrors() {
		return ""
	}
	// The first error (else warning) of the file, with its position.
	for _, sev := range []diag.Severity{diag.Error, diag.Warning} {
		for _, d := range f.Diags.Sort() {
			if d.Severity != sev {
				continue
			}
			if d.HasPos() {
				l, col := d.Pos()
				return fmt.Sprintf("%d:%d: %s", l, col, d.Message)
			}
			return d.Message
		}
	}
	return "the file could not be read"
}

// agentDefaults reads spawn-agent.json and the settings defaults behind it.
func (c *Config) agentDefaults() agentDefaults {
	d := agentDefaults{spawn: map[string]string{}, settings: map[string]string{}}
	// spawn-agent.json layers (global, then a trusted project's) with any error give nothing:
	// reference §5.6, a broken or wrongly shaped file means no defaults.
	if e, err := c.Effective(SpawnAgent); err == nil {
		for _, f := range e.Layers {
			if f.Diags.HasErrors() || f.Root == nil || f.Root.Kind != jsonc.Object {
				continue
			}
			for _, k := range []string{"provider", "model", "thinkingLevel"} {
				if v := fmString(f.Root.Get(k)); v != "" {
					d.spawn[k] = v
				}
			}
		}
		d.use = len(d.spawn) > 0
	}
	if e, err := c.Effective(Settings); err == nil && e.Root != nil && e.Root.Kind == jsonc.Object {
		for _, k := range []string{"defaultProvider", "defaultModel", "defaultThinkingLevel"} {
			if v := agentEffString(e.Root.Get(k)); v != "" {
				d.settings[k] = v
			}
		}
	}
	return d
}

// effString returns a trimmed string value; blank strings and other kinds are "".
func agentEffString(v *Value) string {
	if v == nil || v.Kind != jsonc.String || v.Node == nil {
		return ""
	}
	return strings.TrimSpace(v.Node.Str)
}

func fmString(n *jsonc.Node) string {
	if n == nil || n.Kind != jsonc.String {
		return ""
	}
	return strings.TrimSpace(n.Str)
}

// splitLevel splits a ":level" suffix off a model when it names a sub-agent reasoning level.
func splitModelLevel(model string) (string, string) {
	if i := strings.LastIndex(model, ":"); i >= 0 && agentLevels[model[i+1:]] {
		return model[:i], model[i+1:]
	}
	return model, ""
}

// resolveAgent applies the defaults of reference §5 to a valid agent file.
func resolveAgent(f *File, d agentDefaults) *ResolvedAgent {
	fm := f.Root
	a := &ResolvedAgent{File: f.Path, Scope: agentScope(f.Scope), Source: f, Name: f.Name,
		Description: fmString(fm.Get("description"))}
	if n := fmString(fm.Get("name")); n != "" {
		a.Name = n
	}
	if a.Name == "" {
		a.Name = resourceName(f.Path, Agent)
	}
	if f.Doc != nil && f.Doc.BodyStart <= len(f.Src.Text) {
		a.Prompt = string(f.Src.Text[f.Doc.BodyStart:])
	}
	a.Tools = agentTools(fm.Get("tools"))

	// Model and provider, per field: frontmatter > spawn-agent.json > settings (the settings
	// fallback only when spawn-agent.json is in use). A "provider/model" is self-contained.
	fallback := func(spawnKey, settingsKey string) string {
		if v := d.spawn[spawnKey]; v != "" {
			return v
		}
		if d.use {
			return d.settings[settingsKey]
		}
		return ""
	}
	model, fmLevel := splitModelLevel(fmString(fm.Get("model")))
	modelLevel := fmLevel
	fromFrontmatter := model != ""
	if !fromFrontmatter {
		var lvl string
		model, lvl = splitModelLevel(fallback("model", "defaultModel"))
		modelLevel = lvl
	}
	provider := fmString(fm.Get("provider"))
	if provider == "" {
		provider = fallback("provider", "defaultProvider")
	}
	if p, m, ok := strings.Cut(model, "/"); ok && p != "" && m != "" {
		provider, model = p, m
	}
	if model != "" {
		a.Provider = provider
	}
	a.Model = model

	// Thinking level: thinkingLevel > thinking > the frontmatter model's suffix >
	// spawn-agent.json (thinkingLevel, then its model's suffix) > settings defaultThinkingLevel.
	level := fmString(fm.Get("thinkingLevel"))
	if level == "" {
		level = fmString(fm.Get("thinking"))
	}
	if level == "" {
		level = fmLevel
	}
	if level == "" {
		level = d.spawn["thinkingLevel"]
	}
	if level == "" && !fromFrontmatter {
		level = modelLevel
	}
	if level == "" && d.use && agentLevels[d.settings["defaultThinkingLevel"]] {
		level = d.settings["defaultThinkingLevel"]
	}
	a.ThinkingLevel = level

	a.Sandbox, a.SandboxFromFrontmatter = agentSandbox(fm.Get("sandbox"))
	return a
}

// agentTools reads `tools`: a list, or names separated by commas; absent means the read-only
// default.
func agentTools(n *jsonc.Node) []string {
	if n == nil || n.Kind == jsonc.Null {
		return append([]string(nil), DefaultAgentTools...)
	}
	out := []string{}
	switch n.Kind {
	case jsonc.String:
		for _, s := range strings.Split(n.Str, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	case jsonc.Array:
		for _, e := range n.Elems {
			if s := fmString(e); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// agentSandbox returns the fixed sandbox of a sub-agent: the frontmatter sandbox completed with
// the sandbox.json defaults, else readonly with the network blocked.
func agentSandbox(n *jsonc.Node) (sandbox.Policy, bool) {
	p := sandbox.DefaultPolicy()
	if n == nil || n.Kind != jsonc.Object {
		p.FSMode, p.NetMode = sandbox.FSReadonly, sandbox.NetBlock
		return p, false
	}
	if fs := n.Get("fs"); fs != nil && fs.Kind == jsonc.Object {
		if m := fmString(fs.Get("mode")); m != "" {
			p.FSMode = m
		}
		agentStrList(fs.Get("writablePaths"), &p.WritablePaths)
		agentStrList(fs.Get("extraWritablePaths"), &p.ExtraWritablePaths)
		agentStrList(fs.Get("denyPaths"), &p.DenyPaths)
	}
	if net := n.Get("network"); net != nil && net.Kind == jsonc.Object {
		if m := fmString(net.Get("mode")); m != "" {
			p.NetMode = m
		}
		agentStrList(net.Get("allowlist"), &p.Allowlist)
		p.MihomoPath = fmString(net.Get("mihomoPath"))
		p.Slirp4netnsPath = fmString(net.Get("slirp4netnsPath"))
	}
	p.BwrapPath = fmString(n.Get("bwrapPath"))
	agentStrList(n.Get("extraArgs"), &p.ExtraArgs)
	return p, true
}

// strList replaces *dst with the strings of an array node when the node is present.
func agentStrList(n *jsonc.Node, dst *[]string) {
	if n == nil || n.Kind != jsonc.Array {
		return
	}
	out := []string{}
	for _, e := range n.Elems {
		if e.Kind == jsonc.String {
			out = append(out, e.Str)
		}
	}
	*dst = out
}
