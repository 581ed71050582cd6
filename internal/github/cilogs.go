package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// StepRef is the part of a job step the log index needs.
type StepRef struct {
	Number     int64
	Name       string
	Conclusion string
	StartedAt  *time.Time
}

type stepHeader struct {
	line   int
	action string
	ts     *time.Time
}

var (
	logTimestamp = lazyRE(`^\x{FEFF}?(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z) `)
	headerPrefix = lazyRE(`^(Run |Post Run )`)
	groupName    = lazyRE(`##\[group\](.*)`)
)

// The seed's evidence weights: a header written within 5 s of the step's API start belongs to
// it (score up to 2), an exact "Run <x>" name match proves it (4).
const (
	headerWindow   = 5 * time.Second
	nameMatchScore = 4.0
	timeMatchScore = 2.0
)

func headers(lines []string) []stepHeader {
	var out []stepHeader
	depth := 0
	for i, l := range lines {
		if strings.Contains(l, "##[endgroup]") {
			if depth > 0 {
				depth--
			}
			continue
		}
		if !strings.Contains(l, "##[group]") {
			continue
		}
		depth++
		if depth != 1 {
			continue
		}
		name := ""
		if m := groupName().FindStringSubmatch(l); m != nil {
			name = strings.TrimSpace(m[1])
		}
		if !headerPrefix().MatchString(name) {
			continue
		}
		h := stepHeader{line: i, action: strings.TrimSpace(headerPrefix().ReplaceAllString(name, ""))}
		if m := logTimestamp().FindStringSubmatch(l); m != nil {
			if t, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
				h.ts = &t
			}
		}
		out = append(out, h)
	}
	return out
}

func score(s StepRef, h stepHeader) float64 {
	sc := 0.0
	if headerPrefix().MatchString(s.Name) && strings.TrimSpace(headerPrefix().ReplaceAllString(s.Name, "")) == h.action {
		sc += nameMatchScore
	}
	if s.StartedAt != nil && h.ts != nil {
		d := h.ts.Sub(*s.StartedAt)
		if d >= 0 && d <= headerWindow {
			sc += timeMatchScore * (1 - float64(d)/float64(headerWindow))
		}
	}
	return sc
}

// align is an order-preserving best-scoring matching of steps to headers; only pairs with
// evidence are matched, ties go to the earlier step.
func align(steps []StepRef, hs []stepHeader) map[int64]int {
	n, m := len(steps), len(hs)
	const tie = 1e-6
	best := make([][]float64, n+1)
	paired := make([][]bool, n+1)
	for i := range best {
		best[i] = make([]float64, m+1)
		paired[i] = make([]bool, m+1)
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			p := score(steps[i-1], hs[j-1])
			with := -1e300
			if p > 0 {
				with = best[i-1][j-1] + p + tie*float64(n-i+1)
			}
			if with >= best[i-1][j] && with >= best[i][j-1] {
				best[i][j], paired[i][j] = with, true
			} else {
				best[i][j] = max(best[i-1][j], best[i][j-1])
			}
		}
	}
	out := map[int64]int{}
	for i, j := n, m; i > 0 && j > 0; {
		switch {
		case paired[i][j]:
			out[steps[i-1].Number] = j - 1
			i--
			j--
		case best[i-1][j] >= best[i][j-1]:
			i--
		default:
			j--
		}
	}
	return out
}

func trimBlank(lines []string, start, end int) int {
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return end
}

// StepSpans locates each executed step's block in a raw job log: 0-based start, exclusive end.
// "Set up job" owns the runner preamble; skipped steps and steps without a header get none.
func StepSpans(log string, steps []StepRef) map[int64][2]int {
	lines := strings.Split(log, "\n")
	hs := headers(lines)
	spans := map[int64][2]int{}
	var rest []StepRef
	for _, s := range steps {
		if s.Number == 1 && s.Name == "Set up job" {
			end := len(lines)
			if len(hs) > 0 {
				end = hs[0].line
			}
			spans[1] = [2]int{0, trimBlank(lines, 0, end)}
			continue
		}
		if s.Conclusion != "skipped" {
			rest = append(rest, s)
		}
	}
	type placed struct {
		number int64
		line   int
	}
	var ps []placed
	for num, hi := range align(rest, hs) {
		ps = append(ps, placed{num, hs[hi].line})
	}
	sort.Slice(ps, func(a, b int) bool { return ps[a].line < ps[b].line })
	for i, p := range ps {
		end := len(lines)
		if i+1 < len(ps) {
			end = ps[i+1].line
		}
		spans[p.number] = [2]int{p.line, trimBlank(lines, p.line, end)}
	}
	return spans
}

