// Package github is the GitHub read-only toolset (the seed's gh-readonly extension): REST reads
// through go-github, with the `gh` CLI used only for what it owns — the token (`gh auth token`,
// run once per client, and once more when the API answers 401) and the current repository
// (`gh repo view --json nameWithOwner`). Redirects to storage hosts (CI logs, release assets)
// are fetched without the token. The waits poll the commit's statuses and check runs every
// 30 s for up to 600 s (the seed's CHECKS_POLL_INTERVAL_MS and CHECKS_WATCH_DEADLINE_MS);
// tests inject a fake clock and a loopback REST server through [Client.BaseURL].
//
// Where pigo departs from the seed: every read is REST (the seed still runs `gh issue view`,
// `gh run list`, `gh release download`... for several tools), so the two list tools browse
// through the search API too, watch-github-run polls the run every 3 s instead of printing
// `gh run watch`'s screen, and the JSON keys of the gh-shaped results come out sorted.
package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// MissingGhText is the seed's session-start error when `gh` is not on PATH.
const MissingGhText = "gh CLI not found in PATH: GitHub read-only tools are disabled. Install GitHub CLI (https://cli.github.com/) and reload the session."

// WindowsText is the seed's session-start warning on Windows.
const WindowsText = "gh-readonly tools are disabled on Windows."

// The seed's polling figures for the two check waits.
const (
	PollInterval  = 30 * time.Second
	WatchDeadline = 600 * time.Second
)

