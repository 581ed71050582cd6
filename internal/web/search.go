package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf16"
)

// Search1API facts.
const (
	SearchURL     = "https://api.search1api.com/search"
	SearchTimeout = 60 * time.Second
)

// SearchOptions are web_search's per-query options.
type SearchOptions struct {
	NumResults     *float64
	RecencyFilter  string
	DomainFilter   []string
	SearchService  string
	IncludeContent bool
}

// Hit is one search result as the tool returns it.
type Hit struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
	Content string `json:"content,omitempty"`
}

// clampNumResults is the seed's: default 5, floor, within 1..50.
func clampNumResults(v *float64) int {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return 5
	}
	return int(math.Max(1, math.Min(math.Floor(*v), 50)))
}

// normalizeDomain reduces a domainFilter entry to a host name ("" to skip it).
func normalizeDomain(raw string) string {
	in := jsTrim(strings.TrimPrefix(strings.ToLower(jsTrim(raw)), "-"))
	if in == "" {
		return ""
	}
	s := in
	if !strings.Contains(in, "://") {
		s = "https://" + in
	}
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return strings.Trim(u.Hostname(), ".")
	}
	h, _, _ := strings.Cut(in, "/")
	h, _, _ = strings.Cut(h, ":")
	return h
}

// SearchBody is the request body for one query, its keys in the seed's order.
func SearchBody(query string, o SearchOptions) []byte {
	n := clampNumResults(o.NumResults)
	crawl := 0
	if o.IncludeContent {
		crawl = min(n, 5)
	}
	var include, exclude []string
	for _, raw := range o.DomainFilter {
		d := normalizeDomain(raw)
		if d == "" {
			continue
		}
		if strings.HasPrefix(strings.TrimLeftFunc(raw, isJSSpace), "-") {
			exclude = append(exclude, d)
		} else {
			include = append(include, d)
		}
	}
	var b bytes.Buffer
	put := func(k string, v any) {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		kj, _ := json.Marshal(k)
		vj, _ := json.Marshal(v)
		b.Write(kj)
		b.WriteByte(':')
		b.Write(vj)
	}
	put("query", query)
	put("max_results", n)
	put("crawl_results", crawl)
	if o.RecencyFilter != "" {
		put("time_range", o.RecencyFilter)
	}
	if o.SearchService != "" {
		put("search_service", o.SearchService)
	}
	if len(include) > 0 {
		put("include_sites", include)
	}
	if len(exclude) > 0 {
		put("exclude_sites", exclude)
	}
	return append(append([]byte{'{'}, b.Bytes()...), '}')
}

// Search runs one query against Search1API with key.
func (c *Client) Search(ctx context.Context, query, key string, o SearchOptions) ([]Hit, error) {
	ctx, cancel := context.WithTimeout(ctx, SearchTimeout)
	defer cancel()
	endpoint := SearchURL
	if c.opts.SearchURL != "" {
		endpoint = c.opts.SearchURL
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(SearchBody(query, o)))
	if err != nil {
		return nil, err
	}
	if c.opts.Permit != nil {
		if err := c.opts.Permit(req.URL); err != nil {
			return nil, err
		}
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	// The endpoint is fixed (not the model's), so there is no name check; the dialled
	// address is still checked.
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, requestError(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxBytes+1))
	if err != nil {
		return nil, requestError(err)
	}
	text := decodeUTF8(raw)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("Search1API error %d: %s", resp.StatusCode, jsSlice(text, 300))
	}
	return parseResults(raw)
}

// jsSlice is String.prototype.slice(0, n): n UTF-16 units.
func jsSlice(s string, n int) string {
	u := utf16.Encode([]rune(s))
	if len(u) <= n {
		return s
	}
	return string(utf16.Decode(u[:n]))
}

// parseResults checks the response shape ({results: [{title, link, snippet: string|null,
// content?: string|null}]}, other keys allowed) and maps the hits as the seed does.
func parseResults(raw []byte) ([]Hit, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, errors.New("Search1API: invalid JSON response")
	}
	var items []map[string]json.RawMessage
	if r, ok := top["results"]; !ok || json.Unmarshal(r, &items) != nil {
		return nil, errors.New("Search1API: expected an object with a results array")
	}
	var hits []Hit
	for i, it := range items {
		field := func(k string, optional bool) (string, error) {
			v, ok := it[k]
			if !ok {
				if optional {
					return "", nil
				}
				return "", fmt.Errorf("Search1API: results/%d/%s: expected string or null", i, k)
			}
			if string(v) == "null" {
				return "", nil
			}
			var s string
			if json.Unmarshal(v, &s) != nil {
				return "", fmt.Errorf("Search1API: results/%d/%s: expected string or null", i, k)
			}
			return s, nil
		}
		title, err := field("title", false)
		if err != nil {
			return nil, err
		}
		link, err := field("link", false)
		if err != nil {
			return nil, err
		}
		snippet, err := field("snippet", false)
		if err != nil {
			return nil, err
		}
		content, err := field("content", true)
		if err != nil {
			return nil, err
		}
		u := jsTrim(link)
		if u == "" {
			continue
		}
		h := Hit{Title: jsTrim(title), URL: u, Snippet: jsTrim(strings.Join(strings.FieldsFunc(snippet, isJSSpace), " ")), Content: jsTrim(content)}
		if h.Title == "" {
			h.Title = u
		}
		hits = append(hits, h)
	}
	return hits, nil
}
