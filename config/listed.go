package config

import (
	"os"

	"github.com/pigo-agent/pigo/internal/diag"
	"path/filepath"
	"strings"
)

// discoverListed adds the skills and prompt templates pi 1.6 loads beside the agent dir's and
// the project's own folders: the files and folders settings.json lists in "skills" and
// "prompts" (a user's entries resolved from the agent dir, a project's from its .pi folder,
// "~" expanded), before the folders' own, in pi's order. Entries that are patterns ("!glob",
// "+path", "-path": pi's overrides of what is found) select nothing here. A project's entries
// are read like its other files: only inside the project.
func (c *Config) discoverListed(scope Scope) {
	base := c.AgentDir
	if scope == Project {
		base = c.ProjectOverlay()
	}
	f := c.Layer(Settings, scope)
	if f == nil || f.Root == nil || f.Broken {
		return
	}
	for _, kind := range []Kind{Skill, Prompt} {
		key := "skills"
		if kind == Prompt {
			key = "prompts"
		}
		list := f.Root.Get(key)
		if list == nil {
			continue
		}
		v, ok := list.Value().([]any)
		if !ok {
			continue // the legacy object form of "skills" (migrated elsewhere), or invalid
		}
		for _, e := range v {
			s, ok := e.(string)
			if !ok || strings.TrimSpace(s) == "" || strings.ContainsAny(s[:1], "!+-") {
				continue
			}
			c.addListed(c.listedPath(strings.TrimSpace(s), base), kind, scope)
		}
	}
}

// agentsSkills is ~/.agents/skills.
func (c *Config) agentsSkills() string { return filepath.Join(c.Home, ".agents", "skills") }

// listedPath resolves a settings entry as pi does: "~" and "~/…" from the home directory, a
// relative path from base.
func (c *Config) listedPath(p, base string) string {
	switch {
	case p == "~":
		return c.Home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(c.Home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// addListed adds one listed file or folder: a skill folder is searched for SKILL.md as the
// skills folder is; a prompts folder gives its *.md files; a .md file is one resource. A path
// that does not exist is a warning (pi's "skill path does not exist").
func (c *Config) addListed(path string, kind Kind, scope Scope) {
	st, err := os.Stat(path)
	if err != nil {
		what := "skill"
		if kind == Prompt {
			what = "prompt template"
		}
		c.Diags.Add(diag.FileSpan(diag.NewSource(path, nil)), diag.Warning, "resource-path", "", what+" path does not exist")
		return
	}
	switch {
	case st.IsDir() && kind == Skill:
		c.discoverSkills(path, scope, 0, map[string]bool{})
	case st.IsDir():
		for _, e := range c.listDir(path, scope) {
			if strings.HasSuffix(e, ".md") {
				c.addOnce(e, kind, scope)
			}
		}
	case strings.HasSuffix(path, ".md"):
		c.addOnce(path, kind, scope)
	}
}

// addOnce adds a resource file unless the same file (by its real path) was added already: a
// folder listed twice, or listed and also found, loads once (pi's).
func (c *Config) addOnce(path string, kind Kind, scope Scope) {
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	key := string(kind) + "\x00" + real
	if c.resourceSeen[key] {
		return
	}
	if c.resourceSeen == nil {
		c.resourceSeen = map[string]bool{}
	}
	c.resourceSeen[key] = true
	c.addFile(path, kind, scope, true)
}

// discoverAgentsSkills adds the Agent Skills folder ~/.agents/skills, after the agent dir's own
// skills (pi 1.6).
func (c *Config) discoverAgentsSkills() {
	c.discoverSkills(c.agentsSkills(), Global, 0, map[string]bool{})
}

// packagedSkill reports a skill pi 1.6 checks without comparing its name to its folder: one
// from a package or from ~/.agents/skills, or a single listed file (not a SKILL.md).
func (c *Config) packagedSkill(f *File) bool {
	return f.Package != nil || strings.HasPrefix(f.Path, c.agentsSkills()+string(filepath.Separator)) || filepath.Base(f.Path) != "SKILL.md"
}
