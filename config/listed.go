package config

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
)

// discoverListed adds the skills and prompt templates pi 1.6 loads beside the agent dir's and
// the project's own folders: the files and folders settings.json lists in "skills" and
// "prompts" (a user's entries resolved from the agent dir, a project's from its .pi folder,
// "~" expanded), before the folders' own, in pi's order. The list's patterns narrow what its
// entries give (resource_filter.go). A project's entries are read like its other files: only
// inside the project.
func (c *Config) discoverListed(scope Scope) {
	base := c.AgentDir
	if scope == Project {
		base = c.ProjectOverlay()
	}
	for _, kind := range []Kind{Skill, Prompt} {
		key := "skills"
		if kind == Prompt {
			key = "prompts"
		}
		plain, pats := listPatterns(c.settingsList(scope, key))
		var f *resourceFilter
		if len(pats) > 0 {
			f = newResourceFilter(pats, base, c.Home, true)
		}
		c.gated(f, func() {
			for _, e := range plain {
				c.addListed(c.listedPath(e, base), kind, scope)
			}
		})
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
	if !c.gate.enabled(path) {
		return // turned off by a settings pattern: seen, not loaded
	}
	c.addFile(path, kind, scope, true)
}

// discoverAgentsSkills adds the Agent Skills folder ~/.agents/skills, after the agent dir's own
// skills (pi 1.6).
func (c *Config) discoverAgentsSkills() {
	c.gated(c.overrides(Global, "skills", filepath.Dir(c.agentsSkills())), func() {
		c.discoverSkills(c.agentsSkills(), Global, 0, map[string]bool{})
	})
}

// discoverProjectAgentsSkills adds the .agents/skills folders of the working folder and its
// parents up to the repository's root (pi 1.6; ~/.agents/skills is the user's, not the
// project's). They are project files: loaded only for a trusted project. Deliberate difference:
// outside a repository pi goes up to the file system's root, where anyone who can write to a
// parent folder (/tmp) could add a skill to the system prompt; pigo then reads the working
// folder's own .agents/skills only.
func (c *Config) discoverProjectAgentsSkills() {
	start := c.ProjectDir
	if abs, err := c.paths.Abs(start); err == nil { // filepath.Abs, the working directory asked once a Load
		start = abs
	}
	root := gitRoot(start)
	within := root
	if within == "" {
		within = start
	}
	old := c.projectReal
	c.projectReal = c.paths.Real(within) // the repository is the project for these reads
	defer func() { c.projectReal = old }()
	user := c.agentsSkills()
	for dir := start; ; dir = filepath.Dir(dir) {
		skills := filepath.Join(dir, ".agents", "skills")
		if !c.sameDir(skills, user) {
			c.gated(c.overrides(Project, "skills", filepath.Join(dir, ".agents")), func() {
				c.discoverSkills(skills, Project, 0, map[string]bool{})
			})
		}
		if root == "" || dir == root || filepath.Dir(dir) == dir {
			return
		}
	}
}

// gitRoot is the nearest folder from dir upwards that holds .git; "" when there is none.
func gitRoot(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// packagedSkill reports a skill pi 1.6 checks without comparing its name to its folder: one
// from a package or from ~/.agents/skills, or a single listed file (not a SKILL.md).
func (c *Config) packagedSkill(f *File) bool {
	return f.Package != nil || strings.HasPrefix(f.Path, c.agentsSkills()+string(filepath.Separator)) || filepath.Base(f.Path) != "SKILL.md"
}
