package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/validate"
)

// What a session takes from the configuration besides the registry: the system prompt's
// inputs, where its files live, its models, and the approval rules a person saves.

// cwd is the project directory, absolute.
func (c *Config) cwd() string {
	cwd := c.ProjectDir
	if cwd == "" {
		cwd = "."
	}
	cwd, _ = filepath.Abs(cwd)
	return cwd
}

// Package is one entry of the effective settings "packages": a source string, or an object
// with its source and extensions filter. Project marks an entry of the project's settings.
type Package struct {
	Source     string
	Extensions []string
	Project    bool
}

// Packages reads the effective settings "packages": strings or {source, extensions}.
func (c *Config) Packages() []Package {
	eff, err := c.Effective(Settings)
	if err != nil || eff.Root == nil {
		return nil
	}
	pk := eff.Root.Get("packages")
	if pk == nil || pk.Kind != jsonc.Array {
		return nil
	}
	var out []Package
	for _, e := range pk.Elems {
		p := Package{Project: e.File != nil && e.File.Scope == Project}
		switch e.Kind {
		case jsonc.String:
			p.Source = e.Node.Str
		case jsonc.Object:
			if s := e.Get("source"); s != nil && s.Kind == jsonc.String {
				p.Source = s.Node.Str
			}
			if x := e.Get("extensions"); x != nil && x.Kind == jsonc.Array {
				p.Extensions = []string{}
				for _, f := range x.Elems {
					if f.Kind == jsonc.String {
						p.Extensions = append(p.Extensions, f.Node.Str)
					}
				}
			}
		}
		if p.Source != "" {
			out = append(out, p)
		}
	}
	return out
}

// SessionLocation is where this cwd's sessions live: flagDir (--session-dir), else envDir
// ($PI_CODING_AGENT_SESSION_DIR), else the settings' sessionDir (relative to the project),
// else pi's per-cwd folder under AGENTDIR/sessions (the order of pi's main.js).
func (c *Config) SessionLocation(flagDir, envDir string) session.Location {
	cwd := c.cwd()
	if flagDir == "" && envDir == "" {
		if eff, err := c.Effective(Settings); err == nil && eff.Root != nil {
			if v := eff.Root.Get("sessionDir"); v != nil && v.Kind == jsonc.String && v.Node.Str != "" {
				envDir = v.Node.Str
				if !filepath.IsAbs(envDir) && !strings.HasPrefix(envDir, "~") {
					envDir = filepath.Join(cwd, envDir)
				}
			}
		}
	}
	return session.Locate(c.AgentDir, cwd, flagDir, envDir)
}

// UnknownModelError is Model's error for a model neither models.json nor the catalogue
// knows; Suggestion is the closest known "provider/id" ("" for none).
type UnknownModelError struct {
	Name, Suggestion string
}

func (e *UnknownModelError) Error() string {
	msg := fmt.Sprintf("unknown model %q: it is neither in models.json nor in the shipped catalogue", e.Name)
	if e.Suggestion != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", e.Suggestion)
	}
	return msg
}

// ErrModelKey wraps the error of a model whose provider's key or entry cannot be resolved.
var ErrModelKey = errors.New("model")

// Model resolves "provider/id" as --model does: models.json, the catalogue, the API key as pi
// resolves it (apiKey wins when set). An unknown model is an *UnknownModelError.
func (c *Config) Model(ref, apiKey string) (*llm.Model, error) {
	mi, err := c.SessionModel(ref)
	if err != nil {
		return nil, err
	}
	if mi == nil {
		return nil, &UnknownModelError{Name: ref}
	}
	if mi.Source == "defaults" {
		return nil, c.unknownModel(mi)
	}
	m, err := c.ProviderModel(mi.Provider+"/"+mi.ID, apiKey)
	if err != nil {
		return nil, fmt.Errorf("%w %s/%s: %v", ErrModelKey, mi.Provider, mi.ID, err)
	}
	return m, nil
}

// unknownModel names the closest model models.json or the catalogue knows.
func (c *Config) unknownModel(mi *ModelInfo) error {
	name := mi.ID
	if mi.Provider != "" {
		name = mi.Provider + "/" + mi.ID
	}
	var known []string
	if models, err := c.Effective(Models); err == nil {
		var doc struct {
			Providers map[string]struct {
				Models []struct {
					ID string `json:"id"`
				} `json:"models"`
			} `json:"providers"`
		}
		_ = json.Unmarshal(models.JSON(), &doc)
		for p, v := range doc.Providers {
			for _, m := range v.Models {
				known = append(known, p+"/"+m.ID)
			}
		}
	}
	for _, m := range CatalogueModels() {
		known = append(known, m.Provider+"/"+m.ID)
	}
	slices.Sort(known)
	return &UnknownModelError{Name: name, Suggestion: validate.Suggest(name, known)}
}

// ModelRefs are the models a session offers to switch to: models.json's custom models (in
// file order), then the catalogue's, each "provider/id" once.
func (c *Config) ModelRefs() []string {
	var out []string
	seen := map[string]bool{}
	add := func(ref string) {
		if k := strings.ToLower(ref); !seen[k] {
			seen[k] = true
			out = append(out, ref)
		}
	}
	if eff, err := c.Effective(Models); err == nil && eff.Root != nil {
		if ps := eff.Root.Get("providers"); ps != nil {
			for _, pm := range ps.Members {
				if ms := pm.Value.Get("models"); ms != nil {
					for _, mv := range ms.Elems {
						if id := mv.Get("id"); id != nil && id.Node != nil && id.Node.Str != "" {
							add(pm.Key + "/" + id.Node.Str)
						}
					}
				}
			}
		}
	}
	for _, m := range CatalogueModels() {
		add(m.Provider + "/" + m.ID)
	}
	return out
}

// AllowCommands appends allow rules for patterns to the project's sandbox.json approvalRules
// through the comment-keeping editor, and returns the file written ("always allow").
func (c *Config) AllowCommands(patterns []string) (string, error) {
	var ops []EditOp
	for _, p := range patterns {
		v, _ := json.Marshal(map[string]string{"action": "allow", "pattern": p})
		ops = append(ops, EditOp{Op: OpAdd, Path: "approvalRules", Value: v})
	}
	ch, err := c.Edit(Sandbox, Project, ops...)
	if err != nil {
		return "", err
	}
	if err := ch.Write(); err != nil {
		return "", err
	}
	return ch.File, nil
}
