// Package github binds the GitHub read-only tools to package internal/github.
package github

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/pigo-agent/pigo/internal/github"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	r.Register("github", "read-github-issue", ghNumberTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs, n int64) (github.Result, error) {
		return GitHub.ReadIssue(ctx, inv.Session.Cwd, a.Repo, n, a.input)
	}))
	r.Register("github", "read-github-issue-comments", ghNumberTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs, n int64) (github.Result, error) {
		return GitHub.ReadIssueComments(ctx, inv.Session.Cwd, a.Repo, n, a.input)
	}))
	r.Register("github", "read-github-pr", ghNumberTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs, n int64) (github.Result, error) {
		return GitHub.ReadPR(ctx, inv.Session.Cwd, a.Repo, n, a.input)
	}))
	r.Register("github", "read-github-pr-comments", ghNumberTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs, n int64) (github.Result, error) {
		return GitHub.ReadPRComments(ctx, inv.Session.Cwd, a.Repo, n, a.Reviews, a.input)
	}))
	r.Register("github", "read-github-pr-status", ghNumberTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs, n int64) (github.Result, error) {
		return GitHub.PRStatus(ctx, inv.Session.Cwd, a.Repo, n, a.input)
	}))
	r.Register("github", "wait-github-pr-checks", ghNumberTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs, n int64) (github.Result, error) {
		return GitHub.WaitPRChecks(ctx, inv.Session.Cwd, a.Repo, n, a.FailFast, a.input, ghProgress(inv))
	}))
	r.Register("github", "get-github-workflow-jobs", ghIDTool("run_id", func(ctx context.Context, inv *toolrun.Invocation, a ghArgs, id int64) (github.Result, error) {
		return GitHub.WorkflowJobs(ctx, inv.Session.Cwd, a.Repo, id, a.input)
	}))
	r.Register("github", "read-github-ci-logs", ghIDTool("job_id", func(ctx context.Context, inv *toolrun.Invocation, a ghArgs, id int64) (github.Result, error) {
		return GitHub.CILogs(ctx, inv.Session.Cwd, a.Repo, id, a.input, ghProgress(inv))
	}))
	r.Register("github", "read-github-pr-diff", ghNumberTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs, n int64) (github.Result, error) {
		return GitHub.ReadPRDiff(ctx, inv.Session.Cwd, a.Repo, n, a.input)
	}))
	r.Register("github", "watch-github-run", ghIDTool("run_id", func(ctx context.Context, inv *toolrun.Invocation, a ghArgs, id int64) (github.Result, error) {
		return GitHub.WatchRun(ctx, inv.Session.Cwd, a.Repo, id, a.input, ghProgress(inv))
	}))
	r.Register("github", "read-github-repo", ghTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs) (github.Result, error) {
		return GitHub.ReadRepo(ctx, inv.Session.Cwd, a.Repo, a.input)
	}))
	r.Register("github", "list-github-releases", ghTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs) (github.Result, error) {
		return GitHub.ListReleases(ctx, inv.Session.Cwd, a.Repo, int(a.Limit), a.input)
	}))
	r.Register("github", "read-github-release", ghTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs) (github.Result, error) {
		return GitHub.ReadRelease(ctx, inv.Session.Cwd, a.Repo, a.Tag, a.input)
	}))
	r.Register("github", "list-github-workflow-runs", ghTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs) (github.Result, error) {
		return GitHub.ListWorkflowRuns(ctx, inv.Session.Cwd, a.Repo, int(a.Limit), a.Status, a.Workflow, a.input)
	}))
	for name, kind := range map[string]string{"list-github-issues": "issue", "list-github-prs": "pr"} {
		r.Register("github", name, ghTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs) (github.Result, error) {
			return GitHub.List(ctx, inv.Session.Cwd, kind, github.ListParams{Repo: a.Repo, Keywords: a.Keywords, State: a.State,
				Label: a.Label, Author: a.Author, Assignee: a.Assignee, Milestone: a.Milestone, Fields: a.Fields, Limit: int(a.Limit)}, a.input)
		}))
	}
	r.Register("github", "download-github-release-assets", ghTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs) (github.Result, error) {
		return GitHub.DownloadAssets(ctx, inv.Session.Cwd, a.Repo, a.Tag, a.Pattern, a.Archive, a.input)
	}))
	r.Register("github", "wait-github-commit-checks", ghTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs) (github.Result, error) {
		ref := string(a.Commit)
		var s string
		if json.Unmarshal(a.Commit, &s) == nil {
			ref = s
		}
		return GitHub.WaitCommitChecks(ctx, inv.Session.Cwd, a.Repo, ref, a.FailFast, a.Event, a.input, ghProgress(inv))
	}))
}

