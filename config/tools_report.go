package config

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/pattern"
	"github.com/pigo-agent/pigo/internal/validate"
)

// Line is the model as `pigo tools` and `pigo explain` name it: provider/id and where its
// facts come from; "(none)" without a model.
func (m *ModelInfo) Line() string {
	if m == nil {
		return "(none)"
	}
	s := m.ID
	if m.Provider != "" {
		s = m.Provider + "/" + m.ID
	}
	return fmt.Sprintf("%s (facts from %s: input %s, reasoning %v)", s, m.Source, strings.Join(m.Input, "+"), m.Reasoning)
}

// UnknownToolFlags warns about the names of --tools and --exclude-tools (flags, by flag) that
// no declaration has: they select nothing, which is most likely a typo.
func (res *Resolution) UnknownToolFlags(flags map[string][]string) diag.List {
	var names []string
	for _, t := range res.Tools.Tools {
		names = append(names, t.Name)
	}
	var l diag.List
	for _, flag := range []string{"--tools", "--exclude-tools"} {
		for _, n := range flags[flag] {
			if slices.Contains(names, n) || strings.Contains(n, "*") && slices.ContainsFunc(names, func(t string) bool { return pattern.MatchStar(n, t) }) {
				continue
			}
			if strings.HasPrefix(n, "mcp__") && res.MCP != nil && !strings.Contains(n, "*") {
				// A server that is not connected (or not cached) yet may offer it.
				continue
			}
			d := l.Add(diag.FileSpan(diag.NewSource(flag, nil)), diag.Warning, "unknown-tool", "",
				fmt.Sprintf("no tool %q is declared: the name selects nothing", n))
			if s := validate.Suggest(n, names); s != "" {
				d.Hint = fmt.Sprintf("did you mean %q?", s)
			}
		}
	}
	return l
}

// WriteTools prints `pigo tools`' text: the sub-agent (agent, nil for none), the model and the
// file toolset, then the registry's table (fit is the width left for its last column).
func (res *Resolution) WriteTools(w io.Writer, agent *AgentInfo, fit func(...[]string) int) error {
	if agent != nil {
		fmt.Fprintf(w, "agent: %s (%s)   tools: %s   sandbox: fs=%s network=%s\n", agent.Name, agent.File,
			engine.ListOrNone(agent.Tools), agent.Sandbox.FS.Mode, agent.Sandbox.Network.Mode)
	}
	fmt.Fprintf(w, "model: %s   file toolset: %s\n", res.Model.Line(), res.Tools.FileIO)
	return res.Tools.WriteText(w, fit)
}

// Explain is `pigo explain TOOL`'s resolution steps for name; a name no declaration has is a
// *Refusal, with the closest declared name when there is one.
func (res *Resolution) Explain(name string) (engine.ExplainResult, error) {
	ex, ok := res.Tools.Explain(name)
	if ok {
		return ex, nil
	}
	var names []string
	for _, t := range res.Tools.Tools {
		names = append(names, t.Name)
	}
	msg := fmt.Sprintf("no tool %q is declared", name)
	if s := validate.Suggest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ex, &Refusal{msg}
}
