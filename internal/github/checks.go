package github

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// Check is one judged CI check of a commit: a commit status or a check run, kept distinct
// (same-named checks from different events stay separate, like GitHub's checks UI).
type Check struct {
	Name      string  `json:"name"`
	Bucket    string  `json:"bucket"`
	StartedAt *string `json:"startedAt"`
	Link      *string `json:"link"`
	Event     *string `json:"event"`
	RunID     *int64  `json:"runId"`
	JobID     *int64  `json:"jobId"`
}

func statusBucket(state string) string {
	switch state {
	case "success":
		return "pass"
	case "failure", "error":
		return "fail"
	}
	return "pending" // pending, expected and anything unknown must not end the wait
}

func checkRunBucket(r *gh.CheckRun) string {
	if r.GetStatus() != "completed" || r.Conclusion == nil {
		return "pending"
	}
	switch r.GetConclusion() {
	case "success":
		return "pass"
	case "skipped", "neutral", "stale", "action_required":
		// awaiting approval never runs: waiting for it is meaningless
		return "skipped"
	case "failure", "timed_out", "cancelled", "startup_failure":
		return "fail"
	}
	return "pending"
}

// commitChecks reads a commit's statuses and check runs and judges them, with the Actions run
// and event behind each check run taken from the commit's workflow runs.
func commitChecks(ctx context.Context, cl *gh.Client, owner, name, sha string) ([]Check, error) {
	combined, _, err := cl.Repositories.GetCombinedStatus(ctx, owner, name, sha, &gh.ListOptions{PerPage: 100})
	if err != nil {
		return nil, err
	}
	var runs []*gh.CheckRun
	opt := &gh.ListCheckRunsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		res, resp, err := cl.Checks.ListCheckRunsForRef(ctx, owner, name, sha, opt)
		if err != nil {
			return nil, err
		}
		runs = append(runs, res.CheckRuns...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	// A check suite that ended without a check run is in the snapshot too: a fork PR's
	// workflow waiting for a maintainer's approval exists only there (action_required).
	suites, err := runlessSuites(ctx, cl, owner, name, sha)
	if err != nil {
		return nil, err
	}
	// A check run carries no event: its details_url names the Actions run (and job), and the
	// commit's workflow runs map run id → event (one extra request, only for Actions checks
	// and run-less suites, whose names are their workflow runs').
	events := map[int64]string{}
	bySuite := map[int64]*gh.WorkflowRun{}
	need := len(suites) > 0
	for _, r := range runs {
		need = need || actionsRun().MatchString(r.GetDetailsURL())
	}
	if need {
		wruns, err := workflowRuns(ctx, cl, owner, name, sha)
		if err != nil {
			return nil, err
		}
		for _, w := range wruns {
			events[w.GetID()] = w.GetEvent()
			if w.CheckSuiteID != nil {
				bySuite[w.GetCheckSuiteID()] = w
			}
		}
	}
	out := []Check{}
	for _, s := range combined.Statuses {
		out = append(out, Check{Name: s.GetContext(), Bucket: statusBucket(s.GetState()), Link: s.TargetURL})
	}
	for _, r := range runs {
		c := Check{Name: r.GetName(), Bucket: checkRunBucket(r), Link: r.HTMLURL}
		if c.Link == nil {
			c.Link = r.DetailsURL
		}
		if r.StartedAt != nil {
			s := r.StartedAt.UTC().Format(time.RFC3339)
			c.StartedAt = &s
		}
		if m := actionsRun().FindStringSubmatch(r.GetDetailsURL()); m != nil {
			id, _ := strconv.ParseInt(m[1], 10, 64)
			c.RunID = &id
			if e, ok := events[id]; ok {
				c.Event = &e
			}
		}
		if m := actionsJob().FindStringSubmatch(r.GetDetailsURL()); m != nil {
			id, _ := strconv.ParseInt(m[1], 10, 64)
			c.JobID = &id
		}
		out = append(out, c)
	}
	for _, su := range suites {
		c := Check{Name: su.GetApp().GetSlug(), Bucket: suiteBucket(su)}
		if w := bySuite[su.GetID()]; w != nil {
			id, event := w.GetID(), w.GetEvent()
			c.Name, c.Link, c.RunID, c.Event = w.GetName(), w.HTMLURL, &id, &event
		}
		out = append(out, c)
	}
	return out, nil
}

// runlessSuites are the commit's check suites that completed without any check run.
func runlessSuites(ctx context.Context, cl *gh.Client, owner, name, sha string) ([]*gh.CheckSuite, error) {
	var out []*gh.CheckSuite
	opt := &gh.ListCheckSuiteOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		res, resp, err := cl.Checks.ListCheckSuitesForRef(ctx, owner, name, sha, opt)
		if err != nil {
			return nil, err
		}
		for _, su := range res.CheckSuites {
			if su.GetStatus() == "completed" && su.GetLatestCheckRunsCount() == 0 {
				out = append(out, su)
			}
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

// suiteBucket judges a run-less completed suite: action_required is a workflow awaiting a
// maintainer's approval, which never starts by itself.
func suiteBucket(su *gh.CheckSuite) string {
	switch su.GetConclusion() {
	case "action_required":
		return "awaiting_approval"
	case "success":
		return "pass"
	case "failure", "timed_out", "cancelled", "startup_failure":
		return "fail"
	}
	return "skipped"
}

var (
	actionsRun = lazyRE(`/actions/runs/(\d+)`)
	actionsJob = lazyRE(`/actions/runs/\d+/job/(\d+)`)
)

func workflowRuns(ctx context.Context, cl *gh.Client, owner, name, sha string) ([]*gh.WorkflowRun, error) {
	var out []*gh.WorkflowRun
	opt := &gh.ListWorkflowRunsOptions{HeadSHA: sha, ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		res, resp, err := cl.Actions.ListRepositoryWorkflowRuns(ctx, owner, name, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, res.WorkflowRuns...)
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

func displayName(c Check) string {
	if c.Event != nil && *c.Event != "" {
		return c.Name + " (" + *c.Event + ")"
	}
	return c.Name
}

// roundText is one polling round's progress: the checks still in flight, running first.
func roundText(subject string, round int, checks []Check) string {
	completed := 0
	var running, queued []string
	for _, c := range checks {
		if c.Bucket != "pending" {
			completed++
			continue
		}
		n := displayName(c)
		if c.Link != nil && *c.Link != "" {
			n = "[" + n + "](" + *c.Link + ")"
		}
		if c.StartedAt != nil && *c.StartedAt != "" {
			running = append(running, "- [>] "+n)
		} else {
			queued = append(queued, "- [ ] "+n)
		}
	}
	body := strings.Join(append(running, queued...), "\n")
	if len(checks) == 0 {
		body = "- _no checks reported_"
	}
	s := fmt.Sprintf("%s checks — round %d: %d/%d complete", subject, round, completed, len(checks))
	if body != "" {
		s += "\n\n" + body
	}
	return s
}

type pollResult struct {
	outcome string // completed, fail_fast, timeout, awaiting_approval
	checks  []Check
	elapsed time.Duration
}

// poll reads the checks every interval until none is pending, one failed under failFast, or the
// deadline passed. A failed round does not end the wait; only when no round ever succeeded is
// the last error returned.
func (c *Client) poll(ctx context.Context, cl *gh.Client, subject, owner, name, sha string, failFast bool, event string, progress func(string)) (pollResult, error) {
	interval, deadline := c.Interval, c.Deadline
	if interval == 0 {
		interval = PollInterval
	}
	if deadline == 0 {
		deadline = WatchDeadline
	}
	start := c.now()
	var last []Check
	var lastErr error
	ok := false
	for round := 1; ; round++ {
		if ctx.Err() != nil {
			return pollResult{}, errors.New("PR checks polling was aborted")
		}
		checks, err := commitChecks(ctx, cl, owner, name, sha)
		if err == nil {
			ok = true
			if event != "" {
				kept := []Check{}
				for _, ch := range checks {
					if ch.Event != nil && *ch.Event == event {
						kept = append(kept, ch)
					}
				}
				checks = kept
			}
			last = checks
			if progress != nil {
				progress(roundText(subject, round, checks))
			}
			pending, failed, awaiting := false, false, false
			for _, ch := range checks {
				pending = pending || ch.Bucket == "pending"
				failed = failed || ch.Bucket == "fail"
				awaiting = awaiting || ch.Bucket == "awaiting_approval"
			}
			if awaiting {
				// Polling is pointless: the workflow starts only when a maintainer approves it.
				return pollResult{"awaiting_approval", last, c.now().Sub(start)}, nil
			}
			if !pending {
				return pollResult{"completed", last, c.now().Sub(start)}, nil
			}
			if failFast && failed {
				return pollResult{"fail_fast", last, c.now().Sub(start)}, nil
			}
		} else {
			if ctx.Err() != nil {
				return pollResult{}, ctx.Err()
			}
			lastErr = err
		}
		if c.now().Sub(start) >= deadline {
			if !ok {
				return pollResult{}, fmt.Errorf("PR checks polling failed before any round succeeded: %v", lastErr)
			}
			return pollResult{"timeout", last, c.now().Sub(start)}, nil
		}
		if err := c.sleep(ctx, interval); err != nil {
			return pollResult{}, err
		}
	}
}

// FailedJob is one Actions job of the head commit that did not succeed.
type FailedJob struct {
	RunID      int64  `json:"runId"`
	RunName    string `json:"runName"`
	RunURL     string `json:"runUrl"`
	JobID      int64  `json:"jobId"`
	JobName    string `json:"jobName"`
	Conclusion string `json:"conclusion"`
	JobURL     string `json:"jobUrl,omitempty"`
}

var failedConclusions = map[string]bool{"failure": true, "timed_out": true, "action_required": true, "startup_failure": true, "cancelled": true}

func icon(conclusion string) string {
	switch conclusion {
	case "success":
		return "✅"
	case "failure":
		return "❌"
	case "cancelled":
		return "🚫"
	case "skipped":
		return "⏭️"
	case "timed_out":
		return "⏰"
	case "action_required":
		return "⚠️"
	}
	return "🔄"
}

func actionJobs(ctx context.Context, cl *gh.Client, owner, name, sha string) ([]FailedJob, error) {
	runs, err := workflowRuns(ctx, cl, owner, name, sha)
	if err != nil {
		return nil, err
	}
	var out []FailedJob
	for _, r := range runs {
		jobs, err := runJobs(ctx, cl, owner, name, r.GetID())
		if err != nil {
			return nil, err
		}
		for _, j := range jobs {
			if j.Conclusion != nil && !failedConclusions[j.GetConclusion()] {
				continue
			}
			concl := j.GetConclusion()
			if concl == "" {
				concl = "in_progress"
			}
			out = append(out, FailedJob{r.GetID(), r.GetName(), r.GetHTMLURL(), j.GetID(), j.GetName(), concl, j.GetHTMLURL()})
		}
	}
	return out, nil
}

// verdict renders the final report (the seed's PASSED / FAILED / STILL IN FLIGHT texts).
func verdict(subject string, p pollResult, jobs []FailedJob, enrichErr string) (status, text string) {
	var failed, pending []Check
	for _, c := range p.checks {
		switch c.Bucket {
		case "fail":
			failed = append(failed, c)
		case "pending":
			pending = append(pending, c)
		}
	}
	total := len(p.checks)
	if p.outcome == "awaiting_approval" {
		var lines []string
		for _, c := range p.checks {
			if c.Bucket == "awaiting_approval" {
				l := "- " + icon("action_required") + " **" + displayName(c) + "**"
				if c.Link != nil && *c.Link != "" {
					l += " — [view run](" + *c.Link + ")"
				}
				lines = append(lines, l)
			}
		}
		return "awaiting_approval", fmt.Sprintf("## %s CI Checks - AWAITING APPROVAL\n\n%d workflow(s) wait for a maintainer to approve them and will not start on their own:\n\n%s",
			subject, len(lines), strings.Join(lines, "\n"))
	}
	if len(failed) == 0 && p.outcome == "completed" {
		return "success", fmt.Sprintf("## %s CI Checks - PASSED\n\nAll %d check(s) passed.", subject, total)
	}
	if len(failed) > 0 {
		var lines []string
		for _, c := range failed {
			l := "- " + icon("failure") + " **" + displayName(c) + "**"
			if c.Link != nil && *c.Link != "" {
				l += " — [view check](" + *c.Link + ")"
			}
			lines = append(lines, l)
		}
		for _, j := range jobs {
			u := j.JobURL
			if u == "" {
				u = j.RunURL
			}
			lines = append(lines,
				fmt.Sprintf("  - %s job **%s** (%s) — [job #%d](%s)", icon(j.Conclusion), j.JobName, j.Conclusion, j.JobID, u),
				fmt.Sprintf("    - workflow: [%s (#%d)](%s)", j.RunName, j.RunID, j.RunURL))
		}
		if enrichErr != "" {
			lines = append(lines, "  - _Actions job details unavailable: "+enrichErr+"_")
		}
		if len(pending) > 0 {
			lines = append(lines, fmt.Sprintf("\n_%d other check(s) still in flight._", len(pending)))
		}
		return "failure", fmt.Sprintf("## %s CI Checks - FAILED\n\n%d of %d check(s) failed:\n\n%s", subject, len(failed), total, strings.Join(lines, "\n"))
	}
	minutes := int(math.Max(1, math.Round(p.elapsed.Minutes())))
	var lines []string
	for _, c := range pending {
		mark := " "
		if c.StartedAt != nil && *c.StartedAt != "" {
			mark = ">"
		}
		n := c.Name
		if c.Link != nil && *c.Link != "" {
			n = "[" + c.Name + "](" + *c.Link + ")"
		}
		lines = append(lines, "- ["+mark+"] "+n)
	}
	body := strings.Join(lines, "\n")
	if body == "" {
		body = "- _no checks reported_"
	}
	return "pending", fmt.Sprintf("## %s CI Checks - STILL IN FLIGHT\n\n%d of %d check(s) still incomplete after ~%dm:\n\n%s", subject, len(pending), total, minutes, body)
}

func (c *Client) waitReport(ctx context.Context, cl *gh.Client, subject, owner, name, sha string, failFast bool, event string, progress func(string)) (Result, error) {
	p, err := c.poll(ctx, cl, subject, owner, name, sha, failFast, event, progress)
	if err != nil {
		return Result{}, err
	}
	var jobs []FailedJob
	enrichErr := ""
	for _, ch := range p.checks {
		if ch.Bucket == "fail" {
			if jobs, err = actionJobs(ctx, cl, owner, name, sha); err != nil {
				enrichErr = err.Error()
			}
			break
		}
	}
	status, text := verdict(subject, p, jobs, enrichErr)
	if jobs == nil {
		jobs = []FailedJob{}
	}
	if status != "failure" {
		jobs = []FailedJob{}
	}
	return Result{Text: text, Value: obj{"status": status, "totalChecks": len(p.checks), "checks": p.checks, "failedJobs": jobs}}, nil
}

// WaitPRChecks is wait-github-pr-checks.
func (c *Client) WaitPRChecks(ctx context.Context, cwd, repo string, number int64, failFast bool, input any, progress func(string)) (Result, error) {
	if progress != nil {
		progress(fmt.Sprintf("Watching CI checks for PR #%d...", number))
	}
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	pr, _, err := cl.PullRequests.Get(ctx, owner, name, int(number))
	if err != nil {
		return Result{}, err
	}
	return c.waitReport(ctx, cl, fmt.Sprintf("PR #%d", number), owner, name, pr.GetHead().GetSHA(), failFast, "", progress)
}

// WaitCommitChecks is wait-github-commit-checks: the ref is resolved to its commit SHA first.
func (c *Client) WaitCommitChecks(ctx context.Context, cwd, repo, ref string, failFast bool, event string, input any, progress func(string)) (Result, error) {
	if progress != nil {
		progress(fmt.Sprintf("Watching CI checks for commit %s...", ref))
	}
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	commit, _, err := cl.Repositories.GetCommit(ctx, owner, name, ref, nil)
	if err != nil {
		return Result{}, err
	}
	sha := commit.GetSHA()
	short := sha
	if len(short) > 7 {
		short = short[:7]
	}
	return c.waitReport(ctx, cl, "commit "+short, owner, name, sha, failFast, event, progress)
}

// PRStatus is read-github-pr-status: the head commit's checks as a snapshot, never waiting.
func (c *Client) PRStatus(ctx context.Context, cwd, repo string, number int64, input any) (Result, error) {
	cl, full, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	pr, _, err := cl.PullRequests.Get(ctx, owner, name, int(number))
	if err != nil {
		return Result{}, err
	}
	sha := pr.GetHead().GetSHA()
	checks, err := commitChecks(ctx, cl, owner, name, sha)
	if err != nil {
		return Result{}, err
	}
	type row struct {
		Name   string  `json:"name"`
		Bucket string  `json:"bucket"`
		Event  *string `json:"event"`
		RunID  *int64  `json:"run_id"`
		JobID  *int64  `json:"job_id"`
		URL    *string `json:"url"`
	}
	rows := []row{}
	for _, ch := range checks {
		rows = append(rows, row{ch.Name, ch.Bucket, ch.Event, ch.RunID, ch.JobID, ch.Link})
	}
	type payload struct {
		PR      int64  `json:"pr"`
		Repo    string `json:"repo"`
		HeadSHA string `json:"head_sha"`
		Checks  []row  `json:"checks"`
	}
	return jsonResult(payload{number, full, sha, rows}), nil
}
