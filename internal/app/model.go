package app

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pigo-agent/pigo/internal/llm"
)

// ThinkingLevels are the values of --thinking, in order.
var ThinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// extendedLevels are pi-ai's thinking levels in order.
var extendedLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"}

// ClampThinking is pi-ai's clampThinkingLevel: a level the model does not support becomes the
// nearest supported one above it, else below it (a model without reasoning: off; xhigh and
// max only where the model's thinkingLevelMap names them; a level mapped to null is off
// limits).
func ClampThinking(m *llm.Model, level string) string {
	supported := []string{"off"}
	if m.Reasoning {
		supported = nil
		for _, l := range extendedLevels {
			mapped, present := m.ThinkingLevelMap[l]
			if present && mapped == nil {
				continue
			}
			if (l == "xhigh" || l == "max") && !present {
				continue
			}
			supported = append(supported, l)
		}
	}
	if slices.Contains(supported, level) {
		return level
	}
	i := slices.Index(extendedLevels, level)
	if i < 0 {
		return supported[0]
	}
	for j := i; j < len(extendedLevels); j++ {
		if slices.Contains(supported, extendedLevels[j]) {
			return extendedLevels[j]
		}
	}
	for j := i - 1; j >= 0; j-- {
		if slices.Contains(supported, extendedLevels[j]) {
			return extendedLevels[j]
		}
	}
	return supported[0]
}

// useModelLocked makes ref ("provider/id", resolved as --model resolves it, with its wire
// client) the session's model and the tools' session's. Call with s.mu held.
func (s *Session) useModelLocked(ref string) error {
	m, err := s.cfg.Model(ref, "")
	if errors.Is(err, ErrUnknownModel) {
		return fmt.Errorf("Model not found: %s", ref)
	}
	if err != nil {
		return err
	}
	p, err := llm.ProviderFor(m.API)
	if err != nil {
		return err
	}
	s.model, s.provider = m, p
	s.tools.Model = m
	s.tools.Env.Provider, s.tools.Env.Model = m.Provider, m.ID
	return nil
}

// SwitchModel continues the conversation with the model ref ("provider/id", /model): the
// session records a model_change (and the thinking level when clamping changed it).
func (s *Session) SwitchModel(ref string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg == nil {
		return fmt.Errorf("Model not found: %s", ref)
	}
	old, oldProvider := s.model, s.provider
	if err := s.useModelLocked(ref); err != nil {
		return err
	}
	if _, err := s.file.AppendModelChange(s.model.Provider, s.model.ID); err != nil {
		s.model, s.provider = old, oldProvider
		s.tools.Model = old
		s.tools.Env.Provider, s.tools.Env.Model = old.Provider, old.ID
		return err
	}
	if t := ClampThinking(s.model, s.thinking); t != s.thinking {
		s.thinking = t
		if _, err := s.file.AppendThinkingLevelChange(t); err != nil {
			return err
		}
	}
	s.rebuild()
	return nil
}
