package cli

import (
	"fmt"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/validate"
)

// agentInfo is the sub-agent part of `pigo tools --agent NAME --format json`.
type agentInfo = config.AgentInfo

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
	return ag.Info(), ExitOK
}

func suggestName(s string, names []string) string { return validate.Suggest(s, names) }