// GitHub is the client of the github toolset's tools: one per process, so `gh auth token` runs
// once per session. Tests point it at a loopback REST server.
var GitHub = &github.Client{}

// ghArgs is the union of the GitHub tools' parameters.
type ghArgs struct {
	Repo      string          `json:"repo"`
	Number    json.RawMessage `json:"number"`
	RunID     json.RawMessage `json:"run_id"`
	JobID     json.RawMessage `json:"job_id"`
	Commit    json.RawMessage `json:"commit"`
	Reviews   bool            `json:"reviews"`
	FailFast  bool            `json:"fail_fast"`
	Event     string          `json:"event"`
	Limit     float64         `json:"limit"`
	Status    string          `json:"status"`
	Workflow  string          `json:"workflow"`
	Tag       string          `json:"tag"`
	Keywords  string          `json:"keywords"`
	State     string          `json:"state"`
	Label     string          `json:"label"`
	Author    string          `json:"author"`
	Assignee  string          `json:"assignee"`
	Milestone string          `json:"milestone"`
	Fields    string          `json:"fields"`
	Pattern   string          `json:"pattern"`
	Archive   string          `json:"archive"`
	input     json.RawMessage
}

func ghProgress(inv *toolrun.Invocation) func(string) {
	return func(s string) {
		inv.Progress(toolrun.Result{Content: []llm.Content{llm.TextBlock(s)}, Details: json.RawMessage(`{}`)})
	}
}

// ghTool wraps a GitHub read: the reference text when gh cannot run here, the call's input in
// details (as the seed's), the structured value for codemode, and the seed's structured
// failures as error results.
func ghTool(f func(context.Context, *toolrun.Invocation, ghArgs) (github.Result, error)) toolrun.Impl {
	return toolrun.Impl{Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		if msg := github.Unavailable(); msg != "" && GitHub.Gh == "" {
			return toolrun.Result{}, errors.New(msg)
		}
		var a ghArgs
		if err := inv.Decode(&a); err != nil {
			return toolrun.Result{}, err
		}
		a.input = inv.Args
		res, err := f(ctx, inv, a)
		if err != nil {
			return toolrun.Result{}, err
		}
		details := toolrun.MustJSON(map[string]json.RawMessage{"input": inv.Args})
		if res.Failed {
			return toolrun.Result{Content: []llm.Content{llm.TextBlock(res.Text)}, Details: details, IsError: true}, nil
		}
		r := toolrun.Result{Content: []llm.Content{llm.TextBlock(res.Text)}, Details: details}
		r.Structured = toolrun.MustJSON(res.Value)
		return r, nil
	}}
}

func ghIDTool(key string, f func(context.Context, *toolrun.Invocation, ghArgs, int64) (github.Result, error)) toolrun.Impl {
	return ghTool(func(ctx context.Context, inv *toolrun.Invocation, a ghArgs) (github.Result, error) {
		raw := map[string]json.RawMessage{"number": a.Number, "run_id": a.RunID, "job_id": a.JobID}[key]
		id, err := github.PositiveID(raw, key)
		if err != nil {
			return github.Result{}, err
		}
		return f(ctx, inv, a, id)
	})
}

func ghNumberTool(f func(context.Context, *toolrun.Invocation, ghArgs, int64) (github.Result, error)) toolrun.Impl {
	return ghIDTool("number", f)
}
