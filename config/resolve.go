package config

import (
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/catalog"
	"github.com/pigo-agent/pigo/internal/cond"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/mcp"
)

// ResolveOptions are pi's selection flags and the session model for one resolution.
type ResolveOptions struct {
	// Model is --model (PROVIDER/ID); empty means the settings' default model, if any.
	Model string
	// Tools and ExcludeTools are --tools / --exclude-tools; nil means not given.
	Tools, ExcludeTools []string
	NoBuiltinTools      bool
	NoTools             bool
	// AgentTools and AgentName describe a sub-agent's `tools` list (a strict allowlist).
	AgentTools []string
	AgentName  string
	// Headless is true when no person is at a terminal.
	Headless bool
	// NoMCP is --no-mcp: no MCP servers and no MCP tools for this run.
	NoMCP bool
	// MCPTools, in a session, returns the tools a connected server offers (nil while it is not
	// connected); nil reads the schema cache instead, as `pigo tools` does.
	MCPTools func(s *mcp.Server) *mcp.ToolList
	// MCPLoaded are the tools tool_search loaded on the session's branch.
	MCPLoaded []string
}

// Resolution is a resolved session start: the tool registry and the slash commands.
type Resolution struct {
	Model    *ModelInfo
	Tools    *engine.Result
	Commands *engine.CommandResult
	// Diags are problems met while collecting declarations (skipped extension files).
	Diags diag.List
	// MCP maps every declared MCP tool name to its server tool (empty without MCP).
	MCP map[string]MCPBinding
	// Options are the options it was resolved with (a session resolves again when its MCP
	// servers' tools change).
	Options ResolveOptions
}

// Resolve collects every declaration (D6 load order), builds the condition environment and
// the personalExtensions rules from the effective settings, and runs the engine (D9).
func (c *Config) Resolve(o ResolveOptions) (*Resolution, error) {
	model, err := c.SessionModel(o.Model)
	if err != nil {
		return nil, err
	}
	settings, err := c.Effective(Settings)
	if err != nil {
		return nil, err
	}
	exts, builtins, prompts, skills, ds, err := c.declarations()
	if err != nil {
		return nil, err
	}
	mcpBuiltin, mcpExts, mcpIn, bind, mcpDiags := c.mcpDeclarations(o)
	if len(mcpBuiltin) > 0 {
		// tool_search is a built-in: after pi's own, before every extension.
		i := 0
		for i < len(exts) && exts[i].Source.Kind == engine.KindBuiltin {
			i++
		}
		exts = append(exts[:i], append(mcpBuiltin, exts[i:]...)...)
	}
	exts = append(exts, mcpExts...)
	ds = append(ds, mcpDiags...)
	env := c.condEnv(settings, o.Headless)
	in := &engine.Input{Extensions: exts, Env: env, Personal: personal(settings.Root), MCP: mcpIn,
		Flags: engine.Flags{Tools: o.Tools, ExcludeTools: o.ExcludeTools, NoBuiltinTools: o.NoBuiltinTools, NoTools: o.NoTools,
			AgentTools: o.AgentTools, AgentName: o.AgentName}}
	if settings.Root != nil {
		if dt := settings.Root.Get("defaultTools"); dt != nil && dt.Kind == jsonc.Array {
			in.DefaultTools = []string{}
			for _, e := range dt.Elems {
				if s := scalarString(e); s != "" {
					in.DefaultTools = append(in.DefaultTools, s)
				}
			}
			in.DefaultToolsSpan = dt.Span()
		}
	}
	var em *engine.Model
	if model != nil {
		m := model.Model
		em = &m
	}
	in.Model = em
	res := &Resolution{Model: model, Diags: ds, Tools: engine.Resolve(in), MCP: bind, Options: o}
	enableSkills := true
	if settings.Root != nil {
		if v := settings.Root.Get("enableSkillCommands"); v != nil && v.Node.Kind == jsonc.Bool {
			enableSkills = v.Node.Bool
		}
	}
	res.Commands = engine.ResolveCommands(&engine.CommandInput{Builtins: builtins, Prompts: prompts, Extensions: exts,
		Skills: skills, EnableSkillCommands: enableSkills, Model: em, Env: env})
	return res, nil
}

// lookPath is the conditions' which() (cond.LookPath; tests count its calls).
var lookPath = cond.LookPath

