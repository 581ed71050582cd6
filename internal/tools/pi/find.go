package pi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

type findArgs struct {
	Pattern string  `json:"pattern"`
	Path    *string `json:"path"`
	Limit   float   `json:"limit"`
}

func piFind(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a findArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	search := toolkit.ResolvePath(orDot(a.Path), inv.Session.Cwd)
	limit := limitOr(a.Limit, 1000)
	lines, err := findFiles(ctx, a.Pattern, search, limit)
	if ctx.Err() != nil {
		return toolrun.Result{}, errors.New(toolkit.ErrAborted)
	}
	if err != nil {
		return toolrun.Result{}, err
	}
	if len(lines) == 0 {
		return toolrun.TextResult("No files found matching pattern", nil), nil
	}
	var rel []string
	for _, l := range lines {
		l = strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		if l == "" {
			continue
		}
		trailing := strings.HasSuffix(l, "/")
		r := l
		if filepath.IsAbs(l) {
			if x, err := filepath.Rel(search, l); err == nil {
				r = x
			}
		}
		if trailing && !strings.HasSuffix(r, "/") {
			r += "/"
		}
		rel = append(rel, r)
	}
	t := toolkit.TruncateHead(strings.Join(rel, "\n"), math.MaxInt, toolkit.MaxBytes)
	details := map[string]any{}
	var notices []string
	if float64(len(rel)) >= limit {
		notices = append(notices, fmt.Sprintf("%s results limit reached. Use limit=%s for more, or refine pattern", num(limit), num(limit*2)))
		details["resultLimitReached"] = limit
	}
	if t.Truncated {
		notices = append(notices, toolkit.FormatSize(toolkit.MaxBytes)+" limit reached")
		details["truncation"] = t
	}
	return withNotices(t.Content, notices, details), nil
}

// findFiles runs fd as pi does when it is installed; otherwise ripgrep lists the files
// (hidden included, .gitignore respected, .git skipped) and pi's fd glob rules pick them.
// Results are sorted (fd's parallel walk has no stable order).
func findFiles(ctx context.Context, pattern, search string, limit float64) ([]string, error) {
	gitRepo := false
	for cur := search; ; {
		if toolkit.Exists(filepath.Join(cur, ".git")) {
			gitRepo = true
			break
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		cur = parent
	}
	effective := pattern
	fullPath := strings.Contains(pattern, "/")
	if fullPath && !strings.HasPrefix(pattern, "/") && !strings.HasPrefix(pattern, "**/") && pattern != "**" {
		effective = "**/" + pattern
	}
	if fd, err := exec.LookPath("fd"); err == nil {
		args := []string{"--glob", "--color=never", "--hidden"}
		if !gitRepo {
			args = append(args, "--no-require-git")
		}
		args = append(args, "--max-results", num(limit))
		if fullPath {
			args = append(args, "--full-path")
		}
		args = append(args, "--", effective, search)
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, fd, args...)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		lines := splitNonEmpty(string(out))
		if err != nil && len(lines) == 0 {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = fmt.Sprintf("fd exited with code %d", exitCodeOf(err))
			}
			return nil, errors.New(msg)
		}
		sort.Strings(lines)
		return lines, nil
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		return nil, errors.New("fd is not available and could not be downloaded")
	}
	if _, err := os.Stat(search); err != nil {
		return nil, fmt.Errorf("[fd error]: Search path '%s' is not a directory.", search)
	}
	args := []string{"--files", "--hidden", "--color=never", "--glob", "!.git"}
	if !gitRepo {
		args = append(args, "--no-require-git")
	}
	cmd := exec.CommandContext(ctx, rg, append(args, "--", search)...)
	out, err := cmd.Output()
	if err != nil && exitCodeOf(err) != 1 {
		return nil, fmt.Errorf("ripgrep exited with code %d", exitCodeOf(err))
	}
	g, err := CompileFdGlob(effective, fullPath)
	if err != nil {
		return nil, fmt.Errorf("[fd error]: %v", err)
	}
	var hits []string
	for _, p := range splitNonEmpty(string(out)) {
		subject := filepath.Base(p)
		if fullPath {
			subject = p
		}
		if g.MatchString(subject) {
			hits = append(hits, p)
		}
	}
	sort.Strings(hits)
	if float64(len(hits)) > limit {
		hits = hits[:int(limit)]
	}
	return hits, nil
}

func splitNonEmpty(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func exitCodeOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// CompileFdGlob compiles a pattern with fd's glob rules (globset with literal separators):
// * and ? stay within a path segment, a ** segment matches zero or more directories, braces
// and classes work.
func CompileFdGlob(pattern string, fullPath bool) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case strings.HasPrefix(pattern[i:], "**/") && (i == 0 || pattern[i-1] == '/'):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(pattern[i:], "**") && (i == 0 || pattern[i-1] == '/') && i+2 == len(pattern):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(pattern[i+1:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unclosed character class in %q", pattern)
			}
			class := pattern[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case c == '{':
			depth++
			b.WriteString("(?:")
		case c == '}' && depth > 0:
			depth--
			b.WriteString(")")
		case c == ',' && depth > 0:
			b.WriteString("|")
		case c == '\\' && i+1 < len(pattern):
			i++
			b.WriteString(regexp.QuoteMeta(string(pattern[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("unclosed alternate group in %q", pattern)
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
