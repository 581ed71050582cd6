package config

import (
	"path/filepath"
	"strings"
)

// LoadPaths reads only the given files (pigo check PATH...). Each file's kind comes from its
// name and folder: settings.json, sandbox.json, bwrap.json, lsp.json, …; agents/*.md,
// prompts/*.md, SKILL.md, extensions/*.{json,jsonc,cue}. A file in a project's .pi/ folder has
// project scope, one elsewhere is taken as given on the command line.
func LoadPaths(o Options, paths []string) (*Config, error) {
	c, err := Load(Options{AgentDir: o.AgentDir, ProjectDir: o.ProjectDir, Getenv: o.Getenv, Home: o.Home, Approve: o.Approve})
	if err != nil {
		return nil, err
	}
	c.Files = nil
	c.Diags = nil
	for _, p := range paths {
		kind, legacy := KindOfPath(p)
		if kind == "" {
			kind = Settings // callers refuse unknown names first; never guess silently
		}
		f := c.addFile(p, kind, CLI, true)
		f.Legacy = legacy
	}
	return c, nil
}

// KindOfPath infers a file's kind from its path; it returns "" for a name pigo does not know
// (see KnownNames), and a Markdown file outside agents/ and prompts/ is taken as an agent.
func KindOfPath(p string) (Kind, bool) {
	base := filepath.Base(p)
	dir := filepath.Base(filepath.Dir(p))
	name := strings.TrimSuffix(strings.TrimSuffix(base, ".jsonc"), ".json") + ".json"
	switch {
	case base == "SKILL.md":
		return Skill, false
	case strings.HasSuffix(base, ".md") && dir == "agents":
		return Agent, false
	case strings.HasSuffix(base, ".md") && dir == "prompts":
		return Prompt, false
	case strings.HasSuffix(base, ".md"):
		return Agent, false
	case dir == "extensions" || strings.HasSuffix(base, ".cue"):
		return Extension, false
	case name == "bwrap.json":
		return Sandbox, true
	}
	for _, ki := range jsonKinds {
		if ki.file == name {
			return ki.kind, false
		}
	}
	if name == "web-search.json" {
		return WebSearch, false
	}
	return "", false
}

// KnownNames says which file names `pigo check PATH` recognises.
const KnownNames = "settings.json, sandbox.json (or bwrap.json), lsp.json, models.json, spawn-agent.json, proxy.json, openai-cost.json, trust.json, mcp.json, web-search.json (each also .jsonc), *.md (agents/, prompts/, SKILL.md) and extensions/*.{json,jsonc,cue}"
