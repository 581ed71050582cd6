package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ConfiguredRefs are the models of providers the person configured (models.json, or
// providers with a key in the environment): what /model lists first and Ctrl+P cycles.
func (c *Config) ConfiguredRefs() []string {
	var out []string
	for _, ref := range c.ModelRefs() {
		if c.configured(ref) {
			out = append(out, ref)
		}
	}
	return out
}

// configured reports a model of models.json, or of a catalogue provider whose API key is
// in the environment.
func (c *Config) configured(ref string) bool {
	mi, err := c.SessionModel(ref)
	if err != nil || mi == nil {
		return false
	}
	if mi.Source != "" && mi.Source != "catalogue" && mi.Source != "defaults" {
		return true
	}
	p, _, _ := strings.Cut(ref, "/")
	for _, k := range envKeys(p) {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}

// envKeys are the environment variables pi reads a provider's key from.
func envKeys(provider string) []string {
	up := strings.ToUpper(strings.ReplaceAll(provider, "-", "_"))
	keys := []string{up + "_API_KEY"}
	switch provider {
	case "anthropic":
		keys = append(keys, "ANTHROPIC_OAUTH_TOKEN")
	case "google", "gemini":
		keys = append(keys, "GEMINI_API_KEY")
	}
	return keys
}

// SaveProjectTrust is the chat's /trust ARG (always or never): the project folder's decision
// saved in trust.json, as `pigo trust` saves it; it applies when pigo starts again. It returns
// what to tell the person.
func (c *Config) SaveProjectTrust(arg string) (string, error) {
	dir := c.ProjectDir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	var decision *bool
	word := "trusted"
	switch arg {
	case "trust", "always", "":
		t := true
		decision = &t
	case "untrust", "never":
		f := false
		decision, word = &f, "not trusted"
	default:
		return "", errors.New("Usage: /trust [always|never]")
	}
	path, err := SaveTrust(c.AgentDir, dir, decision)
	if err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	return fmt.Sprintf("%s is %s (saved in %s; restart pigo to apply it)", dir, word, path), nil
}
