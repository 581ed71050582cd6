package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v84/github"
)

// ListParams are the filters of list-github-issues and list-github-prs.
type ListParams struct {
	Repo, Keywords, State, Label, Author, Assignee, Milestone, Fields string
	Limit                                                             int
}

var plainQualifier = lazyRE(`^[\w@./-]+$`)

func quoteQualifier(v string) string {
	if plainQualifier().MatchString(v) {
		return v
	}
	return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`
}

// SearchQuery is the q of the issues-and-pull-requests search: state defaults to open, all
// applies no state filter, and for pull requests merged is is:merged and closed excludes
// merged ones (the search API reports a merged PR as closed).
func SearchQuery(kind string, p ListParams) (string, error) {
	var parts []string
	if p.Repo != "" {
		parts = append(parts, "repo:"+p.Repo)
	}
	if kind == "issue" {
		parts = append(parts, "is:issue")
	} else {
		parts = append(parts, "is:pr")
	}
	state := p.State
	if state == "" {
		state = "open"
	}
	switch state {
	case "open":
		parts = append(parts, "state:open")
	case "closed":
		if kind == "pr" {
			parts = append(parts, "state:closed -is:merged")
		} else {
			parts = append(parts, "state:closed")
		}
	case "merged":
		if kind == "issue" {
			return "", fmt.Errorf("state=merged is only valid for PR searches")
		}
		parts = append(parts, "is:merged")
	case "all":
	default:
		merged := ""
		if kind == "pr" {
			merged = "merged, "
		}
		return "", fmt.Errorf("invalid state: %s (expected open, closed, %sall)", state, merged)
	}
	if p.Keywords != "" {
		parts = append(parts, p.Keywords)
	}
	if p.Label != "" {
		parts = append(parts, "label:"+quoteQualifier(p.Label))
	}
	if p.Author != "" {
		parts = append(parts, "author:"+p.Author)
	}
	if p.Assignee != "" {
		parts = append(parts, "assignee:"+p.Assignee)
	}
	if p.Milestone != "" {
		parts = append(parts, "milestone:"+quoteQualifier(p.Milestone))
	}
	return strings.Join(parts, " "), nil
}

// Hit is one row of the list tools.
type Hit struct {
	Number    int      `json:"number"`
	State     string   `json:"state"`
	Title     string   `json:"title"`
	URL       string   `json:"url"`
	Repo      string   `json:"repo"`
	Author    string   `json:"author"`
	Labels    []string `json:"labels"`
	Milestone string   `json:"milestone"`
	Assignees []string `json:"assignees"`
	Comments  int      `json:"comments"`
	CreatedAt string   `json:"createdAt"`
	UpdatedAt string   `json:"updatedAt"`
	ClosedAt  string   `json:"closedAt"`
	MergedAt  string   `json:"mergedAt"`
}

var fieldOrder = []string{"number", "state", "title", "url", "repo", "author", "labels", "milestone", "assignees", "comments", "createdAt", "updatedAt", "closedAt", "mergedAt"}

func (h Hit) field(f string) (string, bool) {
	switch f {
	case "number":
		return fmt.Sprint(h.Number), true
	case "state":
		return h.State, true
	case "title":
		return h.Title, true
	case "url":
		return h.URL, true
	case "repo":
		return h.Repo, true
	case "author":
		return h.Author, true
	case "labels":
		return strings.Join(h.Labels, ","), true
	case "milestone":
		return h.Milestone, true
	case "assignees":
		return strings.Join(h.Assignees, ","), true
	case "comments":
		return fmt.Sprint(h.Comments), true
	case "createdAt":
		return h.CreatedAt, true
	case "updatedAt":
		return h.UpdatedAt, true
	case "closedAt":
		return h.ClosedAt, true
	case "mergedAt":
		return h.MergedAt, true
	}
	return "", false
}

// renderHits is the rows as tab-separated columns: fields, or number,state,title,labels,
// updatedAt with repo first when no repo was given.
func renderHits(kind string, hits []Hit, repo, fields string) (string, error) {
	var cols []string
	switch {
	case fields != "":
		for _, f := range strings.Split(fields, ",") {
			if f = strings.TrimSpace(f); f != "" {
				cols = append(cols, f)
			}
		}
	case repo != "":
		cols = []string{"number", "state", "title", "labels", "updatedAt"}
	default:
		cols = []string{"repo", "number", "state", "title", "labels", "updatedAt"}
	}
	var unknown []string
	for _, f := range cols {
		if _, ok := (Hit{}).field(f); !ok {
			unknown = append(unknown, f)
		}
	}
	if len(unknown) > 0 {
		s := ""
		if len(unknown) > 1 {
			s = "s"
		}
		return "", fmt.Errorf("unknown field%s: %s (valid: %s)", s, strings.Join(unknown, ", "), strings.Join(fieldOrder, ", "))
	}
	if len(hits) == 0 {
		if kind == "issue" {
			return "(no matching issues)", nil
		}
		return "(no matching pull requests)", nil
	}
	rows := make([]string, len(hits))
	for i, h := range hits {
		vals := make([]string, len(cols))
		for j, f := range cols {
			vals[j], _ = h.field(f)
		}
		rows[i] = strings.Join(vals, "\t")
	}
	return strings.Join(rows, "\n"), nil
}

var repoURL = lazyRE(`/repos/([^/]+/[^/]+)$`)

func hitOf(is *gh.Issue) Hit {
	h := Hit{Number: is.GetNumber(), State: is.GetState(), Title: is.GetTitle(), URL: is.GetHTMLURL(),
		Author: is.GetUser().GetLogin(), Labels: []string{}, Assignees: []string{}, Comments: is.GetComments(),
		CreatedAt: dateOnly(is.CreatedAt), UpdatedAt: dateOnly(is.UpdatedAt), ClosedAt: dateOnly(is.ClosedAt)}
	if m := repoURL().FindStringSubmatch(is.GetRepositoryURL()); m != nil {
		h.Repo = m[1]
	}
	for _, l := range is.Labels {
		h.Labels = append(h.Labels, l.GetName())
	}
	h.Milestone = is.GetMilestone().GetTitle()
	for _, a := range is.Assignees {
		h.Assignees = append(h.Assignees, a.GetLogin())
	}
	if pr := is.PullRequestLinks; pr != nil && pr.MergedAt != nil {
		h.State, h.MergedAt = "merged", dateOnly(pr.MergedAt)
	}
	return h
}

// List is list-github-issues (kind "issue") and list-github-prs (kind "pr"). Both branches go
// through the search API: with keywords across GitHub when repo is omitted, without keywords
// in the given or current repository.
func (c *Client) List(ctx context.Context, cwd, kind string, p ListParams, input any) (Result, error) {
	if p.Keywords == "" && p.Repo == "" {
		repo, err := c.ResolveRepo(ctx, cwd, "", input)
		if err != nil {
			return Result{}, err
		}
		p.Repo = repo
	}
	q, err := SearchQuery(kind, p)
	if err != nil {
		return Result{}, err
	}
	limit := p.Limit
	if limit == 0 {
		limit = 30
	}
	limit = min(max(limit, 1), 100)
	cl, err := c.restClient(ctx, cwd)
	if err != nil {
		return Result{}, err
	}
	res, _, err := cl.Search.Issues(ctx, q, &gh.SearchOptions{ListOptions: gh.ListOptions{PerPage: limit}})
	if err != nil {
		return Result{}, err
	}
	hits := []Hit{}
	for i, is := range res.Issues {
		if i >= limit {
			break
		}
		hits = append(hits, hitOf(is))
	}
	text, err := renderHits(kind, hits, p.Repo, p.Fields)
	if err != nil {
		return Result{}, err
	}
	return Result{Text: truncateText(text), Value: obj{"text": text, "items": hits}}, nil
}