// lookAhead answers which() for the names the shipped conditions give it as a literal
// (which("gh"), which("pigo-engines")) with look, the resolution's lookPath as Load found
// it: Load's goroutine runs it after Prepare, on the other core, and the first resolution
// takes the answers (condEnv). nil when the catalogue does not load.
func lookAhead(look func(string) bool) map[string]bool {
	shipped, err := catalog.Shipped()
	if err != nil {
		return nil
	}
	m := map[string]bool{}
	add := func(when string) {
		for {
			i := strings.Index(when, `which("`)
			if i < 0 {
				return
			}
			when = when[i+len(`which("`):]
			j := strings.IndexAny(when, `"\`)
			if j < 0 {
				return
			}
			if when[j] == '"' {
				if _, ok := m[when[:j]]; !ok {
					m[when[:j]] = look(when[:j])
				}
			}
			when = when[j:]
		}
	}
	for i := range shipped {
		for _, t := range shipped[i].Tools {
			add(t.When)
		}
		for _, c := range shipped[i].Commands {
			add(c.When)
		}
	}
	return m
}

// condEnv builds the environment `when` conditions see (D7).
func (c *Config) condEnv(settings *Effective, headless bool) cond.Env {
	env := cond.Env{OS: runtime.GOOS, Arch: runtime.GOARCH, Headless: headless, Which: lookPath}
	if c.whichAhead != nil {
		// The first resolution of a Load takes the answers its goroutine found, if it has
		// found them by now (no waiting); a name it did not look up, and every later
		// resolution (a session's, when its MCP tools change), asks PATH again.
		if m := c.whichAhead.Load(); m != nil {
			env.Which = func(name string) bool {
				if v, ok := (*m)[name]; ok {
					return v
				}
				return lookPath(name)
			}
		}
		c.whichAhead = nil
	}
	customEnv := c.Opts.Getenv != nil
	// settings and env are built only if a condition outside cond's own subset is evaluated.
	env.Lazy(func() (map[string]any, map[string]string) {
		m, e := map[string]any{}, map[string]string{}
		_ = json.Unmarshal(settings.JSON(), &m)
		if !customEnv {
			// A custom environment (tests) replaces the process environment for conditions.
			for _, kv := range os.Environ() {
				if k, v, ok := strings.Cut(kv, "="); ok {
					e[k] = v
				}
			}
		}
		return m, e
	})
	env.LSP.Servers = c.enabledLSPServers()
	a := c.AFT()
	env.AFT.Found = a.Available()
	env.AFT.Search, _ = a.Config.SearchReady()
	env.Vision.Resolved = c.visionResolved(settings)
	return env
}

// visionResolved reports whether settings.visionConfig names a model whose provider (or
// defaultProvider) and id models.json or the catalogue know: the seed registers describe_image
// only then.
func (c *Config) visionResolved(settings *Effective) bool {
	if settings == nil || settings.Root == nil {
		return false
	}
	vc := settings.Root.Get("visionConfig")
	if vc == nil || vc.Kind != jsonc.Object {
		return false
	}
	model := strings.TrimSpace(scalarString(vc.Get("model")))
	provider := strings.TrimSpace(scalarString(vc.Get("provider")))
	if provider == "" {
		provider = strings.TrimSpace(scalarString(settings.Root.Get("defaultProvider")))
	}
	if model == "" || provider == "" {
		return false
	}
	info, err := c.SessionModel(provider + "/" + model)
	return err == nil && info != nil && info.Source != "defaults"
}

// enabledLSPServers lists the ids of the effective lsp.json servers that are enabled.
func (c *Config) enabledLSPServers() []string {
	e, err := c.Effective(LSP)
	if err != nil || e.Root == nil {
		return []string{}
	}
	servers := e.Root.Get("servers")
	if servers == nil || servers.Kind != jsonc.Object {
		return []string{}
	}
	list := func(key string) ([]string, bool) {
		v := e.Root.Get(key)
		if v == nil || v.Kind != jsonc.Array {
			return nil, false
		}
		var out []string
		for _, el := range v.Elems {
			out = append(out, scalarString(el))
		}
		return out, true
	}
	enabled, hasEnabled := list("enabled")
	disabled, _ := list("disabled")
	out := []string{}
	for _, m := range servers.Members {
		if hasEnabled && !slices.Contains(enabled, m.Key) || slices.Contains(disabled, m.Key) {
			continue
		}
		out = append(out, m.Key)
	}
	slices.Sort(out)
	return out
}

// engineScope maps a file scope onto pi's source scope.
func engineScope(s Scope) engine.Scope {
	switch s {
	case Global:
		return engine.ScopeUser
	case Project:
		return engine.ScopeProject
	}
	return engine.ScopeTemporary
}

// declarations collects tools and commands in D6 load order: pi's built-ins, then -e files, the
// trusted project's extensions/, the agent dir's extensions/, then the shipped toolsets.
func (c *Config) declarations() ([]engine.Extension, []engine.BuiltinCommand, []engine.PromptTemplate, []engine.Skill, diag.List, error) {
	var ds diag.List
	shipped, err := catalog.Shipped()
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	var exts []engine.Extension
	var builtins []engine.BuiltinCommand
	var shippedExts []engine.Extension
	for i := range shipped {
		e := &shipped[i]
		src := diag.NewSource(e.File, e.Src)
		if e.Builtin {
			for _, cmd := range e.Commands {
				builtins = append(builtins, engine.BuiltinCommand{Name: cmd.Name, ArgumentHint: cmd.ArgumentHint,
					Description: cmd.Description, Match: cmd.Match, Hidden: cmd.Hidden})
			}
			if len(e.Tools) > 0 {
				exts = append(exts, toEngine(e, src, engine.Source{Kind: engine.KindBuiltin, Name: e.Name, File: e.File, Scope: engine.ScopeTemporary}))
			}
			continue
		}
		ext := toEngine(e, src, engine.Source{Kind: engine.KindToolset, Name: e.Name, File: e.File, Scope: engine.ScopeTemporary})
		if e.Name == "spawn-agent" {
			addAgentList(&ext, c.Roster())
		}
		shippedExts = append(shippedExts, ext)
	}
	userExt := func(scope Scope) {
		for _, f := range c.Files {
			if f.Kind != Extension || f.Scope != scope {
				continue
			}
			if scope == Project && !c.Trusted {
				continue
			}
			c.checkFile(nil, f)
			if f.Broken || f.Root == nil || f.Diags.HasErrors() {
				continue // said once by NotApplied
			}
			e := catalog.Decode(f.Root, f.Path, "extension")
			kind := engine.KindExtension
			if scope == CLI {
				kind = engine.KindCLI
			}
			exts = append(exts, toEngine(&e, f.Src, engine.Source{Kind: kind, Name: e.Name, File: f.Path, Scope: engineScope(scope)}))
		}
	}
	userExt(CLI)
	userExt(Project)
	userExt(Global)
	exts = append(exts, shippedExts...)

	var prompts []engine.PromptTemplate
	var skills []engine.Skill
	add := func(f *File, scope engine.Scope) {
		c.checkFile(nil, f)
		if f.Broken || !f.Applied {
			return
		}
		tag := ""
		if f.Package != nil {
			tag = f.Package.Source.Tag()
		}
		switch f.Kind {
		case Prompt:
			p := promptOf(f, scope)
			p.Package = tag
			prompts = append(prompts, p)
		case Skill:
			d := ""
			if n := f.Root.Get("description"); n != nil {
				d = n.Str
			}
			skills = append(skills, engine.Skill{Name: f.Name, Description: d, File: f.Path, Scope: scope, Package: tag, Span: diag.FileSpan(f.Src)})
		}
	}
	resource := func(f *File) bool { return f.Kind == Prompt || f.Kind == Skill }
	// pi's order (host-behaviour §1.5): -e packages' resources, the project's own (it wins
	// name clashes), the agent dir's, then the settings packages' in declaration order.
	for _, f := range c.Files {
		if resource(f) && f.Package != nil && f.Scope == CLI {
			add(f, engine.ScopeTemporary)
		}
	}
	for _, scope := range []Scope{Project, Global} {
		if scope == Project && !c.Trusted {
			continue
		}
		for _, f := range c.Files {
			if resource(f) && f.Package == nil && f.Scope == scope {
				add(f, engineScope(scope))
			}
		}
	}
	for _, f := range c.Files {
		if resource(f) && f.Package != nil && f.Scope != CLI {
			add(f, engineScope(f.Scope))
		}
	}
	return exts, builtins, prompts, skills, ds, nil
}

// promptOf reads a prompt template's menu facts (host-behaviour §4.2).
func promptOf(f *File, scope engine.Scope) engine.PromptTemplate {
	p := engine.PromptTemplate{Name: resourceName(f.Path, Prompt), File: f.Path, Scope: scope, Span: diag.FileSpan(f.Src)}
	if f.Root != nil {
		if d := f.Root.Get("description"); d != nil && d.Kind == jsonc.String {
			p.Description = d.Str
		}
		if h := f.Root.Get("argument-hint"); h != nil && h.Kind == jsonc.String {
			p.ArgumentHint = h.Str
		}
	}
	if p.Description == "" && f.Doc != nil {
		body := f.Src.Text[f.Doc.BodyStart:]
		for _, line := range strings.Split(string(body), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				if r := []rune(line); len(r) > 60 {
					line = string(r[:60]) + "..."
				}
				p.Description = line
				break
			}
		}
	}
	return p
}

func toEngine(e *catalog.Ext, src *diag.Source, source engine.Source) engine.Extension {
	out := engine.Extension{Source: source, OverridesBuiltins: e.OverridesBuiltins}
	// Sized once: appending grew the shipped catalogue's ~90 tools through every doubling.
	if len(e.Tools) > 0 {
		out.Tools = make([]engine.Tool, 0, len(e.Tools))
	}
	if len(e.Commands) > 0 {
		out.Commands = make([]engine.ExtCommand, 0, len(e.Commands))
	}
	sp := func(a, b int) diag.Span {
		if a < 0 {
			return diag.FileSpan(src)
		}
		return diag.At(src, a, b)
	}
	for _, t := range e.Tools {
		out.Tools = append(out.Tools, engine.Tool{Name: t.Name, Label: t.Label, Description: t.Description,
			PromptSnippet: t.PromptSnippet, PromptGuidelines: t.PromptGuidelines, Structured: t.Structured,
			CodemodeOnly: t.CodemodeOnly, Unit: t.Unit, When: t.When, WhenSpan: sp(t.WhenOff, t.WhenEnd),
			FileIO: e.FileIO, Span: sp(t.NameOff, t.NameEnd), Parameters: t.Parameters, Output: t.Output, Exec: t.Exec})
	}
	for _, cmd := range e.Commands {
		out.Commands = append(out.Commands, engine.ExtCommand{Name: cmd.Name, Description: cmd.Description,
			ArgumentHint: cmd.ArgumentHint, When: cmd.When, WhenSpan: sp(cmd.WhenOff, cmd.WhenEnd), Span: sp(cmd.NameOff, cmd.NameEnd),
			Prompt: cmd.Prompt, Run: cmd.Run})
	}
	return out
}

// personal reads the effective personalExtensions section into the engine's rules, keeping the
// file and span of every rule and pattern. Entries of the wrong shape are left out (check
// reports them), as the seed skips a bad item and applies the rest.
func personal(root *Value) engine.Personal {
	var p engine.Personal
	pe := root.Get("personalExtensions")
	if pe == nil || pe.Kind != jsonc.Object {
		return p
	}
	if v := pe.Get("fileIo"); v != nil {
		if s := scalarString(v); s == engine.FileIOClaudeCode || s == engine.FileIOOpencode {
			p.FileIO, p.FileIOSpan = s, v.Span()
		}
	}
	if v := pe.Get("fileIoByModel"); v != nil && v.Kind == jsonc.Array {
		for i, e := range v.Elems {
			fio := scalarString(e.Get("fileIo"))
			if e.Kind != jsonc.Object || (fio != engine.FileIOClaudeCode && fio != engine.FileIOOpencode) {
				continue
			}
			p.FileIOByModel = append(p.FileIOByModel, engine.FileIOEntry{Index: i, Models: patterns(e.Get("models")), FileIO: fio, Span: e.Span()})
		}
	}
	rules := func(field string) []engine.Rule {
		v := pe.Get(field)
		if v == nil || v.Kind != jsonc.Array {
			return nil
		}
		var out []engine.Rule
		for i, e := range v.Elems {
			switch e.Kind {
			case jsonc.String:
				out = append(out, engine.Rule{Field: field, Index: i, Tools: []engine.Pattern{{Text: e.Node.Str, Span: e.Span()}}, Span: e.Span()})
			case jsonc.Object:
				tools := e.Get("tools")
				if tools == nil || tools.Kind != jsonc.Array {
					continue
				}
				r := engine.Rule{Field: field, Index: i, Tools: patterns(tools), Models: patterns(e.Get("models")), Span: e.Span()}
				if w := e.Get("when"); w != nil && w.Node.Kind == jsonc.String {
					r.When, r.WhenSpan = w.Node.Str, w.Span()
				}
				out = append(out, r)
			}
		}
		return out
	}
	p.DisabledTools = rules("disabledTools")
	p.EnabledTools = rules("enabledTools")
	p.CodemodeOnlyTools = rules("codemodeOnlyTools")
	return p
}

func patterns(v *Value) []engine.Pattern {
	if v == nil || v.Kind != jsonc.Array {
		return nil
	}
	var out []engine.Pattern
	for _, e := range v.Elems {
		if e.Node != nil && e.Node.Kind == jsonc.String {
			out = append(out, engine.Pattern{Text: e.Node.Str, Span: e.Span()})
		}
	}
	return out
}

// Prepare does, ahead of a resolution, the part of its work that no configuration changes:
// the shipped catalogue (catalog.Shipped, decoded once per process) and the `when` conditions
// of its tools and commands (compiled once per process by cond). A command that loads and
// then resolves has Load run it on another goroutine, so that it runs on the other core while
// the load reads and checks files; the resolution then finds both done, or waits for what is
// under way. It changes no result: it computes what the resolution would compute
// itself, into the same per-process caches. Load runs it when Options.Resolving.
func Prepare() {
	shipped, err := catalog.Shipped()
	if err != nil {
		return // the resolution reports it
	}
	for i := range shipped {
		for _, t := range shipped[i].Tools {
			if t.When != "" {
				_, _ = cond.Compile(t.When)
			}
		}
		for _, c := range shipped[i].Commands {
			if c.When != "" {
				_, _ = cond.Compile(c.When)
			}
		}
	}
}
