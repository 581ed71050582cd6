package config

import (
	"fmt"
	"time"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/mcp"
)

// MCPBinding says which server tool a registry name stands for.
type MCPBinding struct {
	Server string // "" for the resource tools
	Tool   string
}

// MCPCache is the schema cache of this configuration's home and environment.
func (c *Config) MCPCache() mcp.Cache {
	return mcp.Cache{Dir: mcp.CacheDir(c.Opts.getenv, c.Home)}
}

// mcpSpan is the span of a position in a loaded file (the whole file when it is not loaded).
func (c *Config) mcpSpan(p mcp.Position) diag.Span {
	for _, f := range c.Files {
		if f.Path == p.File && f.Src != nil {
			if p.Line == 0 {
				return diag.FileSpan(f.Src)
			}
			off := f.Src.Offset(p.Line, p.Column)
			return diag.At(f.Src, off, off+1)
		}
	}
	return diag.FileSpan(diag.NewSource(p.File, nil))
}

func ref(p *mcp.Position, text string) *engine.RuleRef {
	if p == nil {
		return nil
	}
	return &engine.RuleRef{File: p.File, Line: p.Line, Column: p.Column, Text: text}
}

// mcpDeclarations turns the effective mcp.json into engine declarations: one extension per
// server with a known tool list (the session's live list, else the schema cache), the resource
// tools, and tool_search; with pi's activations of codemode and tool_search. bind maps every
// declared MCP name to its server tool.
func (c *Config) mcpDeclarations(o ResolveOptions) (builtin []engine.Extension, exts []engine.Extension, in engine.MCPInput, bind map[string]MCPBinding, ds diag.List) {
	bind = map[string]MCPBinding{}
	if o.NoMCP {
		return
	}
	cfg := c.MCP()
	if len(cfg.Servers) == 0 {
		return
	}
	cache := c.MCPCache()
	owners := map[string]string{} // tool name → "server\x00tool" (pi's toolOwners)
	var resourceExposures []string
	var resourceRules []*engine.RuleRef
	anyEnabled := false
	for _, s := range cfg.Servers {
		if s.Enabled {
			anyEnabled = true
			if s.HasIndirectTools() {
				in.Indirect = true
			}
		}
		var list *mcp.ToolList
		stale := false
		switch {
		case o.MCPTools != nil:
			if s.Enabled {
				list = o.MCPTools(s)
			}
		default:
			var ok bool
			list, stale, ok = cache.Load(s)
			if !ok {
				if s.Enabled {
					d := ds.Add(c.mcpSpan(s.Source), diag.Info, "mcp-not-cached", "mcpServers."+s.Name,
						fmt.Sprintf("MCP server %q has not connected yet: its tools are not listed", s.Name))
					d.Hint = "`pigo mcp list` connects every server and caches its tools"
				}
				continue
			}
			if stale && s.Enabled {
				d := ds.Add(c.mcpSpan(s.Source), diag.Warning, "mcp-cache-stale", "mcpServers."+s.Name,
					fmt.Sprintf("the tools of MCP server %q are listed as it offered them on %s; its entry changed since", s.Name, list.Time.UTC().Format(time.DateTime)))
				d.Hint = "`pigo mcp list` connects every server and refreshes the cache"
			}
		}
		if list == nil {
			continue
		}
		if s.Enabled && list.HasResources && s.ServerExposure() != mcp.ExposureHidden {
			resourceExposures = append(resourceExposures, s.ServerExposure())
			at := s.ExposureAt
			if at == nil {
				at = &s.Source
			}
			resourceRules = append(resourceRules, ref(at, fmt.Sprintf("server %q offers resources (exposure %s)", s.Name, s.ServerExposure())))
		}
		names := make([]string, len(list.Tools))
		for i, t := range list.Tools {
			names[i] = t.Name
		}
		assigned := mcp.AssignNames(s.Name, names, func(name, owner string) bool {
			o, ok := owners[name]
			return ok && o != owner
		})
		src := c.mcpSpan(s.Source)
		ext := engine.Extension{Source: engine.Source{Kind: engine.KindMCP, Name: s.Name, File: s.Source.File,
			Line: s.Source.Line, Column: s.Source.Column, Scope: engineScope(Scope(s.Scope))}}
		seen := map[string]bool{}
		for i, t := range list.Tools {
			name := assigned[i]
			if seen[name] {
				continue
			}
			seen[name] = true
			owners[name] = s.Name + "\x00" + t.Name
			bind[name] = MCPBinding{Server: s.Name, Tool: t.Name}
			exposure, key := s.ToolExposureWhere(t.Name)
			var rule *engine.RuleRef
			switch {
			case key != "":
				p := s.ToolExposureAt[key]
				rule = ref(&p, fmt.Sprintf("toolExposure %q: %s", key, exposure))
			case s.ExposureAt != nil:
				rule = ref(s.ExposureAt, "exposure: "+exposure)
			default:
				rule = ref(&s.Source, fmt.Sprintf("server %q (exposure %s by default)", s.Name, exposure))
			}
			m := &engine.MCPTool{Server: s.Name, Tool: t.Name, Exposure: exposure, ExposureRule: rule, Stale: stale}
			if !s.Enabled {
				m.Disabled = true
				at := s.EnabledAt
				if at == nil {
					at = &s.Source
				}
				m.DisabledRule = ref(at, "enabled: false")
			}
			ext.Tools = append(ext.Tools, engine.Tool{Name: name, Label: mcp.Label(s.Name, t.Name),
				Description: t.ModelDescription(s.Name), Structured: true, Unit: "mcp", Span: src,
				Parameters: params(list, t), Output: mcp.ResultSchema(t.OutputSchema), MCP: m})
		}
		exts = append(exts, ext)
	}
	if len(resourceExposures) > 0 {
		exposure := ""
		var rule *engine.RuleRef
		for _, want := range []string{mcp.ExposureDirect, mcp.ExposureCodemode, mcp.ExposureDeferred} {
			for i, e := range resourceExposures {
				if e == want && exposure == "" {
					exposure, rule = want, resourceRules[i]
				}
			}
		}
		ext := engine.Extension{Source: engine.Source{Kind: engine.KindMCP, Name: "resources", File: cfg.GlobalFile}}
		for _, r := range mcp.ResourceDecls {
			bind[r.Name] = MCPBinding{Tool: r.Name}
			ext.Tools = append(ext.Tools, engine.Tool{Name: r.Name, Label: r.Name, Description: r.Description, Structured: true,
				Unit: "mcp", Span: diag.FileSpan(diag.NewSource(cfg.GlobalFile, nil)), Parameters: r.Parameters, Output: r.Output,
				MCP: &engine.MCPTool{Tool: r.Name, Exposure: exposure, ExposureRule: rule}})
		}
		exts = append(exts, ext)
	}
	if !anyEnabled {
		return
	}
	builtin = append(builtin, engine.Extension{Source: engine.Source{Kind: engine.KindBuiltin, Name: "tool_search", File: "builtin:tool_search"},
		Tools: []engine.Tool{{Name: mcp.ToolSearchName, Label: mcp.ToolSearchName, Description: mcp.ToolSearchDescription,
			PromptSnippet: mcp.ToolSearchSnippet, Unit: "tool_search", Span: diag.FileSpan(diag.NewSource("builtin:tool_search", nil)),
			Parameters: []byte(mcp.ToolSearchParameters)}}})
	// pi's ensureDiscoveryActive, from the configuration (before the servers connect).
	for _, s := range cfg.Servers {
		if !s.Enabled {
			continue
		}
		e := s.ConfiguredExposures()
		at := s.ExposureAt
		if at == nil {
			at = &s.Source
		}
		if e[mcp.ExposureCodemode] && cfg.AutoCodemode() && !hasActivation(in.Activate, "codemode") {
			in.Activate = append(in.Activate, engine.Activation{Tool: "codemode",
				Reason: fmt.Sprintf("activated for MCP server %q (exposure codemode)", s.Name), Rule: ref(at, "exposure: codemode")})
		}
		if e[mcp.ExposureDeferred] && !hasActivation(in.Activate, mcp.ToolSearchName) {
			in.Activate = append(in.Activate, engine.Activation{Tool: mcp.ToolSearchName,
				Reason: fmt.Sprintf("activated for MCP server %q (exposure deferred)", s.Name), Rule: ref(at, "exposure: deferred")})
		}
	}
	in.NoAutoCodemode = !cfg.AutoCodemode()
	in.Loaded = o.MCPLoaded
	return
}

func hasActivation(list []engine.Activation, tool string) bool {
	for _, a := range list {
		if a.Tool == tool {
			return true
		}
	}
	return false
}

// params is a tool's input schema as the model is sent it.
func params(l *mcp.ToolList, t mcp.Tool) []byte {
	if l.Normalized {
		return t.InputSchema
	}
	return mcp.InputSchema(t.InputSchema)
}
