package config

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// OpenAICostEntry reports whether an extension path (an -e argument or an entry of
// settings.json's extensions) is the seed's openai-cost entry: src/openai-cost/index.ts (or
// index.js), or the openai-cost folder holding it. The seed leaves openai-cost out of its
// package's pi.extensions, so installing the package does not load it; naming this entry does,
// and pigo then registers its built-in openai-cost provider instead of skipping the file as a
// code extension.
func OpenAICostEntry(p string) bool {
	p = filepath.ToSlash(filepath.Clean(strings.TrimSpace(p)))
	for _, suf := range []string{"openai-cost/index.ts", "openai-cost/index.js"} {
		if p == suf || strings.HasSuffix(p, "/"+suf) {
			return true
		}
	}
	return path.Base(p) == "openai-cost" && codeEntry(filepath.FromSlash(p)) != ""
}

// openAICostLoaded says whether this run loads the seed's openai-cost extension: an -e path or
// an applied settings.json extensions entry names its entry (OpenAICostEntry).
func (c *Config) openAICostLoaded() bool {
	for _, e := range c.Opts.Extensions {
		if OpenAICostEntry(e) {
			return true
		}
	}
	for _, f := range c.Files {
		if f.Kind != Settings || !f.Applied || f.Broken || f.Root == nil {
			continue
		}
		if v := f.Root.Get("extensions"); v != nil && v.Kind == jsonc.Array {
			for _, e := range v.Elems {
				if e.Kind == jsonc.String && OpenAICostEntry(e.Str) {
					return true
				}
			}
		}
	}
	return false
}

// noteOpenAICost adds check's info for an openai-cost.json that this run does not use because
// the extension is not loaded (the seed registers the provider only when its entry is named).
func (c *Config) noteOpenAICost() {
	for _, f := range c.Files {
		if f.Kind == OpenAICost && f.Scope == Global && f.Applied && !c.openAICostLoaded() {
			c.unusableInfo(f.Path, fmt.Sprintf("%s is not used: as in the seed, the openai-cost provider is registered only when its extension is loaded (-e <package>/src/openai-cost/index.ts, or that path in settings.json's extensions)", FileName(OpenAICost)))
		}
	}
}

// The seed's openai-cost defaults (src/openai-cost/config.ts).
const (
	openAICostID            = "openai-cost"
	openAICostAPIKeyEnv     = "OPENAI_COST_API_KEY"
	openAICostContextWindow = 128000
	openAICostMaxTokens     = 8192
)

// openAICostModel is one normalized model entry of openai-cost.json.
type openAICostModel struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Reasoning     bool     `json:"reasoning"`
	Input         []string `json:"input"`
	ContextWindow float64  `json:"contextWindow"`
	MaxTokens     float64  `json:"maxTokens"`
	BaseURL       string   `json:"baseUrl"`
}

// openAICost is openai-cost.json normalized as the seed normalizes it: the provider the seed's
// extension registers.
type openAICost struct {
	ID        string            `json:"id"`
	BaseURL   string            `json:"baseUrl"`
	APIKeyEnv string            `json:"apiKeyEnv"`
	Models    []openAICostModel `json:"models"`
}

// openAICostProvider reads the agent dir's openai-cost.json. Like the seed, which reads only
// ~/.pi/agent/openai-cost.json, a project file is not consulted, and a missing, broken or
// invalid file leaves the provider unregistered (nil) rather than failing the session: pigo
// check reports the file's problems. The file is read only when the extension is loaded
// (openAICostLoaded), as the seed's package does not load it by default.
func (c *Config) openAICostProvider() *openAICost {
	for _, f := range c.Files {
		if f.Kind != OpenAICost || f.Scope != Global {
			continue
		}
		c.checkFile(nil, f)
		if !f.Applied || f.Broken || f.Legacy || f.Dialect != "" || f.Root == nil || f.Diags.HasErrors() {
			return nil
		}
		if !c.openAICostLoaded() {
			return nil
		}
		var raw openAICost
		if json.Unmarshal(f.Root.JSON(), &raw) != nil {
			return nil
		}
		return normalizeOpenAICost(raw)
	}
	return nil
}

func normalizeOpenAICost(raw openAICost) *openAICost {
	p := &openAICost{
		ID:        firstNonEmpty(strings.TrimSpace(raw.ID), openAICostID),
		BaseURL:   strings.TrimRight(strings.TrimSpace(raw.BaseURL), "/"),
		APIKeyEnv: firstNonEmpty(strings.TrimSpace(raw.APIKeyEnv), openAICostAPIKeyEnv),
	}
	if p.BaseURL == "" {
		return nil // the seed's schema requires a non-empty baseUrl
	}
	for _, m := range raw.Models {
		id := strings.TrimSpace(m.ID)
		if id == "" {
			continue
		}
		var input []string
		for _, in := range m.Input {
			if in == "text" || in == "image" {
				input = append(input, in)
			}
		}
		if len(input) == 0 {
			input = []string{"text"}
		}
		n := openAICostModel{ID: id, Name: firstNonEmpty(strings.TrimSpace(m.Name), id), Reasoning: m.Reasoning,
			Input: input, ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens, BaseURL: strings.TrimSpace(m.BaseURL)}
		if n.ContextWindow <= 0 {
			n.ContextWindow = openAICostContextWindow
		}
		if n.MaxTokens <= 0 {
			n.MaxTokens = openAICostMaxTokens
		}
		p.Models = append(p.Models, n)
	}
	return p
}

// model is the provider's entry for id. A listed model keeps its own facts. When the file lists
// no models the seed fetches GET <baseUrl>/models on a model refresh; pigo does not make that
// round trip at session start (it would put a network call before every prompt), so any id is
// taken with the defaults the seed gives a fetched model (name = id, text only, no reasoning,
// 128000 / 8192). An id missing from a non-empty list is taken with the same defaults, as pigo
// takes an unlisted models.json id.
func (p *openAICost) model(id string) openAICostModel {
	for _, m := range p.Models {
		if strings.EqualFold(m.ID, id) {
			return m
		}
	}
	return openAICostModel{ID: id, Name: id, Input: []string{"text"}, ContextWindow: openAICostContextWindow, MaxTokens: openAICostMaxTokens}
}

// info is the session facts of the provider's model id.
func (p *openAICost) info(id string) *ModelInfo {
	m := p.model(id)
	return &ModelInfo{Model: engine.Model{Provider: p.ID, ID: m.ID, Reasoning: m.Reasoning, Input: m.Input,
		ContextWindow: int(m.ContextWindow), MaxTokens: int(m.MaxTokens)}, Source: FileName(OpenAICost)}
}
