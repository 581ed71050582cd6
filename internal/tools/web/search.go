package web

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
	"github.com/pigo-agent/pigo/internal/web"
)

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
		if q = strings.TrimFunc(q, toolkit.IsJSSpaceRune); q != "" && len(queries) < 4 {
			queries = append(queries, q)
		}
	}
	if len(queries) == 0 {
		return toolkit.ErrDetails(TextSearchNoQuery, map[string]any{"error": "no query"}), nil
	}
	permit, err := webPermit("web_search", inv.Session)
	if err != nil {
		return toolrun.Result{}, err
	}
	key := Search1APIKey()
	if key == "" {
		return toolkit.ErrDetails(TextSearchNoKey, map[string]any{"error": "search1api key not configured"}), nil
	}
	fail := func(err error) toolrun.Result {
		return toolkit.ErrDetails("搜索失败: "+err.Error(), map[string]any{"error": err.Error()})
	}
	c, err := NewClient(inv.Session)
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
