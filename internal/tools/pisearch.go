package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

func init() {
	Register("pi", "ls", toolrun.Impl{Execute: piLs})
	Register("pi", "grep", toolrun.Impl{Execute: piGrep})
	Register("pi", "find", toolrun.Impl{Execute: piFind})
}

// icuASCII is the primary order of the lower-case printable ASCII characters under ICU's root
// collation (what String.prototype.localeCompare uses in en-US).
const icuASCII = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"

var icuRank = func() [128]int {
	var r [128]int
	for i := range r {
		r[i] = -1
	}
	for i := 0; i < len(icuASCII); i++ {
		r[icuASCII[i]] = i + 1
	}
	return r
}()

// collateKey approximates ICU root collation for file names: a primary key (accents and case
// ignored, ASCII in ICU's order, other characters after ASCII by code point) and the
// accent-bearing form as the tie-breaker.
func collateKey(s string) (primary []int, secondary string) {
	d := norm.NFD.String(strings.ToLower(s))
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if exp, ok := collateExpand[r]; ok {
			for _, e := range exp {
				primary = append(primary, icuRank[e])
			}
			continue
		}
		if r < 128 && icuRank[r] > 0 {
			primary = append(primary, icuRank[r])
		} else {
			primary = append(primary, 1000+int(r))
		}
	}
	return primary, d
}

// collateExpand are letters ICU's root collation sorts as two letters.
// Letters with a stroke sort as their base letter (an accent-level difference).
var collateExpand = map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ł': "l", 'ħ': "h", 'ŧ': "t"}

