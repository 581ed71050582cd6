package github

import (
	"context"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// Result is one tool call's outcome: the model's text and the structured value codemode
// scripts receive. Failed is the seed's structured failure ({ok:false}): the text says why.
type Result struct {
	Text   string
	Value  any
	Failed bool
}

// obj is an ordered-enough JSON object: encoding/json sorts map keys, so output is
// deterministic.
type obj = map[string]any

func ts(t *gh.Timestamp) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func actor(u *gh.User) any {
	if u == nil {
		return nil
	}
	a := obj{"login": u.GetLogin(), "is_bot": u.GetType() == "Bot"}
	if u.Name != nil {
		a["name"] = u.GetName()
	}
	return a
}

func labels(ls []*gh.Label) []any {
	out := []any{}
	for _, l := range ls {
		out = append(out, obj{"name": l.GetName(), "color": l.GetColor(), "description": l.GetDescription()})
	}
	return out
}

func actors(us []*gh.User) []any {
	out := []any{}
	for _, u := range us {
		out = append(out, actor(u))
	}
	return out
}

func milestone(m *gh.Milestone) any {
	if m == nil {
		return nil
	}
	return obj{"title": m.GetTitle(), "number": m.GetNumber(), "dueOn": ts(m.DueOn)}
}

// issueComments reads every conversation comment of an issue or pull request, all pages.
func issueComments(ctx context.Context, cl *gh.Client, owner, name string, number int) ([]any, error) {
	out := []any{}
	opt := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := cl.Issues.ListComments(ctx, owner, name, number, opt)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			out = append(out, obj{"id": c.GetNodeID(), "author": actor(c.User), "body": c.GetBody(),
				"createdAt": ts(c.CreatedAt), "url": c.GetHTMLURL()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

// ReadIssue is read-github-issue: the issue in the shape of `gh issue view --json`.
func (c *Client) ReadIssue(ctx context.Context, cwd, repo string, number int64, input any) (Result, error) {
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	is, _, err := cl.Issues.Get(ctx, owner, name, int(number))
	if err != nil {
		return Result{}, err
	}
	comments, err := issueComments(ctx, cl, owner, name, int(number))
	if err != nil {
		return Result{}, err
	}
	v := obj{
		"number": is.GetNumber(), "title": is.GetTitle(), "state": strings.ToUpper(is.GetState()),
		"body": is.GetBody(), "author": actor(is.User), "createdAt": ts(is.CreatedAt),
		"updatedAt": ts(is.UpdatedAt), "closedAt": ts(is.ClosedAt), "url": is.GetHTMLURL(),
		"labels": labels(is.Labels), "assignees": actors(is.Assignees), "comments": comments,
		"milestone": milestone(is.Milestone),
	}
	return jsonResult(v), nil
}

// ReadIssueComments is read-github-issue-comments: {comments}.
func (c *Client) ReadIssueComments(ctx context.Context, cwd, repo string, number int64, input any) (Result, error) {
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	comments, err := issueComments(ctx, cl, owner, name, int(number))
	if err != nil {
		return Result{}, err
	}
	return jsonResult(obj{"comments": comments}), nil
}

// ReadPR is read-github-pr: the pull request in the shape of `gh pr view --json`.
func (c *Client) ReadPR(ctx context.Context, cwd, repo string, number int64, input any) (Result, error) {
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	pr, _, err := cl.PullRequests.Get(ctx, owner, name, int(number))
	if err != nil {
		return Result{}, err
	}
	comments, err := issueComments(ctx, cl, owner, name, int(number))
	if err != nil {
		return Result{}, err
	}
	reviews, err := prReviews(ctx, cl, owner, name, int(number))
	if err != nil {
		return Result{}, err
	}
	requests := []any{}
	for _, u := range pr.RequestedReviewers {
		requests = append(requests, obj{"login": u.GetLogin()})
	}
	for _, t := range pr.RequestedTeams {
		requests = append(requests, obj{"name": t.GetName(), "slug": t.GetSlug()})
	}
	state := strings.ToUpper(pr.GetState())
	if pr.MergedAt != nil {
		state = "MERGED"
	}
	v := obj{
		"number": pr.GetNumber(), "title": pr.GetTitle(), "state": state, "body": pr.GetBody(),
		"author": actor(pr.User), "createdAt": ts(pr.CreatedAt), "updatedAt": ts(pr.UpdatedAt),
		"closedAt": ts(pr.ClosedAt), "mergedAt": ts(pr.MergedAt), "mergedBy": actor(pr.MergedBy),
		"headRefName": pr.GetHead().GetRef(), "baseRefName": pr.GetBase().GetRef(), "url": pr.GetHTMLURL(),
		"additions": pr.GetAdditions(), "deletions": pr.GetDeletions(), "changedFiles": pr.GetChangedFiles(),
		"labels": labels(pr.Labels), "assignees": actors(pr.Assignees), "reviewRequests": requests,
		"reviews": reviews, "comments": comments, "milestone": milestone(pr.Milestone),
	}
	return jsonResult(v), nil
}

func prReviews(ctx context.Context, cl *gh.Client, owner, name string, number int) ([]any, error) {
	out := []any{}
	opt := &gh.ListOptions{PerPage: 100}
	for {
		rs, resp, err := cl.PullRequests.ListReviews(ctx, owner, name, number, opt)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			out = append(out, obj{"id": r.GetID(), "user": actor(r.User), "body": r.GetBody(),
				"state": r.GetState(), "submitted_at": ts(r.SubmittedAt), "url": r.GetHTMLURL()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

// ReadPRComments is read-github-pr-comments: the conversation comments, or with reviews the
// reviews and the inline review comments (REST's field names: user, diff_hunk, path, line).
func (c *Client) ReadPRComments(ctx context.Context, cwd, repo string, number int64, reviews bool, input any) (Result, error) {
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	if !reviews {
		comments, err := issueComments(ctx, cl, owner, name, int(number))
		if err != nil {
			return Result{}, err
		}
		return jsonResult(obj{"comments": comments}), nil
	}
	rs, err := prReviews(ctx, cl, owner, name, int(number))
	if err != nil {
		return Result{}, err
	}
	comments := []any{}
	opt := &gh.PullRequestListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := cl.PullRequests.ListComments(ctx, owner, name, int(number), opt)
		if err != nil {
			return Result{}, err
		}
		for _, c := range cs {
			var line any
			if c.Line != nil {
				line = c.GetLine()
			}
			comments = append(comments, obj{"id": c.GetID(), "user": actor(c.User), "body": c.GetBody(),
				"path": c.GetPath(), "line": line, "diff_hunk": c.GetDiffHunk(), "url": c.GetHTMLURL()})
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	return jsonResult(obj{"reviews": rs, "comments": comments}), nil
}

// WorkflowJobs is get-github-workflow-jobs: every job of a run, all pages.
func (c *Client) WorkflowJobs(ctx context.Context, cwd, repo string, runID int64, input any) (Result, error) {
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	jobs, err := runJobs(ctx, cl, owner, name, runID)
	if err != nil {
		return Result{}, err
	}
	out := []any{}
	for _, j := range jobs {
		out = append(out, jobJSON(j))
	}
	return jsonResult(obj{"total_count": len(out), "jobs": out}), nil
}

func runJobs(ctx context.Context, cl *gh.Client, owner, name string, runID int64) ([]*gh.WorkflowJob, error) {
	var out []*gh.WorkflowJob
	opt := &gh.ListWorkflowJobsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		js, resp, err := cl.Actions.ListWorkflowJobs(ctx, owner, name, runID, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, js.Jobs...)
		if resp.NextPage == 0 {
			return out, nil
		}
		opt.Page = resp.NextPage
	}
}

func strOrNil(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func jobJSON(j *gh.WorkflowJob) obj {
	steps := []any{}
	for _, s := range j.Steps {
		steps = append(steps, obj{"name": s.GetName(), "number": s.GetNumber(), "status": s.GetStatus(),
			"conclusion": strOrNil(s.Conclusion), "started_at": ts(s.StartedAt)})
	}
	return obj{"id": j.GetID(), "run_id": j.GetRunID(), "run_url": j.GetRunURL(), "name": j.GetName(),
		"status": j.GetStatus(), "conclusion": strOrNil(j.Conclusion), "html_url": strOrNil(j.HTMLURL), "steps": steps}
}