// FindGh returns the path of the gh executable: PATH first, then the seed's fixed candidates;
// "" when there is none.
func FindGh() string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "gh")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	for _, p := range []string{"/usr/bin/gh", "/usr/local/bin/gh", "/run/current-system/sw/bin/gh"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Unavailable returns the reference text explaining why the tools cannot run here, or "".
func Unavailable() string {
	if runtime.GOOS == "windows" {
		return WindowsText
	}
	if FindGh() == "" {
		return MissingGhText
	}
	return ""
}

// Client runs the tools' GitHub reads. The zero value is usable: it finds gh on PATH, talks to
// api.github.com and waits with the seed's intervals.
type Client struct {
	// Gh is the gh executable ("" = [FindGh]).
	Gh string
	// BaseURL overrides the REST endpoint (tests: a loopback server), with a trailing slash.
	BaseURL string
	// HTTP is the transport ("" = http.DefaultClient).
	HTTP *http.Client
	// Interval and Deadline are the wait's poll interval and deadline (0 = the seed's).
	Interval, Deadline time.Duration
	// Sleep waits d or until ctx ends (nil = a timer); tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock of the wait deadline (nil = time.Now).
	Now func() time.Time
	// CacheDir holds CI logs and release downloads ("" = ~/.cache/pi/github).
	CacheDir string

	once sync.Once
	rest *gh.Client
	err  error
}

// GhError is a failed gh invocation, worded as the seed's: the toolcall input and the command's
// output, each between markers.
type GhError struct {
	Input  any
	Output string
}

func (e *GhError) Error() string {
	in := ""
	if e.Input != nil {
		b, _ := json.Marshal(e.Input)
		in = "<input>" + string(b) + "<input>\n"
	}
	return in + "<output>" + e.Output + "<output>"
}

// runGh runs gh with args in cwd and returns stdout; a non-zero exit is a [GhError].
func (c *Client) runGh(ctx context.Context, cwd string, input any, args ...string) (string, error) {
	bin := c.Gh
	if bin == "" {
		bin = FindGh()
	}
	if bin == "" {
		return "", errors.New(MissingGhText)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = cwd
	// gh's stdout and stderr are copied by two goroutines: the transcript of both is one
	// locked buffer (two writers on a bytes.Buffer raced).
	var stdout bytes.Buffer
	combined := &lockedBuffer{}
	cmd.Stdout = io.MultiWriter(&stdout, combined)
	cmd.Stderr = combined
	err := cmd.Run()
	if err == nil {
		return stdout.String(), nil
	}
	var exit *exec.ExitError
	out := strings.TrimSpace(combined.String())
	switch {
	case !errors.As(err, &exit):
		out = "spawn failed: " + err.Error()
	case out == "":
		out = fmt.Sprintf("exit code %d (no output)", exit.ExitCode())
	}
	if ctx.Err() != nil {
		out += " (command aborted)"
	}
	return "", &GhError{Input: input, Output: out}
}

// rest returns the REST client, asking gh for the token the first time.
func (c *Client) restClient(ctx context.Context, cwd string) (*gh.Client, error) {
	c.once.Do(func() {
		tok, err := c.runGh(ctx, cwd, nil, "auth", "token")
		if err != nil {
			c.err = err
			return
		}
		base := http.DefaultTransport
		if c.HTTP != nil && c.HTTP.Transport != nil {
			base = c.HTTP.Transport
		}
		tt := &tokenTransport{base: base, tok: strings.TrimSpace(tok), refresh: func(ctx context.Context) (string, error) {
			t, err := c.runGh(ctx, cwd, nil, "auth", "token")
			return strings.TrimSpace(t), err
		}}
		hc := &http.Client{Transport: tt}
		if c.HTTP != nil {
			hc.Timeout, hc.Jar = c.HTTP.Timeout, c.HTTP.Jar
		}
		cl := gh.NewClient(hc)
		if c.BaseURL != "" {
			u, err := url.Parse(c.BaseURL)
			if err != nil {
				c.err = err
				return
			}
			cl.BaseURL = u
		}
		c.rest = cl
	})
	return c.rest, c.err
}

// ResolveRepo returns repo, or the current repository from `gh repo view`.
func (c *Client) ResolveRepo(ctx context.Context, cwd, repo string, input any) (string, error) {
	if repo != "" {
		return repo, nil
	}
	out, err := c.runGh(ctx, cwd, input, "repo", "view", "--json", "nameWithOwner")
	if err != nil {
		return "", err
	}
	var v struct {
		NameWithOwner *string `json:"nameWithOwner"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.NameWithOwner == nil {
		return "", fmt.Errorf("gh repo view: unexpected output: %s", strings.TrimSpace(out))
	}
	return *v.NameWithOwner, nil
}

// SplitRepo splits OWNER/REPO, with the seed's error for anything else.
func SplitRepo(s string) (owner, name string, err error) {
	i := strings.IndexByte(s, '/')
	if i <= 0 || i == len(s)-1 || strings.IndexByte(s[i+1:], '/') >= 0 {
		return "", "", fmt.Errorf("invalid repository: %s (expected OWNER/REPO)", s)
	}
	return s[:i], s[i+1:], nil
}

// PositiveID parses a number-or-string id parameter, with the seed's error.
func PositiveID(raw json.RawMessage, name string) (int64, error) {
	s := strings.TrimSpace(string(raw))
	if uq, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(uq)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f != float64(int64(f)) || f > 1<<53-1 {
		if s == "" {
			s = "undefined"
		}
		return 0, fmt.Errorf("invalid %s: %s (expected a positive integer)", name, s)
	}
	return int64(f), nil
}

// target resolves the repository and the REST client of one call.
func (c *Client) target(ctx context.Context, cwd, repo string, input any) (cl *gh.Client, full, owner, name string, err error) {
	full, err = c.ResolveRepo(ctx, cwd, repo, input)
	if err != nil {
		return
	}
	owner, name, err = SplitRepo(full)
	if err != nil {
		return
	}
	cl, err = c.restClient(ctx, cwd)
	return
}

func (c *Client) cacheDir() string {
	if c.CacheDir != "" {
		return c.CacheDir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "pi", "github")
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return errors.New("aborted while waiting for the next checks poll")
	case <-t.C:
		return nil
	}
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// tokenTransport authenticates with gh's token and, as the seed, asks gh again once when the
// API answers 401 (the cached token went stale: `gh auth refresh`, a new login).
type tokenTransport struct {
	base    http.RoundTripper
	refresh func(context.Context) (string, error)
	mu      sync.Mutex
	tok     string
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	tok := t.tok
	t.mu.Unlock()
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || req.Body != nil {
		return resp, err
	}
	fresh, ferr := t.refresh(req.Context())
	if ferr != nil || fresh == "" || fresh == tok {
		return resp, err
	}
	resp.Body.Close()
	t.mu.Lock()
	t.tok = fresh
	t.mu.Unlock()
	r = req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+fresh)
	return t.base.RoundTrip(r)
}

// lockedBuffer is a bytes.Buffer written by several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