// repoFromRunURL is OWNER/REPO of a job's run_url, GitHub's canonical spelling.
func repoFromRunURL(runURL string) (string, error) {
	u, err := url.Parse(runURL)
	if err == nil {
		segs := strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' })
		for i, s := range segs {
			if s == "repos" && i+2 < len(segs) {
				return segs[i+1] + "/" + segs[i+2], nil
			}
		}
	}
	return "", fmt.Errorf("unexpected run_url (expected /repos/<owner>/<repo>/...): %s", runURL)
}

var logLocks sync.Map // cache file → *sync.Mutex: one download per file

// CILogs is read-github-ci-logs: the job's raw log cached under
// <cache>/ci-logs/<owner>/<repo>/<run>/<job>.log and its steps indexed by line range.
func (c *Client) CILogs(ctx context.Context, cwd, repo string, jobID int64, input any, progress func(string)) (Result, error) {
	cl, full, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	job, _, err := cl.Actions.GetWorkflowJobByID(ctx, owner, name, jobID)
	if err != nil {
		var er *gh.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return Result{Failed: true, Text: fmt.Sprintf("Job %d not found in %s — job IDs come from `get-github-workflow-jobs`.", jobID, full)}, nil
		}
		return Result{}, err
	}
	if job.GetStatus() == "queued" {
		return Result{Failed: true, Text: fmt.Sprintf("Job %q is still queued — no logs available yet. Use `watch-github-run` to wait for it to start, then retry.", job.GetName())}, nil
	}
	if progress != nil {
		progress(fmt.Sprintf("Fetching log of job %q...", job.GetName()))
	}
	canon, err := repoFromRunURL(job.GetRunURL())
	if err != nil {
		return Result{}, err
	}
	co, cn, err := SplitRepo(canon)
	if err != nil {
		return Result{}, err
	}
	file := filepath.Join(c.cacheDir(), "ci-logs", co, cn, strconv.FormatInt(job.GetRunID(), 10), strconv.FormatInt(job.GetID(), 10)+".log")
	log, err := c.jobLog(ctx, cl, co, cn, job.GetID(), file)
	if err != nil {
		return Result{}, err
	}
	refs := make([]StepRef, 0, len(job.Steps))
	for _, s := range job.Steps {
		r := StepRef{Number: s.GetNumber(), Name: s.GetName(), Conclusion: s.GetConclusion()}
		if s.StartedAt != nil {
			t := s.StartedAt.Time
			r.StartedAt = &t
		}
		refs = append(refs, r)
	}
	spans := StepSpans(log, refs)
	type step struct {
		Number     int64  `json:"number"`
		Name       string `json:"name"`
		Conclusion any    `json:"conclusion"`
		StartLine  *int   `json:"start_line,omitempty"`
		EndLine    *int   `json:"end_line,omitempty"`
	}
	steps := []step{}
	for _, s := range job.Steps {
		st := step{Number: s.GetNumber(), Name: s.GetName(), Conclusion: strOrNil(s.Conclusion)}
		if sp, ok := spans[s.GetNumber()]; ok && sp[1] > sp[0] {
			a, b := sp[0]+1, sp[1]
			st.StartLine, st.EndLine = &a, &b
		}
		steps = append(steps, st)
	}
	type index struct {
		Name       string `json:"name"`
		ID         int64  `json:"id"`
		Status     string `json:"status"`
		Conclusion any    `json:"conclusion"`
		LogFile    string `json:"log_file"`
		Steps      []step `json:"steps"`
	}
	return jsonResult(index{job.GetName(), job.GetID(), job.GetStatus(), strOrNil(job.Conclusion), file, steps}), nil
}

func (c *Client) jobLog(ctx context.Context, cl *gh.Client, owner, name string, jobID int64, file string) (string, error) {
	mu, _ := logLocks.LoadOrStore(file, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	if b, err := os.ReadFile(file); err == nil {
		return string(b), nil
	}
	u, _, err := cl.Actions.GetWorkflowJobLogs(ctx, owner, name, jobID, 3)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("job log download: %s", resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return "", err
	}
	return string(b), nil
}
