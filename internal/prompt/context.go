package prompt

import (
	"os"
	"path/filepath"
	"strings"
)

// ContextFile is one AGENTS.md-family file and its content.
type ContextFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// contextNames are tried in this order in each directory; the first regular file wins.
var contextNames = []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

func contextFileIn(dir string) (*ContextFile, string) {
	for _, n := range contextNames {
		p := filepath.Join(dir, n)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, "Warning: Could not read " + p + ": " + err.Error()
		}
		return &ContextFile{Path: p, Content: stripBOM(string(b))}, ""
	}
	return nil, ""
}

// LoadContextFiles finds the context files as pi 0.84 does: the agent dir's first, then each
// ancestor of cwd from the outermost down to cwd, de-duplicated by path. In a linked git
// worktree nested inside its main repository, the main repository's file of the same name is
// skipped when the worktree has its own (it would apply the same context twice).
func LoadContextFiles(agentDir, cwd string) ([]ContextFile, []string) {
	var files []ContextFile
	var warns []string
	seen := map[string]bool{}
	if agentDir != "" {
		f, w := contextFileIn(abs(agentDir))
		if w != "" {
			warns = append(warns, w)
		}
		if f != nil {
			files = append(files, *f)
			seen[f.Path] = true
		}
	}
	shadowed := shadowedContextFile(abs(cwd))
	var ancestors []ContextFile
	for dir := abs(cwd); ; {
		f, w := contextFileIn(dir)
		if w != "" {
			warns = append(warns, w)
		}
		if f != nil && !seen[f.Path] && !(shadowed != "" && realpath(f.Path) == shadowed) {
			ancestors = append([]ContextFile{*f}, ancestors...)
			seen[f.Path] = true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return append(files, ancestors...), warns
}

// shadowedContextFile returns the main repository's context file (realpath) that a nested
// linked worktree's own file shadows, or "".
func shadowedContextFile(cwd string) string {
	repoDir, gitPath := "", ""
	for dir := cwd; ; {
		p := filepath.Join(dir, ".git")
		if _, err := os.Lstat(p); err == nil {
			repoDir, gitPath = dir, p
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	fi, err := os.Stat(gitPath)
	if err != nil || fi.IsDir() {
		return "" // an ordinary repository
	}
	b, err := os.ReadFile(gitPath)
	if err != nil {
		return ""
	}
	line := strings.TrimSpace(string(b))
	if !strings.HasPrefix(line, "gitdir:") {
		return ""
	}
	gitDir := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(repoDir, gitDir)
	}
	common := gitDir
	if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gitDir, cd)
		}
		common = cd
	} else {
		return "" // a submodule: no commondir
	}
	common = realpath(common)
	worktree := realpath(repoDir)
	mainRoot := filepath.Dir(common)
	if !strings.HasPrefix(worktree, mainRoot+string(filepath.Separator)) {
		return ""
	}
	if realpath(filepath.Join(mainRoot, ".git")) != common {
		return ""
	}
	own, _ := contextFileIn(worktree)
	if own == nil {
		return ""
	}
	return filepath.Join(mainRoot, filepath.Base(own.Path))
}

func realpath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// FormatContextFiles is pi 0.84's <project_context> block ("" without files).
func FormatContextFiles(files []ContextFile) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n<project_context>\n\nProject-specific instructions and guidelines:\n\n")
	for _, f := range files {
		b.WriteString(`<project_instructions path="` + f.Path + "\">\n" + f.Content + "\n</project_instructions>\n\n")
	}
	b.WriteString("</project_context>\n")
	return b.String()
}
