package github

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// truncateText is the seed's line budget for text results: at most 2000 lines and 50 KiB, with
// a byte prefix kept when the first line alone is over budget.
func truncateText(s string) string {
	const maxLines, maxBytes = 2000, 50 * 1024
	lines := strings.Split(s, "\n")
	if len(lines) <= maxLines && len(s) <= maxBytes {
		return s
	}
	var out []string
	n := 0
	for _, l := range lines {
		if len(out) >= maxLines || n+len(l)+1 > maxBytes {
			break
		}
		out = append(out, l)
		n += len(l) + 1
	}
	if len(out) > 0 {
		return strings.Join(out, "\n")
	}
	b := []byte(s[:maxBytes])
	for len(b) > 0 && !utf8Valid(b) {
		b = b[:len(b)-1]
	}
	return string(b)
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\x00") == string(b) }

func dateOnly(t *gh.Timestamp) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

// DiffFile is one file's line counts parsed from a unified diff.
type DiffFile struct {
	Path      string `json:"path"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	OldPath   string `json:"oldPath,omitempty"`
}

var diffHeader = lazyRE(`^(?:"a/(.+)"|a/(\S+)) (?:"b/(.+)"|b/(\S+))$`)

func stripPrefix(raw string) string {
	s := strings.TrimRight(raw, " \t\r")
	if s == "/dev/null" {
		return ""
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "a/"), "b/")
	return strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`)
}

// ParseDiff counts added and deleted lines per file of a unified diff, on its structural
// markers only (diff --git, ---, +++, @@); binary and mode-only changes count 0.
func ParseDiff(diff string) (files []DiffFile, additions, deletions int) {
	files = []DiffFile{}
	var cur *DiffFile
	oldPath, inHunk := "", false
	flush := func() {
		if cur != nil {
			files = append(files, *cur)
		}
	}
	for _, l := range strings.Split(diff, "\n") {
		if rest, ok := strings.CutPrefix(l, "diff --git "); ok {
			flush()
			cur = &DiffFile{}
			oldPath, inHunk = "", false
			if m := diffHeader().FindStringSubmatch(strings.TrimSpace(rest)); m != nil {
				oldPath, cur.Path = m[1]+m[2], m[3]+m[4]
			}
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case strings.HasPrefix(l, "--- "):
			oldPath = stripPrefix(l[4:])
		case strings.HasPrefix(l, "+++ "):
			np := stripPrefix(l[4:])
			cur.Path = np
			if np == "" {
				cur.Path = oldPath
			}
			if oldPath != "" && oldPath != cur.Path {
				cur.OldPath = oldPath
			}
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(l, "+"):
			cur.Additions++
		case strings.HasPrefix(l, "-"):
			cur.Deletions++
		}
	}
	flush()
	for _, f := range files {
		additions += f.Additions
		deletions += f.Deletions
	}
	return files, additions, deletions
}

// ReadPRDiff is read-github-pr-diff: the raw diff as text, its counts as the value.
func (c *Client) ReadPRDiff(ctx context.Context, cwd, repo string, number int64, input any) (Result, error) {
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	diff, _, err := cl.PullRequests.GetRaw(ctx, owner, name, int(number), gh.RawOptions{Type: gh.Diff})
	if err != nil {
		return Result{}, err
	}
	files, add, del := ParseDiff(diff)
	return Result{Text: truncateText(diff), Value: obj{"text": diff, "files": files, "additions": add, "deletions": del, "changedFiles": len(files)}}, nil
}

// ReadRepo is read-github-repo: the repository in `gh repo view --json` field names and the
// seed's four-line summary.
func (c *Client) ReadRepo(ctx context.Context, cwd, repo string, input any) (Result, error) {
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	r, _, err := cl.Repositories.Get(ctx, owner, name)
	if err != nil {
		return Result{}, err
	}
	v := obj{"name": r.GetName(), "nameWithOwner": r.GetFullName(), "description": r.GetDescription(),
		"url": r.GetHTMLURL(), "homepageUrl": r.GetHomepage(), "visibility": strings.ToUpper(r.GetVisibility()),
		"isPrivate": r.GetPrivate(), "isFork": r.GetFork(), "isArchived": r.GetArchived(),
		"stargazerCount": r.GetStargazersCount(), "forkCount": r.GetForksCount(),
		"pushedAt": ts(r.PushedAt), "createdAt": ts(r.CreatedAt), "updatedAt": ts(r.UpdatedAt)}
	facts := []string{}
	add := func(s string) {
		if s != "" {
			facts = append(facts, s)
		}
	}
	add(strings.ToLower(r.GetVisibility()))
	if r.Language != nil {
		v["primaryLanguage"] = obj{"name": r.GetLanguage()}
		add(r.GetLanguage())
	} else {
		v["primaryLanguage"] = nil
	}
	if r.DefaultBranch != nil {
		v["defaultBranchRef"] = obj{"name": r.GetDefaultBranch()}
		add("default branch " + r.GetDefaultBranch())
	} else {
		v["defaultBranchRef"] = nil
	}
	add("stars " + strconv.Itoa(r.GetStargazersCount()))
	add("forks " + strconv.Itoa(r.GetForksCount()))
	if r.License != nil {
		v["licenseInfo"] = obj{"name": r.GetLicense().GetName()}
	} else {
		v["licenseInfo"] = nil
	}
	title := r.GetFullName()
	if d := r.GetDescription(); d != "" {
		title += " — " + d
	}
	var dates []string
	if r.PushedAt != nil {
		dates = append(dates, "pushed "+dateOnly(r.PushedAt))
	}
	if r.CreatedAt != nil {
		dates = append(dates, "created "+dateOnly(r.CreatedAt))
	}
	if r.License != nil && r.GetLicense().GetName() != "" {
		dates = append(dates, r.GetLicense().GetName())
	}
	var lines []string
	for _, l := range []string{title, strings.Join(facts, " · "), r.GetHTMLURL(), strings.Join(dates, " · ")} {
		if l != "" {
			lines = append(lines, l)
		}
	}
	text := strings.Join(lines, "\n")
	return Result{Text: truncateText(text), Value: obj{"text": text, "repo": v}}, nil
}

