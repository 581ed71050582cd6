package engine

import (
	"fmt"
	"slices"

	"github.com/pigo-agent/pigo/internal/diag"
)

// mcpSelection decides the state of every MCP tool (pi 1.6's agent-session and MCP extension):
//   - --exclude-tools removes it; --tools removes it when an entry starts with "mcp__" (or
//     --tools is empty, or --no-tools) and none names or matches it;
//   - a disabled server's tools, and tools with "hidden" exposure, are unreachable;
//   - "direct" tools are declared, unless --tools is given and names or matches none of them
//     (then they are only listed);
//   - "codemode" and "deferred" tools are callable from codemode scripts and loadable by
//     tool_search; the ones tool_search loaded on this branch are declared.
//
// It returns the MCP tools to declare, in registry order (pi registers them once their server
// connects, after every other tool).
func (r *resolver) mcpSelection(winners []*decl, allow, exclude *nameMatcher, allowWhy string, filtersMCP bool) []*decl {
	loaded := map[string]bool{}
	for _, n := range r.in.MCP.Loaded {
		loaded[n] = true
	}
	hasToolSearch := slices.ContainsFunc(winners, func(d *decl) bool { return d.t.Name == toolSearchName && d.state == "" })
	var active []*decl
	for _, d := range winners {
		m := d.t.MCP
		if m == nil {
			continue
		}
		if d.state != "" {
			// personalExtensions decided first (disabled, or codemode-only by a rule).
			if d.state == CodemodeOnly {
				d.step("selection", "codemode-only: "+d.reason, d.rule)
			}
			continue
		}
		name := d.t.Name
		switch {
		case exclude.has(name):
			d.step("selection", "excluded: --exclude-tools", nil)
			d.set(Excluded, "--exclude-tools", nil)
			continue
		case allow != nil && !allow.has(name) && filtersMCP:
			d.step("selection", "excluded: "+allowWhy, nil)
			d.set(Excluded, allowWhy, nil)
			continue
		case m.Disabled:
			why := fmt.Sprintf("MCP server %q is disabled", m.Server)
			d.step("selection", "disabled: "+why, m.DisabledRule)
			d.set(Disabled, why, m.DisabledRule)
			continue
		}
		matched := allow == nil || allow.has(name)
		switch m.Exposure {
		case "hidden":
			d.step("selection", "disabled: exposure hidden", m.ExposureRule)
			d.set(Disabled, "exposure hidden", m.ExposureRule)
		case "direct":
			if !matched {
				why := "exposure direct, but --tools names or matches no such MCP tool: it is not declared"
				d.step("selection", "inactive: "+why, m.ExposureRule)
				d.set(Inactive, why, m.ExposureRule)
				continue
			}
			d.step("selection", "active: exposure direct", m.ExposureRule)
			d.set(Active, "exposure direct", m.ExposureRule)
			active = append(active, d)
		default: // codemode, deferred
			if loaded[name] && (matched || hasToolSearch) {
				why := "loaded by tool_search (exposure " + m.Exposure + ")"
				d.step("selection", "active: "+why, m.ExposureRule)
				d.set(Active, why, m.ExposureRule)
				active = append(active, d)
				continue
			}
			why := "exposure codemode: called from codemode scripts, not declared"
			if m.Exposure == "deferred" {
				why = "exposure deferred: declared once tool_search loads it; codemode scripts can call it"
			}
			d.step("selection", "codemode-only: "+why, m.ExposureRule)
			d.set(CodemodeOnly, why, m.ExposureRule)
		}
	}
	return active
}

// toolSearchName is pi 1.6's tool_search tool, which loads MCP tools.
const toolSearchName = "tool_search"

// codemodeName is the codemode tool.
const codemodeName = "codemode"

// activate is pi's ensureDiscoveryActive: codemode for servers with codemode exposure (unless
// autoEnableCodemode is false, which the caller leaves out of Activate), tool_search for servers
// with deferred exposure. Only a tool on pi's path can be activated (an excluded, disabled or
// unavailable one stays as it is); it is appended to the active list.
func (r *resolver) activate(active []*decl, byName map[string]*decl) []*decl {
	for _, a := range r.in.MCP.Activate {
		d := byName[a.Tool]
		if d == nil || d.state != Inactive {
			continue
		}
		d.steps[len(d.steps)-1].Outcome = "active: " + a.Reason
		d.steps[len(d.steps)-1].Rule = a.Rule
		d.set(Active, a.Reason, a.Rule)
		if !slices.Contains(active, d) {
			active = append(active, d)
		}
	}
	return active
}

// warnUnreachable is pi's warning when MCP tools can be reached only through codemode or
// tool_search and neither is active.
func (r *resolver) warnUnreachable(byName map[string]*decl) {
	if !r.in.MCP.Indirect {
		return
	}
	for _, n := range []string{codemodeName, toolSearchName} {
		if d := byName[n]; d != nil && d.state == Active {
			return
		}
	}
	reason := ""
	if r.in.MCP.NoAutoCodemode {
		reason = " (autoEnableCodemode is false)"
	}
	r.diags.Add(diag.Span{Start: -1, End: -1}, diag.Warning, "mcp-unreachable", "",
		"MCP tools are only reachable from the codemode or tool_search tool, but neither is active"+reason+"; they cannot be called.")
}
