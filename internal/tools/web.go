package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/llm"
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
		var f *web.Saved
		_, err = pw.CommitStream(ctx, func(w io.Writer) error {
			var err error
			f, err = c.Save(ctx, a.URL, w)
			return err
		})
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
	page, err := c.Fetch(ctx, a.URL)
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