func releaseSummary(r *gh.RepositoryRelease, latest bool) obj {
	return obj{"tagName": r.GetTagName(), "name": r.GetName(), "isLatest": latest, "isPrerelease": r.GetPrerelease(),
		"isDraft": r.GetDraft(), "publishedAt": ts(r.PublishedAt), "createdAt": ts(r.CreatedAt)}
}

// ListReleases is list-github-releases: one row per release (tag, flags, published date, name).
func (c *Client) ListReleases(ctx context.Context, cwd, repo string, limit int, input any) (Result, error) {
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	if limit <= 0 {
		limit = 10
	}
	rs, _, err := cl.Repositories.ListReleases(ctx, owner, name, &gh.ListOptions{PerPage: min(limit, 100)})
	if err != nil {
		return Result{}, err
	}
	latestTag := ""
	if l, _, err := cl.Repositories.GetLatestRelease(ctx, owner, name); err == nil {
		latestTag = l.GetTagName()
	}
	releases := []any{}
	var rows []string
	for i, r := range rs {
		if i >= limit {
			break
		}
		latest := r.GetTagName() == latestTag && latestTag != ""
		releases = append(releases, releaseSummary(r, latest))
		var flags []string
		if latest {
			flags = append(flags, "latest")
		}
		if r.GetPrerelease() {
			flags = append(flags, "prerelease")
		}
		if r.GetDraft() {
			flags = append(flags, "draft")
		}
		rows = append(rows, strings.Join([]string{r.GetTagName(), strings.Join(flags, ","), dateOnly(r.PublishedAt), r.GetName()}, "\t"))
	}
	text := strings.Join(rows, "\n")
	if len(rows) == 0 {
		text = "(no releases)"
	}
	return Result{Text: truncateText(text), Value: obj{"text": text, "releases": releases}}, nil
}

// ReadRelease is read-github-release: title, facts, assets and notes.
func (c *Client) ReadRelease(ctx context.Context, cwd, repo, tag string, input any) (Result, error) {
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	r, _, err := cl.Repositories.GetReleaseByTag(ctx, owner, name, tag)
	if err != nil {
		return Result{}, err
	}
	assets := []any{}
	for _, a := range r.Assets {
		assets = append(assets, obj{"name": a.GetName(), "size": a.GetSize(), "downloadCount": a.GetDownloadCount(),
			"contentType": a.GetContentType(), "state": a.GetState(), "url": a.GetBrowserDownloadURL()})
	}
	v := obj{"tagName": r.GetTagName(), "name": r.GetName(), "body": r.GetBody(), "url": r.GetHTMLURL(),
		"isDraft": r.GetDraft(), "isPrerelease": r.GetPrerelease(), "createdAt": ts(r.CreatedAt),
		"publishedAt": ts(r.PublishedAt), "targetCommitish": r.GetTargetCommitish(), "author": actor(r.Author), "assets": assets}
	title := r.GetTagName()
	if r.GetName() != "" {
		title = strings.TrimPrefix(title+" — "+r.GetName(), " — ")
	}
	var flags []string
	if r.GetPrerelease() {
		flags = append(flags, "prerelease")
	}
	if r.GetDraft() {
		flags = append(flags, "draft")
	}
	pub := r.PublishedAt
	if pub == nil {
		pub = r.CreatedAt
	}
	facts := []string{"published " + dateOnly(pub)}
	if f := strings.Join(flags, ","); f != "" {
		facts = append(facts, f)
	}
	if r.Author != nil && r.Author.GetLogin() != "" {
		facts = append(facts, "by "+r.Author.GetLogin())
	}
	if r.GetHTMLURL() != "" {
		facts = append(facts, r.GetHTMLURL())
	}
	lines := []string{title, strings.Join(facts, " · ")}
	if len(r.Assets) > 0 {
		lines = append(lines, fmt.Sprintf("assets (%d):", len(r.Assets)))
		for _, a := range r.Assets {
			lines = append(lines, fmt.Sprintf("- %s %d bytes, %d downloads", a.GetName(), a.GetSize(), a.GetDownloadCount()))
		}
	}
	if body := strings.TrimSpace(r.GetBody()); body != "" {
		lines = append(lines, "", body)
	}
	text := strings.Join(lines, "\n")
	return Result{Text: truncateText(text), Value: obj{"text": text, "release": v}}, nil
}

