package prompt

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// The seed's package names and its system-prompt extension's files inside the package.
const (
	seedNpmName    = "@trim21/personal-pi-extensions"
	seedRepoPath   = "trim21/pi-extensions"
	seedEntry      = "src/system-prompt/index.ts"
	seedPromptFile = "src/system-prompt/prompt.md"
)

// Package is one settings "packages" entry: its source, the extension filter of the object
// form (nil: every extension of the package), and whether it is the project's (installed
// under .pi/ rather than the agent dir).
type Package struct {
	Source     string
	Extensions []string
	Project    bool
}

var seedGit = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:git:)?(?:(?:https?|ssh|git)://)?(?:git@)?github\.com[/:]` + regexp.QuoteMeta(seedRepoPath) + `(?:\.git)?(?:[@#].*)?$`)
}}

// SeedTemplate finds the seed's system-prompt template, which is in effect when the seed's
// extension is loaded: the seed package installed from settings "packages" (npm
// @trim21/personal-pi-extensions under AGENTDIR/npm/node_modules, git github.com/
// trim21/pi-extensions under AGENTDIR/git/github.com/, or a local checkout), unless its
// extension filter leaves out src/system-prompt/index.ts; or that index.ts given with -e. It
// returns the prompt.md path, or "" when the seed's prompt is not configured.
func SeedTemplate(agentDir, cwd string, packages []Package, extensionFiles []string) string {
	for _, f := range extensionFiles {
		if filepath.Base(f) == "index.ts" && filepath.Base(filepath.Dir(f)) == "system-prompt" {
			p := filepath.Join(filepath.Dir(abs(f)), "prompt.md")
			if exists(p) {
				return p
			}
		}
	}
	for _, pkg := range packages {
		if !loadsSeedPrompt(pkg.Extensions) {
			continue
		}
		root := agentDir
		if pkg.Project {
			root = filepath.Join(cwd, ".pi")
		}
		src := strings.TrimSpace(pkg.Source)
		var dir string
		switch {
		case strings.HasPrefix(src, "npm:"):
			spec := strings.TrimSpace(strings.TrimPrefix(src, "npm:"))
			if spec == seedNpmName || strings.HasPrefix(spec, seedNpmName+"@") {
				dir = filepath.Join(root, "npm", "node_modules", seedNpmName)
			}
		case seedGit.Get().MatchString(src):
			dir = filepath.Join(root, "git", "github.com", seedRepoPath)
		default:
			// A local checkout: a path relative to the settings file's directory.
			d := expandHome(src)
			if !filepath.IsAbs(d) {
				d = filepath.Join(root, d)
			}
			if isSeedCheckout(d) {
				dir = d
			}
		}
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, filepath.FromSlash(seedPromptFile)); exists(p) {
			return p
		}
	}
	return ""
}

// loadsSeedPrompt applies a package's extension filter to the system-prompt entry: "!" or
// "-" entries exclude, and a list of plain entries includes only those.
func loadsSeedPrompt(filter []string) bool {
	if filter == nil {
		return true
	}
	include, listed := false, false
	for _, e := range filter {
		e = strings.TrimPrefix(strings.TrimSpace(e), "./")
		switch {
		case strings.HasPrefix(e, "!") || strings.HasPrefix(e, "-"):
			if strings.TrimPrefix(strings.TrimPrefix(e[1:], "./"), "+") == seedEntry {
				return false
			}
		default:
			listed = true
			if strings.TrimPrefix(e, "+") == seedEntry {
				include = true
			}
		}
	}
	return include || !listed
}

func isSeedCheckout(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	return err == nil && strings.Contains(string(b), `"`+seedNpmName+`"`)
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}
