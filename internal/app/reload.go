package app

import (
	"strings"

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
	st := *s.setup
	st.Registry, st.Commands, st.Settings, st.SystemPrompt = next.Registry, next.Commands, next.Settings, next.SystemPrompt
	st.Vision, st.Agents = next.Vision, next.Agents
	s.setup = &st
	raw := s.settings
	s.settings = parseSettings(next.Settings)
	// The tool session keeps its shell settings: the tools stay as bound.
	s.settings.shellPath, s.settings.shellCommandPrefix, s.settings.hideSessionEnv = raw.shellPath, raw.shellCommandPrefix, raw.hideSessionEnv
	vision.SetVision(s.tools, st.Vision)
	spawn.SetAgents(s.tools, st.Agents)
	s.rebuild()
	s.mu.Unlock()
	text := ReloadText
	if n := strings.TrimSpace(strings.Join(next.Notes, "\n")); n != "" {
		text = n + "\n" + text
	}
	return text, nil
}
