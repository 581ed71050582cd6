package prompt

import "github.com/pigo-agent/pigo/internal/engine"

// FromResolution fills the fields of Options that come from a session start's resolution:
// the active tools, the "Available tools:" lines and guidelines (tools), and the skills in
// load order (the skill entries of cmds; their frontmatter is read for the description and
// disable-model-invocation). The caller adds Cwd, AgentDir, Trusted and the flags.
func FromResolution(tools *engine.Result, cmds *engine.CommandResult) Options {
	var o Options
	if tools != nil {
		o.ActiveTools = tools.Active
		o.ToolLines = tools.SystemPrompt.Tools
		o.Guidelines = tools.SystemPrompt.Guidelines
	}
	if cmds != nil {
		for _, c := range cmds.Commands {
			if c.Source == "skill" {
				o.Skills = append(o.Skills, ReadSkill(c.Name, "", c.File))
			}
		}
	}
	return o
}

// NewResolver returns the /name resolver of a resolved command set, for -p and steering
// input (pi's print mode: built-ins are not dispatched).
func NewResolver(cmds *engine.CommandResult, skills []Skill) *Resolver {
	r := &Resolver{Skills: skills}
	if cmds != nil {
		r.Commands = cmds.Commands
	}
	return r
}
