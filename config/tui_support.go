package config

import "github.com/pigo-agent/pigo/internal/engine"

// CatalogueModels returns the built-in model catalogue (the models pigo knows facts about
// without a models.json), in catalogue order. The TUI offers them in its model picker.
func CatalogueModels() []engine.Model {
	cat := builtinModels()
	out := make([]engine.Model, 0, len(cat))
	for i := range cat {
		m := cat[i].model()
		out = append(out, engine.Model{Provider: m.Provider, ID: m.ID, Reasoning: m.Reasoning,
			Input: append([]string(nil), m.Input...), ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens})
	}
	return out
}