// localeLess orders names as pi's ls does: a.toLowerCase().localeCompare(b.toLowerCase()).
func localeLess(a, b string) bool {
	pa, sa := collateKey(a)
	pb, sb := collateKey(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	if len(pa) != len(pb) {
		return len(pa) < len(pb)
	}
	if sa != sb {
		return sa < sb
	}
	return a < b
}

type lsArgs struct {
	Path  *string `json:"path"`
	Limit float   `json:"limit"`
}

func limitOr(f float, def float64) float64 {
	if f == nil {
		return def
	}
	return *f
}

func orDot(p *string) string {
	if p == nil || *p == "" {
		return "."
	}
	return *p
}

func piLs(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a lsArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	dir := ResolvePath(orDot(a.Path), inv.Session.Cwd)
	limit := limitOr(a.Limit, 500)
	if !exists(dir) {
		return toolrun.Result{}, errors.New("Path not found: " + dir)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return toolrun.Result{}, NodeError(err, "stat", dir)
	}
	if !st.IsDir() {
		return toolrun.Result{}, errors.New("Not a directory: " + dir)
	}
	f, err := os.Open(dir)
	if err != nil {
		return toolrun.Result{}, errors.New("Cannot read directory: " + NodeError(err, "scandir", dir).Error())
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return toolrun.Result{}, errors.New("Cannot read directory: " + NodeError(err, "scandir", dir).Error())
	}
	sort.SliceStable(names, func(i, j int) bool { return localeLess(names[i], names[j]) })
	var results []string
	limitReached := false
	for _, name := range names {
		if float64(len(results)) >= limit {
			limitReached = true
			break
		}
		if ctx.Err() != nil {
			return toolrun.Result{}, errors.New(errAborted)
		}
		est, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if est.IsDir() {
			name += "/"
		}
		results = append(results, name)
	}
	if len(results) == 0 {
		return toolrun.TextResult("(empty directory)", nil), nil
	}
	t := TruncateHead(strings.Join(results, "\n"), math.MaxInt, MaxBytes)
	out := t.Content
	details := map[string]any{}
	var notices []string
	if limitReached {
		notices = append(notices, fmt.Sprintf("%s entries limit reached. Use limit=%s for more", num(limit), num(limit*2)))
		details["entryLimitReached"] = limit
	}
	if t.Truncated {
		notices = append(notices, FormatSize(MaxBytes)+" limit reached")
		details["truncation"] = t
	}
	return withNotices(out, notices, details), nil
}

func withNotices(out string, notices []string, details map[string]any) toolrun.Result {
	if len(notices) > 0 {
		out += "\n\n[" + strings.Join(notices, ". ") + "]"
	}
	if len(details) == 0 {
		return toolrun.TextResult(out, nil)
	}
	return toolrun.TextResult(out, orderedDetails(details))
}

// orderedDetails marshals details in pi's key order (the order the tool adds them).
func orderedDetails(d map[string]any) json.RawMessage {
	order := []string{"entryLimitReached", "matchLimitReached", "resultLimitReached", "truncation", "linesTruncated"}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, k := range order {
		v, ok := d[k]
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

type grepArgs struct {
	Pattern    string  `json:"pattern"`
	Path       *string `json:"path"`
	Glob       *string `json:"glob"`
	IgnoreCase *bool   `json:"ignoreCase"`
	Literal    *bool   `json:"literal"`
	Context    float   `json:"context"`
	Limit      float   `json:"limit"`
}

type rgText struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (t rgText) str() (string, bool) {
	if t.Text != nil {
		return *t.Text, true
	}
	if t.Bytes != nil {
		b, err := base64.StdEncoding.DecodeString(*t.Bytes)
		if err == nil {
			return DecodeUTF8(b), true
		}
	}
	return "", false
}

func piGrep(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a grepArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		return toolrun.Result{}, errors.New("ripgrep (rg) is not available and could not be downloaded")
	}
	search := ResolvePath(orDot(a.Path), inv.Session.Cwd)
	st, err := os.Stat(search)
	if err != nil {
		return toolrun.Result{}, errors.New("Path not found: " + search)
	}
	isDir := st.IsDir()
	ctxLines := 0.0
	if a.Context != nil && *a.Context > 0 {
		ctxLines = *a.Context
	}
	limit := math.Max(1, limitOr(a.Limit, 100))
	// --sort path: rg's parallel walk would otherwise order files differently run to run
	// (pi does not sort); sorted output is one of the orders pi can produce.
	args := []string{"--json", "--line-number", "--color=never", "--hidden", "--sort", "path"}
	if a.IgnoreCase != nil && *a.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	if a.Literal != nil && *a.Literal {
		args = append(args, "--fixed-strings")
	}
	if a.Glob != nil && *a.Glob != "" {
		args = append(args, "--glob", *a.Glob)
	}
	args = append(args, "--", a.Pattern, search)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(cctx, rg, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return toolrun.Result{}, err
	}
	if err := cmd.Start(); err != nil {
		return toolrun.Result{}, errors.New("Failed to run ripgrep: " + err.Error())
	}
	type hit struct {
		path    string
		line    int
		text    string
		hasText bool
	}
	var hits []hit
	killed := false
	sc := bufio.NewReader(stdout)
	for {
		line, err := sc.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 && float64(len(hits)) < limit {
			var ev struct {
				Type string `json:"type"`
				Data struct {
					Path       rgText `json:"path"`
					LineNumber *int   `json:"line_number"`
					Lines      rgText `json:"lines"`
				} `json:"data"`
			}
			if json.Unmarshal(line, &ev) == nil && ev.Type == "match" {
				p, okp := ev.Data.Path.str()
				t, okt := ev.Data.Lines.str()
				if okp && p != "" && ev.Data.LineNumber != nil {
					hits = append(hits, hit{p, *ev.Data.LineNumber, t, okt})
				}
				if float64(len(hits)) >= limit {
					killed = true
					cancel()
				}
			}
		}
		if err != nil {
			break
		}
	}
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return toolrun.Result{}, errors.New(errAborted)
	}
	if !killed && werr != nil {
		code := -1
		if ee, ok := werr.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != 1 {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = fmt.Sprintf("ripgrep exited with code %d", code)
			}
			return toolrun.Result{}, errors.New(msg)
		}
	}
	if len(hits) == 0 {
		return toolrun.TextResult("No matches found", nil), nil
	}
	rel := func(p string) string {
		if isDir {
			if r, err := filepath.Rel(search, p); err == nil && r != "" && !strings.HasPrefix(r, "..") {
				return r
			}
		}
		return filepath.Base(p)
	}
	cache := map[string][]string{}
	fileLines := func(p string) []string {
		if l, ok := cache[p]; ok {
			return l
		}
		var l []string
		if b, err := safefile.ReadRegular(p, toolrun.MaxWholeFile, "grep"); err == nil {
			l = strings.Split(normalizeLF(DecodeUTF8(b)), "\n")
		}
		cache[p] = l
		return l
	}
	truncated := false
	var out []string
	for _, h := range hits {
		rp := rel(h.path)
		if ctxLines == 0 && h.hasText {
			s := strings.ReplaceAll(h.text, "\r\n", "\n")
			s = strings.ReplaceAll(s, "\r", "")
			s = strings.TrimSuffix(s, "\n")
			t, cut := TruncateLine(s, GrepMaxLineChars)
			truncated = truncated || cut
			out = append(out, fmt.Sprintf("%s:%d: %s", rp, h.line, t))
			continue
		}
		lines := fileLines(h.path)
		if len(lines) == 0 {
			out = append(out, fmt.Sprintf("%s:%d: (unable to read file)", rp, h.line))
			continue
		}
		start, end := h.line, h.line
		if ctxLines > 0 {
			start = int(math.Max(1, float64(h.line)-ctxLines))
			end = int(math.Min(float64(len(lines)), float64(h.line)+ctxLines))
		}
		for cur := start; cur <= end; cur++ {
			text := ""
			if cur-1 < len(lines) {
				text = lines[cur-1]
			}
			t, cut := TruncateLine(strings.ReplaceAll(text, "\r", ""), GrepMaxLineChars)
			truncated = truncated || cut
			if cur == h.line {
				out = append(out, fmt.Sprintf("%s:%d: %s", rp, cur, t))
			} else {
				out = append(out, fmt.Sprintf("%s-%d- %s", rp, cur, t))
			}
		}
	}
	t := TruncateHead(strings.Join(out, "\n"), math.MaxInt, MaxBytes)
	details := map[string]any{}
	var notices []string
	if killed {
		notices = append(notices, fmt.Sprintf("%s matches limit reached. Use limit=%s for more, or refine pattern", num(limit), num(limit*2)))
		details["matchLimitReached"] = limit
	}
	if t.Truncated {
		notices = append(notices, FormatSize(MaxBytes)+" limit reached")
		details["truncation"] = t
	}
	if truncated {
		notices = append(notices, fmt.Sprintf("Some lines truncated to %d chars. Use read tool to see full lines", GrepMaxLineChars))
		details["linesTruncated"] = true
	}
	return withNotices(t.Content, notices, details), nil
}

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
	search := ResolvePath(orDot(a.Path), inv.Session.Cwd)
	limit := limitOr(a.Limit, 1000)
	lines, err := findFiles(ctx, a.Pattern, search, limit)
	if ctx.Err() != nil {
		return toolrun.Result{}, errors.New(errAborted)
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
	t := TruncateHead(strings.Join(rel, "\n"), math.MaxInt, MaxBytes)
	details := map[string]any{}
	var notices []string
	if float64(len(rel)) >= limit {
		notices = append(notices, fmt.Sprintf("%s results limit reached. Use limit=%s for more, or refine pattern", num(limit), num(limit*2)))
		details["resultLimitReached"] = limit
	}
	if t.Truncated {
		notices = append(notices, FormatSize(MaxBytes)+" limit reached")
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
		if exists(filepath.Join(cur, ".git")) {
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
	g, err := compileFdGlob(effective, fullPath)
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

// compileFdGlob compiles a pattern with fd's glob rules (globset with literal separators):
// * and ? stay within a path segment, a ** segment matches zero or more directories, braces
// and classes work.
func compileFdGlob(pattern string, fullPath bool) (*regexp.Regexp, error) {
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
