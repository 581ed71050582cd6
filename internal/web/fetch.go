package web

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
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/headbuf"
	"github.com/pigo-agent/pigo/internal/web/extractwire"
)

// The seed's web_fetch limits.
const (
	MaxRedirects     = 5
	FetchTimeout     = 30 * time.Second
	MaxBytes         = extractwire.MaxPage // a page read as text (5 MiB)
	MaxFileBytes     = 200 * 1024 * 1024   // a body saved to output_path
	MaxMarkdownBytes = 100 * 1024          // the tool's text
	UserAgent        = "Mozilla/5.0 (compatible; pi-web-fetch/1.0)"
)

// Page is a fetched page: the final URL, its title and the Markdown (or raw text).
type Page struct {
	URL, Title, Markdown string
}

// Saved is a body written to a file.
type Saved struct {
	URL, FilePath, ContentType string
	Bytes                      int64
}

// href renders u as the WHATWG URL serialiser does for http(s): an empty path is "/".
func href(u *url.URL) string {
	c := *u
	if c.Path == "" && c.RawPath == "" && c.Opaque == "" {
		c.Path = "/"
	}
	c.Host = strings.ToLower(c.Host)
	return c.String()
}

func protocol(u *url.URL) string { return strings.ToLower(u.Scheme) + ":" }

// open validates rawURL, follows at most 5 redirects by hand (each hop checked) and requires
// a 2xx answer; the caller reads and closes the body.
func (c *Client) open(ctx context.Context, rawURL string) (*http.Response, *url.URL, error) {
	target, err := url.Parse(rawURL)
	if err != nil || target.Scheme == "" {
		return nil, nil, errors.New("无效的 URL: " + rawURL)
	}
	target.Scheme = strings.ToLower(target.Scheme)
	if target.Scheme != "http" && target.Scheme != "https" {
		return nil, nil, errors.New("只支持 http/https，收到: " + protocol(target))
	}
	if target.Host == "" {
		return nil, nil, errors.New("无效的 URL: " + rawURL)
	}
	current := target
	for redirects := 0; ; redirects++ {
		if c.opts.Permit != nil {
			if err := c.opts.Permit(current); err != nil {
				return nil, nil, err
			}
		}
		if err := c.checkHost(ctx, current); err != nil {
			return nil, nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, current.String(), nil)
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("User-Agent", UserAgent)
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, nil, requestError(err)
		}
		loc := resp.Header.Get("Location")
		if loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
			resp.Body.Close()
			if redirects >= MaxRedirects {
				return nil, nil, fmt.Errorf("重定向次数超过上限 (%d)", MaxRedirects)
			}
			next, err := current.Parse(loc)
			if err != nil {
				return nil, nil, errors.New("无效的 URL: " + loc)
			}
			next.Scheme = strings.ToLower(next.Scheme)
			if next.Scheme != "http" && next.Scheme != "https" {
				return nil, nil, errors.New("不支持的协议: " + protocol(next))
			}
			current = next
			continue
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			resp.Body.Close()
			return nil, nil, errors.New("HTTP " + resp.Status)
		}
		return resp, current, nil
	}
}

// requestError unwraps the guard's refusal from the transport's error chain, so the text is
// the seed's whichever layer refused.
func requestError(err error) error {
	var be *blockedError
	if errors.As(err, &be) {
		return be
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errors.New("The operation was aborted due to timeout")
	}
	if errors.Is(err, context.Canceled) {
		return errors.New("This operation was aborted")
	}
	return err
}

// Fetch reads rawURL (30 s, ≤5 redirects, ≤5 MiB) and returns HTML as readability's main
// content in Markdown, and JSON, XML and text/* verbatim (trimmed).
func (c *Client) Fetch(ctx context.Context, rawURL string) (*Page, error) {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	resp, final, err := c.open(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	kind := classify(ct)
	if kind == "" {
		if ct == "" {
			ct = "unknown"
		}
		return nil, errors.New("不支持的内容类型: " + ct)
	}
	if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil && n > MaxBytes {
		return nil, fmt.Errorf("页面过大 (%d bytes)，上限 %d", n, MaxBytes)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxBytes+1))
	if err != nil {
		return nil, requestError(err)
	}
	// The seed decodes as UTF-8 whatever the charset (TextDecoder drops a BOM) and measures
	// the decoded text.
	body := decodeUTF8(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")))
	if len(body) > MaxBytes {
		return nil, fmt.Errorf("页面过大，上限 %d bytes", MaxBytes)
	}
	u := href(final)
	if kind == "html" {
		return ExtractMarkdown(ctx, body, u)
	}
	return &Page{URL: u, Title: u, Markdown: jsTrim(body)}, nil
}

// classify is the seed's classifyContentType: "html", "text" or "" (refused).
func classify(ct string) string {
	mime, _, _ := strings.Cut(ct, ";")
	mime = strings.ToLower(strings.TrimSpace(mime))
	switch {
	case mime == "text/html" || mime == "application/xhtml+xml":
		return "html"
	case strings.HasPrefix(mime, "text/"),
		mime == "application/json" || strings.HasSuffix(mime, "+json"),
		mime == "application/xml" || strings.HasSuffix(mime, "+xml"):
		return "text"
	}
	return ""
}

// extractEngine is the helper's engine ExtractMarkdown runs (tests run one with small limits).
var extractEngine = extractwire.Engine

// ExtractMarkdown is the seed's extractMarkdown, run in the pigo-engines helper's extract
// engine (internal/web/extract): React streaming slots (<div hidden id="S:N">) are unhidden,
// readability picks the main content and it is converted to Markdown (ATX headings, fenced
// code); a page with less than 200 characters of content is an error. The helper runs under
// its own CPU and memory limits, is killed when ctx ends, and its answer is read up to
// extractwire.MaxAnswer bytes; without the helper the error is engines.ErrNotFound.
func ExtractMarkdown(ctx context.Context, page, sourceURL string) (*Page, error) {
	if len(page) > extractwire.MaxPage {
		return nil, fmt.Errorf("页面过大，上限 %d bytes", MaxBytes)
	}
	cmd, err := engines.Command(ctx, extractEngine, sourceURL)
	if err != nil {
		return nil, err
	}
	cmd.Stdin = strings.NewReader(page)
	out := &answerWriter{cmd: cmd}
	stderr := &headbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, stderr
	// A helper's child holding its pipes does not hold pigo after the helper ends.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, requestError(ctx.Err())
	}
	if out.over {
		return nil, fmt.Errorf("page extraction failed: the answer of %s %s is over %d bytes", engines.Name, extractwire.Engine, extractwire.MaxAnswer)
	}
	if err != nil {
		return nil, extractFailure(err, stderr)
	}
	var a extractwire.Answer
	if err := json.Unmarshal(out.b, &a); err != nil {
		return nil, fmt.Errorf("page extraction failed: %s %s answered no JSON: %v", engines.Name, extractwire.Engine, err)
	}
	if a.Error != "" {
		return nil, errors.New(a.Error)
	}
	return &Page{URL: sourceURL, Title: a.Title, Markdown: a.Markdown}, nil
}

