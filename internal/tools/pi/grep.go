package pi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

type grepArgs struct {
	Pattern    string  `json:"pattern"`
	Path       *string `json:"path"`
	Glob       *string `json:"glob"`
	IgnoreCase *bool   `json:"ignoreCase"`
	Literal    *bool   `json:"literal"`
	Context    float   `json:"context"`
	Limit      float   `json:"limit"`
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
	search := toolkit.ResolvePath(orDot(a.Path), inv.Session.Cwd)
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
	cmd, err := inv.Session.SearchCommand(cctx, "", search, rg, args)
	if err != nil {
		return toolrun.Result{}, err
	}
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
					Path       toolkit.RgText `json:"path"`
					LineNumber *int           `json:"line_number"`
					Lines      toolkit.RgText `json:"lines"`
				} `json:"data"`
			}
			if json.Unmarshal(line, &ev) == nil && ev.Type == "match" {
				p, okp := ev.Data.Path.Str()
				t, okt := ev.Data.Lines.Str()
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
		return toolrun.Result{}, errors.New(toolkit.ErrAborted)
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
			l = strings.Split(toolkit.NormalizeLF(toolkit.DecodeUTF8(b)), "\n")
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
			t, cut := toolkit.TruncateLine(s, toolkit.GrepMaxLineChars)
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
			t, cut := toolkit.TruncateLine(strings.ReplaceAll(text, "\r", ""), toolkit.GrepMaxLineChars)
			truncated = truncated || cut
			if cur == h.line {
				out = append(out, fmt.Sprintf("%s:%d: %s", rp, cur, t))
			} else {
				out = append(out, fmt.Sprintf("%s-%d- %s", rp, cur, t))
			}
		}
	}
	t := toolkit.TruncateHead(strings.Join(out, "\n"), math.MaxInt, toolkit.MaxBytes)
	details := map[string]any{}
	var notices []string
	if killed {
		notices = append(notices, fmt.Sprintf("%s matches limit reached. Use limit=%s for more, or refine pattern", num(limit), num(limit*2)))
		details["matchLimitReached"] = limit
	}
	if t.Truncated {
		notices = append(notices, toolkit.FormatSize(toolkit.MaxBytes)+" limit reached")
		details["truncation"] = t
	}
	if truncated {
		notices = append(notices, fmt.Sprintf("Some lines truncated to %d chars. Use read tool to see full lines", toolkit.GrepMaxLineChars))
		details["linesTruncated"] = true
	}
	return withNotices(t.Content, notices, details), nil
}
