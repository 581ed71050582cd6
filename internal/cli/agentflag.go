package cli

import (
	"fmt"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/validate"
)

// agentInfo is the sub-agent part of `pigo tools --agent NAME --format json`.
type agentInfo struct {
	Name          string      `json:"name"`
	File          string      `json:"file"`
	Tools         []string    `json:"tools"`
	Model         string      `json:"model,omitempty"`
	ThinkingLevel string      `json:"thinking_level,omitempty"`
	Sandbox       sandboxJSON `json:"sandbox"`
}

// applyAgent narrows a resolution to a sub-agent (D12): its tools list becomes the strict
// allowlist and its model (when it names one) the session model.
func (c *CLI) applyAgent(cfg *config.Config, name string, o *config.ResolveOptions) (*agentInfo, int) {
	ag, err := cfg.Agent(name)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo: --agent: %v\n", err)
		return nil, ExitFailed
	}
	o.AgentTools = append([]string{}, ag.Tools...)
	o.AgentName = ag.Name
	if ref := ag.ModelRef(); ref != "" {
		o.Model = ref
	}
	return &agentInfo{Name: ag.Name, File: ag.File, Tools: nonNil(ag.Tools), Model: ag.ModelRef(), ThinkingLevel: ag.ThinkingLevel,
		Sandbox: agentSandboxJSON(ag.Sandbox, ag.SandboxFromFrontmatter)}, ExitOK
}

func suggestName(s string, names []string) string { return validate.Suggest(s, names) }