// extractFailure is the error of a helper that ended without an answer: killed (its CPU limit,
// or a signal), out of its memory, or another failure with the first line of what it said.
func extractFailure(err error, stderr *headbuf.Buffer) error {
	what := engines.Name + " " + extractwire.Engine
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			if ws.Signal() == syscall.SIGKILL || ws.Signal() == syscall.SIGXCPU {
				return fmt.Errorf("page extraction was stopped: %s was killed (it may use %v of CPU)", what, extractwire.CPU)
			}
			return fmt.Errorf("page extraction failed: %s ended by %v", what, ws.Signal())
		}
		if all := stderr.String(); strings.Contains(all, "out of memory") || strings.Contains(all, "cannot allocate memory") {
			return fmt.Errorf("page extraction was stopped: %s ran out of its memory (it may use %d MiB)", what, extractwire.Mem>>20)
		}
	}
	if msg := decodeUTF8([]byte(stderr.FirstLine())); msg != "" {
		return fmt.Errorf("page extraction failed: %s: %v: %s", what, err, msg)
	}
	return fmt.Errorf("page extraction failed: %s: %v", what, err)
}

// answerWriter keeps the helper's answer up to extractwire.MaxAnswer bytes; the first byte beyond kills
// the helper.
type answerWriter struct {
	cmd  *exec.Cmd
	b    []byte
	over bool
}

func (w *answerWriter) Write(p []byte) (int, error) {
	if len(w.b)+len(p) > extractwire.MaxAnswer {
		w.over = true
		w.cmd.Process.Kill()
		return 0, errTooLarge
	}
	w.b = append(w.b, p...)
	return len(p), nil
}

// TruncateMarkdown cuts text to 100 KiB at the last newline, with the seed's marker.
func TruncateMarkdown(text string) (string, bool) {
	if len(text) <= MaxMarkdownBytes {
		return text, false
	}
	sliced := decodeUTF8([]byte(text[:MaxMarkdownBytes]))
	cut := strings.LastIndex(sliced, "\n")
	if cut > 0 {
		sliced = sliced[:cut]
	}
	return sliced + "\n…(已截断)", true
}

// Save copies the body of rawURL verbatim (≤200 MiB, any content type) to w: the caller's
// write path puts it in a temporary file beside the target that is renamed over it at the
// end, so a failed download leaves no truncated file and an existing one untouched (the seed
// truncates first and deletes on failure). Nothing beyond the limit reaches w. The result's
// FilePath is the caller's to fill.
func (c *Client) Save(ctx context.Context, rawURL string, w io.Writer) (*Saved, error) {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	resp, final, err := c.open(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil && n > MaxFileBytes {
		return nil, fmt.Errorf("文件过大 (%d bytes)，上限 %d", n, MaxFileBytes)
	}
	n, err := io.Copy(w, &limitReader{r: resp.Body, n: MaxFileBytes})
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("文件过大，上限 %d bytes", MaxFileBytes)
	}
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, err // the file's error, not the request's
		}
		return nil, requestError(err)
	}
	return &Saved{URL: href(final), ContentType: resp.Header.Get("Content-Type"), Bytes: n}, nil
}

var errTooLarge = errors.New("body over the limit")

// limitReader reads at most n bytes and fails with errTooLarge on the first byte beyond, so
// nothing past the limit reaches the writer.
type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		var one [1]byte
		if k, err := l.r.Read(one[:]); k > 0 {
			return 0, errTooLarge
		} else {
			return 0, err
		}
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	return k, err
}

// decodeUTF8 replaces each invalid sequence with U+FFFD (close to TextDecoder's replacement).
func decodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// jsTrim and isJSSpace are JavaScript's trim and whitespace (the extract engine's too).
func jsTrim(s string) string { return extractwire.Trim(s) }

func isJSSpace(r rune) bool { return extractwire.IsSpace(r) }
