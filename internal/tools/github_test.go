package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/github"
	"github.com/pigo-agent/pigo/internal/toolrun"
	githubtools "github.com/pigo-agent/pigo/internal/tools/github"
)

// TestGitHubTools runs the GitHub tools through the one execution path: the toolset is bound
// (codemode-only, since a gh is on PATH), arguments are validated against the seed's
// parameters, and the result carries the text, the input in details and the structured value.
func TestGitHubTools(t *testing.T) {
	bin := t.TempDir()
	gh := filepath.Join(bin, "gh")
	os.WriteFile(gh, []byte("#!/bin/sh\ncase \"$1 $2\" in\n\"auth token\") echo tok ;;\n\"repo view\") echo '{\"nameWithOwner\":\"octo/demo\"}' ;;\nesac\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/repos/octo/demo/issues/3/comments" || r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		fmt.Fprint(w, `[{"node_id":"IC_1","body":"hi","user":{"login":"bob","type":"User"},"created_at":"2026-11-01T11:00:00Z","html_url":"u"}]`)
	}))
	defer srv.Close()
	old := githubtools.GitHub
	githubtools.GitHub = &github.Client{Gh: gh, BaseURL: srv.URL + "/"}
	defer func() { githubtools.GitHub = old }()

	e := newEnv(t, "")
	tool, ok := e.runner.Lookup("read-github-issue-comments")
	if !ok || tool.State != engine.CodemodeOnly {
		t.Fatalf("read-github-issue-comments: found %v, state %v", ok, tool)
	}
	r := e.runner.Run(context.Background(), toolrun.Call{ID: "1", Name: "read-github-issue-comments", Arguments: json.RawMessage(`{"number":"3"}`)}, nil)
	got := fmt.Sprintf("error=%v\ntext=%s\ndetails=%s\nstructured=%s", r.IsError, r.Text(), r.Details, r.Structured)
	want := `error=false
text={
  "comments": [
    {
      "author": {
        "is_bot": false,
        "login": "bob"
      },
      "body": "hi",
      "createdAt": "2026-11-01T11:00:00Z",
      "id": "IC_1",
      "url": "u"
    }
  ]
}
details={"input":{"number":"3"}}
structured={"comments":[{"author":{"is_bot":false,"login":"bob"},"body":"hi","createdAt":"2026-11-01T11:00:00Z","id":"IC_1","url":"u"}]}`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// a REST error is an error result with go-github's message
	r = e.runner.Run(context.Background(), toolrun.Call{ID: "2", Name: "read-github-issue", Arguments: json.RawMessage(`{"number":9}`)}, nil)
	if !r.IsError || !strings.Contains(r.Text(), "404 Not Found") {
		t.Errorf("missing issue: %v %q", r.IsError, r.Text())
	}
	// every one of the 18 declared tools has an implementation
	n := 0
	for _, name := range []string{"read-github-issue", "list-github-issues", "read-github-issue-comments", "read-github-pr", "list-github-prs",
		"read-github-pr-diff", "read-github-pr-status", "read-github-pr-comments", "read-github-ci-logs", "list-github-workflow-runs",
		"get-github-workflow-jobs", "read-github-repo", "list-github-releases", "read-github-release", "download-github-release-assets",
		"wait-github-pr-checks", "wait-github-commit-checks", "watch-github-run"} {
		if _, ok := All().Lookup("github", name); ok {
			n++
		} else {
			t.Errorf("%s: no implementation", name)
		}
	}
	if n != 18 {
		t.Errorf("%d implementations", n)
	}
}

// TestGitHubMissingGh: without gh the tools answer with the seed's reference text.
func TestGitHubMissingGh(t *testing.T) {
	if github.FindGh() != "" {
		t.Setenv("PATH", t.TempDir())
		if github.FindGh() != "" {
			t.Skip("gh installed in a fixed location")
		}
	}
	t.Setenv("PATH", t.TempDir())
	old := githubtools.GitHub
	githubtools.GitHub = &github.Client{}
	defer func() { githubtools.GitHub = old }()
	impl, _ := All().Lookup("github", "read-github-repo")
	_, err := impl.Execute(context.Background(), &toolrun.Invocation{Args: json.RawMessage(`{}`), Session: &toolrun.Session{}})
	if err == nil || err.Error() != "gh CLI not found in PATH: GitHub read-only tools are disabled. Install GitHub CLI (https://cli.github.com/) and reload the session." {
		t.Errorf("err = %v", err)
	}
}