func runSummary(r *gh.WorkflowRun) obj {
	return obj{"databaseId": r.GetID(), "displayTitle": r.GetDisplayTitle(), "status": r.GetStatus(),
		"conclusion": strOrNil(r.Conclusion), "workflowName": r.GetName(), "headBranch": r.GetHeadBranch(),
		"event": r.GetEvent(), "createdAt": ts(r.CreatedAt), "updatedAt": ts(r.UpdatedAt),
		"startedAt": ts(r.RunStartedAt), "url": r.GetHTMLURL()}
}

var runConclusions = map[string]bool{"success": true, "failure": true, "neutral": true, "cancelled": true, "skipped": true, "timed_out": true, "action_required": true, "stale": true, "startup_failure": true}

// ListWorkflowRuns is list-github-workflow-runs: one row per run (id, status, conclusion,
// workflow, branch, event, created date, url). status accepts a status or a conclusion.
func (c *Client) ListWorkflowRuns(ctx context.Context, cwd, repo string, limit int, status, workflow string, input any) (Result, error) {
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	if limit <= 0 {
		limit = 20
	}
	opt := &gh.ListWorkflowRunsOptions{Status: status, ListOptions: gh.ListOptions{PerPage: min(limit, 100)}}
	var res *gh.WorkflowRuns
	if workflow != "" {
		res, _, err = cl.Actions.ListWorkflowRunsByFileName(ctx, owner, name, workflow, opt)
	} else {
		res, _, err = cl.Actions.ListRepositoryWorkflowRuns(ctx, owner, name, opt)
	}
	if err != nil {
		return Result{}, err
	}
	runs := []any{}
	var rows []string
	for i, r := range res.WorkflowRuns {
		if i >= limit {
			break
		}
		runs = append(runs, runSummary(r))
		rows = append(rows, strings.Join([]string{strconv.FormatInt(r.GetID(), 10), r.GetStatus(), r.GetConclusion(),
			r.GetName(), r.GetHeadBranch(), r.GetEvent(), dateOnly(r.CreatedAt), r.GetHTMLURL()}, "\t"))
	}
	text := strings.Join(rows, "\n")
	if len(rows) == 0 {
		text = "(no workflow runs)"
	}
	return Result{Text: truncateText(text), Value: obj{"text": text, "runs": runs}}, nil
}

// RunWatchInterval is how often watch-github-run polls (gh run watch's default refresh).
const RunWatchInterval = 3 * time.Second

// WatchRun is watch-github-run: poll the run until it completes (600 s at most, the seed's
// timeout), then report its final state. The text lists each status change seen.
func (c *Client) WatchRun(ctx context.Context, cwd, repo string, runID int64, input any, progress func(string)) (Result, error) {
	if progress != nil {
		progress(fmt.Sprintf("Watching workflow run %d...", runID))
	}
	cl, _, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	interval, deadline := c.Interval, c.Deadline
	if interval == 0 {
		interval = RunWatchInterval
	}
	if deadline == 0 {
		deadline = WatchDeadline
	}
	start := c.now()
	var log []string
	last := ""
	for {
		r, _, err := cl.Actions.GetWorkflowRunByID(ctx, owner, name, runID)
		if err != nil {
			return Result{}, err
		}
		line := fmt.Sprintf("%s: %s", r.GetName(), r.GetStatus())
		if r.GetConclusion() != "" {
			line += " (" + r.GetConclusion() + ")"
		}
		if line != last {
			log = append(log, line)
			last = line
		}
		if r.GetStatus() == "completed" {
			text := fmt.Sprintf("## Workflow Run %d Completed\n\n%s\n", runID, strings.Join(log, "\n"))
			return Result{Text: text, Value: obj{"text": text, "run": runSummary(r)}}, nil
		}
		if c.now().Sub(start) >= deadline {
			return Result{}, fmt.Errorf("gh run watch failed: timed out after %ds waiting for run %d", int(deadline.Seconds()), runID)
		}
		if err := c.sleep(ctx, interval); err != nil {
			return Result{}, err
		}
	}
}
