package app

import (
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/spawn"
	"github.com/pigo-agent/pigo/internal/tools/vision"
)

// ReloadText is pi's /reload status.
const ReloadText = "Reloaded keybindings, extensions, skills, prompts, themes, and context files"

// Reload reads the configuration again and re-resolves it for the current model: commands,
// skills, prompt templates, context files, settings, the system prompt, and the values
// describe_image and spawn-agent use; the bound tools and the sandbox stay as the session
// started. The load's notices come back with the status.
func (s *Session) Reload() (string, error) {
	if s.cfg == nil {
		return "", errNoConfig
	}
	ref := s.State().Model
	next, err := s.cfg.Load(ref)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.adoptLocked(next, false)
	s.mu.Unlock()
	text := ReloadText
	if n := strings.TrimSpace(strings.Join(next.Notes, "\n")); n != "" {
		text = n + "\n" + text
	}
	return text, nil
}

// sessionStarted re-resolves the configuration when a new session starts in this chat (/new,
// /resume, /fork, /clone, /import) with another model than the one its tools were resolved
// for (a /model before it, a resumed session's own model): the seed decides the tools at
// every session start by that session's model, while /model inside a session changes none.
// The registry, commands, settings, system prompt and the tools bound are those of the new
// model. With MCP servers the tools stay as bound (their registry is rebuilt by the servers'
// own refresh). A configuration that cannot be loaded keeps everything and says so in r.
func (s *Session) sessionStarted(r Result) Result {
	if s.cfg == nil {
		return r
	}
	s.mu.Lock()
	m, resolved, mcp := s.model, s.setup.Model, s.mcp
	s.mu.Unlock()
	if m == nil || mcp != nil || (resolved != nil && strings.EqualFold(resolved.Provider, m.Provider) && strings.EqualFold(resolved.ID, m.ID)) {
		return r
	}
	ref := m.Provider + "/" + m.ID
	next, err := s.cfg.Load(ref)
	if err != nil {
		r.Text = strings.TrimSpace("The tools stay those of the previous model: " + err.Error() + "\n" + r.Text)
		return r
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.adoptLocked(next, true)
	return r
}

// adoptLocked takes a configuration loaded again: its registry, commands, settings, system
// prompt and the values describe_image and spawn-agent use. The tool session keeps its shell
// settings. rebind also takes the resolved model and binds the new registry's tools (a new
// session's model); without it the tools stay as bound (/reload). s.mu is held.
func (s *Session) adoptLocked(next *Setup, rebind bool) {
	st := *s.setup
	st.Registry, st.Commands, st.Settings, st.SystemPrompt = next.Registry, next.Commands, next.Settings, next.SystemPrompt
	st.Vision, st.Agents = next.Vision, next.Agents
	if rebind {
		st.Model = next.Model
	}
	s.setup = &st
	raw := s.settings
	s.settings = parseSettings(next.Settings)
	s.settings.shellPath, s.settings.shellCommandPrefix, s.settings.hideSessionEnv = raw.shellPath, raw.shellCommandPrefix, raw.hideSessionEnv
	vision.SetVision(s.tools, st.Vision)
	spawn.SetAgents(s.tools, st.Agents)
	if rebind {
		s.tools.FileIO = next.Registry.FileIO
		s.runner = toolrun.New(next.Registry, s.impls, s.tools)
	}
	s.rebuild()
}
