package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = os.Getenv("UPDATE_GOLDEN") != ""

// fakeGh writes a gh script answering `auth token` and `repo view` into a directory put first
// on PATH, and returns its path.
func fakeGh(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
case "$1 $2" in
"auth token") echo tok-123 ;;
"repo view") echo '{"nameWithOwner":"octo/demo"}' ;;
*) echo "gh: unknown command $*" >&2; exit 1 ;;
esac
`
	p := filepath.Join(dir, "gh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return p
}

// server is a loopback GitHub REST API with recorded-shape JSON; pending counts the check
// polls still reported as in progress.
type server struct {
	*httptest.Server
	mu        sync.Mutex
	pending   int
	polls     int
	fail      bool
	awaiting  bool // a fork PR's workflow waits for approval: a run-less action_required suite
	queries   []string
	downloads int
}

const sha = "5a7c4070d1f0e6a3b2c1d0e9f8a7b6c5d4e3f2a1"

func newServer(t *testing.T) *server {
	s := &server{}
	mux := http.NewServeMux()
	j := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-123" {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer tok-123" {
				http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
				return
			}
			h(w, r)
		}
	}
	user := `{"login":"alice","id":1,"type":"User"}`
	mux.HandleFunc("GET /repos/octo/demo/issues/7", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `{"number":7,"title":"Crash on start","state":"open","body":"It crashes.","user":`+user+`,
		"labels":[{"name":"bug","color":"d73a4a","description":"Something isn't working"}],"assignees":[`+user+`],
		"milestone":{"title":"v1","number":1,"due_on":null},"created_at":"2026-11-01T10:00:00Z","updated_at":"2026-11-02T10:00:00Z",
		"closed_at":null,"html_url":"https://github.com/octo/demo/issues/7"}`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/issues/7/comments", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `[{"id":11,"node_id":"IC_11","body":"Same here","user":{"login":"bob","type":"User"},"created_at":"2026-11-01T11:00:00Z","html_url":"https://github.com/octo/demo/issues/7#issuecomment-11"}]`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/pulls/8", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `{"number":8,"title":"Fix crash","state":"open","body":"Fixes #7","user":`+user+`,"head":{"ref":"fix","sha":"`+sha+`"},"base":{"ref":"main"},
		"additions":3,"deletions":1,"changed_files":1,"html_url":"https://github.com/octo/demo/pull/8","created_at":"2026-11-03T10:00:00Z",
		"requested_reviewers":[{"login":"carol"}],"requested_teams":[{"name":"Core","slug":"core"}]}`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/issues/8/comments", auth(func(w http.ResponseWriter, r *http.Request) { j(w, `[]`) }))
	mux.HandleFunc("GET /repos/octo/demo/pulls/8/reviews", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `[{"id":21,"user":{"login":"carol","type":"User"},"body":"LGTM","state":"APPROVED","submitted_at":"2026-11-03T12:00:00Z","html_url":"https://github.com/octo/demo/pull/8#pullrequestreview-21"}]`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/pulls/8/comments", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `[{"id":31,"user":{"login":"carol","type":"User"},"body":"nit","path":"main.go","line":12,"diff_hunk":"@@ -10,3 +10,4 @@","html_url":"https://github.com/octo/demo/pull/8#discussion_r31"}]`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/commits/main", auth(func(w http.ResponseWriter, r *http.Request) { j(w, `{"sha":"`+sha+`"}`) }))
	mux.HandleFunc("GET /repos/octo/demo/commits/"+sha+"/status", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `{"state":"success","statuses":[{"context":"ci/jenkins","state":"success","target_url":"https://ci.example/1"}]}`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/commits/"+sha+"/check-runs", auth(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.polls++
		status, concl := `"completed"`, `"success"`
		if s.pending > 0 {
			s.pending--
			status, concl = `"in_progress"`, `null`
		} else if s.fail {
			concl = `"failure"`
		}
		s.mu.Unlock()
		j(w, `{"total_count":2,"check_runs":[
		{"id":200,"name":"build","status":`+status+`,"conclusion":`+concl+`,"started_at":"2026-11-03T10:01:00Z","html_url":"https://github.com/octo/demo/actions/runs/100/job/200","details_url":"https://github.com/octo/demo/actions/runs/100/job/200","check_suite":{"id":900},"app":{"slug":"github-actions"}},
		{"id":201,"name":"lint","status":"completed","conclusion":"skipped","started_at":null,"details_url":"https://github.com/octo/demo/actions/runs/100/job/201","check_suite":{"id":900}}]}`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/commits/"+sha+"/check-suites", auth(func(w http.ResponseWriter, r *http.Request) {
		suites := `{"id":900,"status":"completed","conclusion":"success","latest_check_runs_count":2,"app":{"slug":"github-actions"}},
		{"id":902,"status":"queued","conclusion":null,"latest_check_runs_count":0,"app":{"slug":"some-app"}}`
		if s.awaiting {
			suites += `,{"id":901,"status":"completed","conclusion":"action_required","latest_check_runs_count":0,"app":{"slug":"github-actions"}}`
		}
		j(w, `{"total_count":3,"check_suites":[`+suites+`]}`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/actions/runs", auth(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("head_sha") != sha {
			j(w, `{"total_count":0,"workflow_runs":[]}`)
			return
		}
		runs := `{"id":100,"name":"CI","event":"pull_request","check_suite_id":900,"html_url":"https://github.com/octo/demo/actions/runs/100"}`
		if s.awaiting {
			runs += `,{"id":101,"name":"Deploy preview","event":"pull_request_target","status":"completed","conclusion":"action_required","check_suite_id":901,"html_url":"https://github.com/octo/demo/actions/runs/101"}`
		}
		j(w, `{"total_count":2,"workflow_runs":[`+runs+`]}`)
	}))
	job := func(id int, status, concl string) string {
		return fmt.Sprintf(`{"id":%d,"run_id":100,"run_url":"https://api.github.com/repos/Octo/Demo/actions/runs/100","name":"build","status":%q,"conclusion":%s,
		"html_url":"https://github.com/octo/demo/actions/runs/100/job/%d","steps":[
		{"name":"Set up job","number":1,"status":"completed","conclusion":"success","started_at":"2026-11-03T10:01:00Z"},
		{"name":"Run actions/checkout@v4","number":2,"status":"completed","conclusion":"success","started_at":"2026-11-03T10:01:02Z"},
		{"name":"Test","number":3,"status":"completed","conclusion":"failure","started_at":"2026-11-03T10:01:05Z"},
		{"name":"Deploy","number":4,"status":"completed","conclusion":"skipped","started_at":null},
		{"name":"Complete job","number":5,"status":"completed","conclusion":"success","started_at":"2026-11-03T10:01:09Z"}]}`, id, status, concl, id)
	}
	mux.HandleFunc("GET /repos/octo/demo/actions/runs/100/jobs", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `{"total_count":1,"jobs":[`+job(200, "completed", `"failure"`)+`]}`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/actions/jobs/200", auth(func(w http.ResponseWriter, r *http.Request) { j(w, job(200, "completed", `"failure"`)) }))
	mux.HandleFunc("GET /repos/octo/demo/actions/jobs/202", auth(func(w http.ResponseWriter, r *http.Request) { j(w, job(202, "queued", `null`)) }))
	mux.HandleFunc("GET /repos/Octo/Demo/actions/jobs/200/logs", auth(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.URL+"/raw/200.log", http.StatusFound)
	}))
	mux.HandleFunc("GET /raw/200.log", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			http.Error(w, "the token followed the redirect", http.StatusForbidden)
			return
		}
		fmt.Fprint(w, "\ufeff2026-11-03T10:01:00.1000000Z Current runner version: '2.320.0'\n"+
			"2026-11-03T10:01:00.2000000Z Operating System\n\n"+
			"2026-11-03T10:01:02.5000000Z ##[group]Run actions/checkout@v4\n"+
			"2026-11-03T10:01:02.6000000Z with:\n"+
			"2026-11-03T10:01:02.7000000Z ##[endgroup]\n"+
			"2026-11-03T10:01:04.0000000Z Checked out.\n"+
			"2026-11-03T10:01:05.3000000Z ##[group]Run go test ./...\n"+
			"2026-11-03T10:01:05.4000000Z ##[endgroup]\n"+
			"2026-11-03T10:01:08.0000000Z --- FAIL: TestX\n"+
			"2026-11-03T10:01:08.1000000Z ##[error]Process completed with exit code 1.\n\n")
	})
	mux.HandleFunc("GET /repos/octo/demo", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `{"name":"demo","full_name":"octo/demo","description":"A demo","html_url":"https://github.com/octo/demo","homepage":"",
		"visibility":"public","private":false,"fork":false,"archived":false,"stargazers_count":42,"forks_count":3,"language":"Go",
		"default_branch":"main","license":{"name":"MIT License"},"pushed_at":"2026-11-30T08:00:00Z","created_at":"2024-01-05T08:00:00Z","updated_at":"2026-11-30T08:00:00Z"}`)
	}))
	release := `{"tag_name":"v1.2.0","name":"One two","body":"## Changes\n- fixed\n","html_url":"https://github.com/octo/demo/releases/tag/v1.2.0",
		"draft":false,"prerelease":false,"created_at":"2026-11-20T08:00:00Z","published_at":"2026-11-21T08:00:00Z","target_commitish":"main",
		"author":{"login":"alice","type":"User"},"assets":[{"name":"demo.tar.gz","size":1234,"download_count":7,"content_type":"application/gzip","state":"uploaded",
		"browser_download_url":"https://github.com/octo/demo/releases/download/v1.2.0/demo.tar.gz"}]}`
	mux.HandleFunc("GET /repos/octo/demo/releases", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `[`+release+`,{"tag_name":"v1.3.0-rc1","name":"","prerelease":true,"draft":false,"created_at":"2026-11-25T08:00:00Z","published_at":null}]`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/releases/latest", auth(func(w http.ResponseWriter, r *http.Request) { j(w, release) }))
	mux.HandleFunc("GET /repos/octo/demo/releases/tags/v1.2.0", auth(func(w http.ResponseWriter, r *http.Request) { j(w, release) }))
	mux.HandleFunc("GET /repos/octo/demo/actions/runs/100", auth(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		status, concl := "completed", `"failure"`
		if s.pending > 0 {
			s.pending--
			status, concl = "in_progress", "null"
		}
		s.mu.Unlock()
		j(w, `{"id":100,"name":"CI","display_title":"Fix crash","status":"`+status+`","conclusion":`+concl+`,"head_branch":"fix","event":"pull_request",
		"created_at":"2026-11-03T10:00:30Z","updated_at":"2026-11-03T10:02:00Z","run_started_at":"2026-11-03T10:00:31Z","html_url":"https://github.com/octo/demo/actions/runs/100"}`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/actions/workflows/ci.yml/runs", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `{"total_count":1,"workflow_runs":[{"id":100,"name":"CI","display_title":"Fix crash","status":"completed","conclusion":"failure","head_branch":"fix","event":"pull_request","created_at":"2026-11-03T10:00:30Z","html_url":"https://github.com/octo/demo/actions/runs/100"}]}`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/pulls/9", auth(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept"), "diff") {
			http.Error(w, "want diff", http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, "diff --git a/main.go b/main.go\nindex 1..2 100644\n--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,4 @@\n package main\n-// old\n+// new\n+// more\n"+
			"diff --git a/old.txt b/new.txt\nsimilarity index 90%\nrename from old.txt\nrename to new.txt\n--- a/old.txt\n+++ b/new.txt\n@@ -1 +1 @@\n-a\n+b\n"+
			"diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"+
			"diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n")
	}))
	mux.HandleFunc("GET /repos/octo/demo/releases/tags/v2.0", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, strings.ReplaceAll(`{"tag_name":"v2.0","zipball_url":"BASE/repos/octo/demo/zipball/v2.0","tarball_url":"BASE/repos/octo/demo/tarball/v2.0","assets":[
		{"name":"demo-linux.tar.gz","size":5,"url":"BASE/repos/octo/demo/releases/assets/1"},
		{"name":"demo.deb","size":3,"url":"BASE/repos/octo/demo/releases/assets/2"},
		{"name":"checksums.txt","size":4,"url":"BASE/repos/octo/demo/releases/assets/3"}]}`, "BASE", s.URL))
	}))
	mux.HandleFunc("GET /repos/octo/demo/releases/tags/empty", auth(func(w http.ResponseWriter, r *http.Request) {
		j(w, `{"tag_name":"empty","assets":[]}`)
	}))
	mux.HandleFunc("GET /repos/octo/demo/releases/assets/{id}", auth(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/octet-stream" {
			http.Error(w, "want octet-stream", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.downloads++
		s.mu.Unlock()
		http.Redirect(w, r, s.URL+"/blob/"+r.PathValue("id"), http.StatusFound)
	}))
	mux.HandleFunc("GET /blob/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			http.Error(w, "the token followed the redirect", http.StatusForbidden)
			return
		}
		fmt.Fprint(w, map[string]string{"1": "tarball", "2": "deb", "3": "sums"}[r.PathValue("id")])
	})
	mux.HandleFunc("GET /repos/octo/demo/tarball/v2.0", auth(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "source-tgz") }))
	mux.HandleFunc("GET /search/issues", auth(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.queries = append(s.queries, r.URL.Query().Get("q")+" per_page="+r.URL.Query().Get("per_page"))
		s.mu.Unlock()
		if strings.Contains(r.URL.Query().Get("q"), "nothing") {
			j(w, `{"total_count":0,"items":[]}`)
			return
		}
		j(w, `{"total_count":2,"items":[
		{"number":7,"state":"open","title":"Crash on start","html_url":"https://github.com/octo/demo/issues/7","repository_url":"https://api.github.com/repos/octo/demo",
		 "user":{"login":"alice"},"labels":[{"name":"bug"},{"name":"p1"}],"milestone":{"title":"v1"},"assignees":[{"login":"alice"}],"comments":1,
		 "created_at":"2026-11-01T10:00:00Z","updated_at":"2026-11-02T10:00:00Z","closed_at":null},
		{"number":8,"state":"closed","title":"Fix crash","html_url":"https://github.com/octo/demo/pull/8","repository_url":"https://api.github.com/repos/octo/demo",
		 "user":{"login":"alice"},"labels":[],"milestone":null,"assignees":[],"comments":0,"created_at":"2026-11-03T10:00:00Z","updated_at":"2026-11-04T10:00:00Z",
		 "closed_at":"2026-11-04T10:00:00Z","pull_request":{"merged_at":"2026-11-04T10:00:00Z"}}]}`)
	}))
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// fakeClock is the waits' clock: Sleep advances it instead of waiting.
type fakeClock struct {
	now    time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

func newClient(t *testing.T, s *server) (*Client, *fakeClock) {
	clk := &fakeClock{now: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)}
	return &Client{Gh: fakeGh(t), BaseURL: s.URL + "/", Sleep: clk.Sleep, Now: clk.Now, CacheDir: t.TempDir()}, clk
}

// golden compares got with testdata/<name>.golden (UPDATE_GOLDEN=1 rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s:\n%s", name, p, got)
	}
}

func render(r Result, progress []string) string {
	return fmt.Sprintf("failed: %v\n--- text\n%s\n--- value\n%s\n--- progress\n%s\n", r.Failed, r.Text, pretty(r.Value), strings.Join(progress, "\n~~\n"))
}

func TestTools(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	var progress []string
	prog := func(p string) { progress = append(progress, p) }
	cases := []struct {
		name string
		run  func() (Result, error)
	}{
		{"read-github-issue", func() (Result, error) { return c.ReadIssue(ctx, "", "", 7, nil) }},
		{"read-github-issue-comments", func() (Result, error) { return c.ReadIssueComments(ctx, "", "octo/demo", 7, nil) }},
		{"read-github-pr", func() (Result, error) { return c.ReadPR(ctx, "", "", 8, nil) }},
		{"read-github-pr-comments", func() (Result, error) { return c.ReadPRComments(ctx, "", "", 8, false, nil) }},
		{"read-github-pr-comments-reviews", func() (Result, error) { return c.ReadPRComments(ctx, "", "", 8, true, nil) }},
		{"read-github-pr-status", func() (Result, error) { return c.PRStatus(ctx, "", "", 8, nil) }},
		{"get-github-workflow-jobs", func() (Result, error) { return c.WorkflowJobs(ctx, "", "", 100, nil) }},
		{"read-github-pr-diff", func() (Result, error) { return c.ReadPRDiff(ctx, "", "", 9, nil) }},
		{"read-github-repo", func() (Result, error) { return c.ReadRepo(ctx, "", "", nil) }},
		{"list-github-releases", func() (Result, error) { return c.ListReleases(ctx, "", "", 0, nil) }},
		{"read-github-release", func() (Result, error) { return c.ReadRelease(ctx, "", "", "v1.2.0", nil) }},
		{"list-github-workflow-runs", func() (Result, error) { return c.ListWorkflowRuns(ctx, "", "", 0, "", "ci.yml", nil) }},
		{"list-github-workflow-runs-empty", func() (Result, error) { return c.ListWorkflowRuns(ctx, "", "", 5, "failure", "", nil) }},
		{"read-github-ci-logs-queued", func() (Result, error) { return c.CILogs(ctx, "", "", 202, nil, prog) }},
		{"read-github-ci-logs-missing", func() (Result, error) { return c.CILogs(ctx, "", "", 404, nil, prog) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			progress = nil
			r, err := tc.run()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, render(r, progress))
		})
	}
}

func TestCILogs(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	var progress []string
	r, err := c.CILogs(context.Background(), "", "", 200, nil, func(p string) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	// the cache file is keyed on the job's canonical run_url spelling (Octo/Demo)
	want := filepath.Join(c.CacheDir, "ci-logs", "Octo", "Demo", "100", "200.log")
	out := strings.ReplaceAll(render(r, progress), c.CacheDir, "$CACHE")
	golden(t, "read-github-ci-logs", out)
	b, err := os.ReadFile(want)
	if err != nil || !strings.Contains(string(b), "--- FAIL: TestX") {
		t.Fatalf("log not cached at %s: %v", want, err)
	}
	// a second call is served from the cache: the server's log is gone
	s.Close()
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}
}

func TestWaitChecks(t *testing.T) {
	ctx := context.Background()
	t.Run("pass after polling", func(t *testing.T) {
		s := newServer(t)
		s.pending = 2
		c, clk := newClient(t, s)
		var progress []string
		r, err := c.WaitPRChecks(ctx, "", "", 8, false, nil, func(p string) { progress = append(progress, p) })
		if err != nil {
			t.Fatal(err)
		}
		if len(clk.sleeps) != 2 || clk.sleeps[0] != PollInterval {
			t.Errorf("sleeps = %v, want two of %v", clk.sleeps, PollInterval)
		}
		golden(t, "wait-github-pr-checks-pass", render(r, progress))
	})
	t.Run("failure with jobs", func(t *testing.T) {
		s := newServer(t)
		s.fail = true
		c, _ := newClient(t, s)
		var progress []string
		r, err := c.WaitCommitChecks(ctx, "", "", "main", false, "", nil, func(p string) { progress = append(progress, p) })
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "wait-github-commit-checks-fail", render(r, progress))
	})
	t.Run("awaiting approval", func(t *testing.T) {
		// The seed: a fork PR's workflow waiting for a maintainer's approval exists only as
		// a run-less check suite; the wait returns at once (it would never start by itself),
		// the entry named after its workflow run.
		s := newServer(t)
		s.pending = 1 << 30
		s.awaiting = true
		c, clk := newClient(t, s)
		r, err := c.WaitPRChecks(ctx, "", "", 8, false, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(clk.sleeps) != 0 {
			t.Errorf("slept %v waiting for a workflow that needs approval", clk.sleeps)
		}
		golden(t, "wait-github-pr-checks-awaiting", render(r, nil))
	})
	t.Run("deadline", func(t *testing.T) {
		s := newServer(t)
		s.pending = 1 << 30
		c, clk := newClient(t, s)
		r, err := c.WaitCommitChecks(ctx, "", "octo/demo", "main", false, "pull_request", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(clk.sleeps); got != int(WatchDeadline/PollInterval) {
			t.Errorf("%d polls slept, want %d", got, WatchDeadline/PollInterval)
		}
		golden(t, "wait-github-commit-checks-deadline", render(r, nil))
	})
}

func TestList(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	var out []string
	for _, tc := range []struct {
		kind string
		p    ListParams
	}{
		{"issue", ListParams{}},
		{"pr", ListParams{Keywords: "crash", State: "all", Label: "needs review", Author: "@me", Limit: 5}},
		{"pr", ListParams{Repo: "octo/demo", State: "closed", Fields: "number,state,mergedAt,url"}},
		{"issue", ListParams{Keywords: "nothing", State: "closed"}},
		{"issue", ListParams{Keywords: "x", State: "merged"}},
		{"pr", ListParams{Keywords: "x", State: "draft"}},
		{"issue", ListParams{Keywords: "x", Fields: "number,bogus,nope"}},
	} {
		r, err := c.List(ctx, "", tc.kind, tc.p, nil)
		if err != nil {
			out = append(out, fmt.Sprintf("=== %s %+v\nerror: %v", tc.kind, tc.p, err))
			continue
		}
		out = append(out, fmt.Sprintf("=== %s %+v\n%s", tc.kind, tc.p, render(r, nil)))
	}
	out = append(out, "=== queries", strings.Join(s.queries, "\n"))
	golden(t, "list", strings.Join(out, "\n")+"\n")
}

func TestDownload(t *testing.T) {
	s := newServer(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	var out []string
	for _, tc := range []struct{ tag, pattern, archive string }{
		{"v2.0", "*.tar.gz, *.deb", ""},
		{"v2.0", "", ""},
		{"v2.0", "*.rpm", ""},
		{"v2.0", "", "tar.gz"},
		{"v2.0", "*.deb", "zip"},
		{"empty", "", ""},
	} {
		r, err := c.DownloadAssets(ctx, "", "", tc.tag, tc.pattern, tc.archive, nil)
		head := fmt.Sprintf("=== tag=%s pattern=%q archive=%q downloads so far=%d", tc.tag, tc.pattern, tc.archive, s.downloads)
		if err != nil {
			out = append(out, head+"\nerror: "+err.Error())
			continue
		}
		out = append(out, head+"\n"+strings.ReplaceAll(render(r, nil), c.CacheDir, "$CACHE"))
	}
	golden(t, "download-github-release-assets", strings.Join(out, "\n")+"\n")
	// files already in the cache are kept, never fetched again: 3 assets, each once
	if s.downloads != 3 {
		t.Errorf("%d asset downloads, want 3", s.downloads)
	}
	b, _ := os.ReadFile(filepath.Join(c.CacheDir, "releases", "octo", "demo", "v2.0", "demo.deb"))
	if string(b) != "deb" {
		t.Errorf("demo.deb = %q", b)
	}
}

// TestWaitErrors: a round that fails does not end the wait; only when no round ever succeeded
// by the deadline is the last error returned. A cancelled context ends it at once.
func TestWaitErrors(t *testing.T) {
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/commits/main") {
			fmt.Fprint(w, `{"sha":"`+sha+`"}`)
			return
		}
		http.Error(w, `{"message":"Server Error"}`, http.StatusInternalServerError)
	}))
	defer bad.Close()
	clk := &fakeClock{now: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)}
	c := &Client{Gh: fakeGh(t), BaseURL: bad.URL + "/", Sleep: clk.Sleep, Now: clk.Now}
	_, err := c.WaitCommitChecks(context.Background(), "", "", "main", false, "", nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "PR checks polling failed before any round succeeded: GET "+bad.URL) || !strings.HasSuffix(err.Error(), "500 Server Error []") {
		t.Errorf("err = %v", err)
	}
	if len(clk.sleeps) != int(WatchDeadline/PollInterval) {
		t.Errorf("%d sleeps", len(clk.sleeps))
	}

	s := newServer(t)
	s.pending = 1 << 30
	c2, _ := newClient(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	c2.Sleep = func(context.Context, time.Duration) error { cancel(); return nil }
	_, err = c2.WaitPRChecks(ctx, "", "", 8, false, nil, nil)
	if err == nil || err.Error() != "PR checks polling was aborted" {
		t.Errorf("cancelled: %v", err)
	}
}

func TestWatchRun(t *testing.T) {
	s := newServer(t)
	s.pending = 2
	c, clk := newClient(t, s)
	var progress []string
	r, err := c.WatchRun(context.Background(), "", "", 100, nil, func(p string) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	if len(clk.sleeps) != 2 || clk.sleeps[0] != RunWatchInterval {
		t.Errorf("sleeps = %v", clk.sleeps)
	}
	golden(t, "watch-github-run", render(r, progress))
}

// TestTokenRefresh: a 401 asks gh for the token again and retries once, as the seed does.
func TestTokenRefresh(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	gh := filepath.Join(dir, "gh")
	// the first `gh auth token` hands out a stale token, the next ones the valid one
	os.WriteFile(gh, []byte("#!/bin/sh\nif [ \"$1 $2\" = \"auth token\" ]; then\n  if [ -f "+count+" ]; then echo tok-123; else : > "+count+"; echo stale; fi\nfi\n"), 0o755)
	c := &Client{Gh: gh, BaseURL: s.URL + "/"}
	r, err := c.ReadIssueComments(context.Background(), "", "octo/demo", 7, nil)
	if err != nil || !strings.Contains(r.Text, "Same here") {
		t.Fatalf("%v %q", err, r.Text)
	}
}

func TestGhErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "gh")
	os.WriteFile(bad, []byte("#!/bin/sh\necho 'HTTP 401: Bad credentials' >&2\nexit 4\n"), 0o755)
	c := &Client{Gh: bad}
	_, err := c.ReadIssue(context.Background(), "", "", 7, json.RawMessage(`{"number":7}`))
	golden(t, "gh-error", fmt.Sprintln(err))

	t.Setenv("PATH", t.TempDir())
	if got := Unavailable(); got != MissingGhText && FindGh() == "" {
		t.Errorf("Unavailable() = %q", got)
	}
	if FindGh() == "" {
		_, err = (&Client{}).ReadIssue(context.Background(), "", "", 7, nil)
		if err == nil || err.Error() != MissingGhText {
			t.Errorf("err = %v", err)
		}
	}
	golden(t, "texts", MissingGhText+"\n"+WindowsText+"\n")
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`7`, "7"}, {`"12"`, "12"}, {`0`, "invalid run_id: 0 (expected a positive integer)"},
		{`"x"`, "invalid run_id: x (expected a positive integer)"}, {`1.5`, "invalid run_id: 1.5 (expected a positive integer)"},
	} {
		id, err := PositiveID(json.RawMessage(tc.in), "run_id")
		got := fmt.Sprint(id)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("PositiveID(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, r := range []string{"a", "a/", "/b", "a/b/c"} {
		if _, _, err := SplitRepo(r); err == nil || err.Error() != "invalid repository: "+r+" (expected OWNER/REPO)" {
			t.Errorf("SplitRepo(%q) = %v", r, err)
		}
	}
}
