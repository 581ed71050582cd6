package tools

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
	webtools "github.com/pigo-agent/pigo/internal/tools/web"
	"github.com/pigo-agent/pigo/internal/web"
)

// webEnv is a session with the web tools active, its web client opted in to srv only and
// pointed at srv for Search1API.
func webEnv(t *testing.T, srv *httptest.Server) *env {
	t.Helper()
	ws := tempWS(t)
	e := newEnvAt(t, ws)
	e.runner = registryWith(t, e, "web_search", "web_fetch")
	e.runner.Session.Sandbox = sandbox.Policy{NetMode: sandbox.NetAllowAll}
	t.Setenv("HOME", filepath.Dir(ws))
	t.Setenv("SEARCH1API_KEY", "")
	ap := netip.MustParseAddrPort(srv.Listener.Addr().String())
	old := webtools.NewClient
	webtools.NewClient = func(*toolrun.Session) (*web.Client, error) {
		return web.New(web.Options{Allow: []netip.AddrPort{ap}, SearchURL: srv.URL + "/search"}), nil
	}
	t.Cleanup(func() { webtools.NewClient = old })
	return e
}

// search1API is a Search1API stand-in replying with the recorded response shape.
type search1API struct {
	mu     sync.Mutex
	bodies []string
	auth   []string
}

func (s *search1API) handler(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(b))
	s.auth = append(s.auth, r.Header.Get("Authorization")+"|"+r.Header.Get("Content-Type"))
	s.mu.Unlock()
	var q struct{ Query string }
	json.Unmarshal(b, &q)
	w.Header().Set("Content-Type", "application/json")
	switch q.Query {
	case "fail":
		w.WriteHeader(401)
		io.WriteString(w, `{"error":"Invalid API key"}`)
	case "empty":
		io.WriteString(w, `{"searchParameters":{"query":"empty"},"results":[]}`)
	default:
		io.WriteString(w, `{"searchParameters":{"query":"`+q.Query+`","search_service":"google","max_results":5},"results":[`+
			`{"title":"  Go  ","link":" https://go.dev/ ","snippet":"The Go\n  programming   language.","content":null},`+
			`{"title":null,"link":"https://pkg.go.dev/","snippet":null},`+
			`{"title":"no link","link":null,"snippet":"dropped"},`+
			`{"title":"A <b>&","link":"https://`+q.Query+`.example/","snippet":"s","content":" body text "}]}`)
	}
}

func TestWebSearch(t *testing.T) {
	api := &search1API{}
	srv := httptest.NewServer(http.HandlerFunc(api.handler))
	defer srv.Close()
	e := webEnv(t, srv)

	// No query, then no key: the seed's texts and details.
	r := e.call("web_search", `{"query":"  ","queries":[""]}`)
	if !r.IsError || r.Text() != "需要提供 query 或 queries（至少一个搜索词）。" || string(r.Details) != `{"error":"no query"}` {
		t.Errorf("no query: %+v %s", r, r.Details)
	}
	r = e.call("web_search", `{"query":"go"}`)
	if !r.IsError || r.Text() != "未找到 Search1API key：请在 ~/.pi/web-search.json 配置 search1apiApiKey，或设置 SEARCH1API_KEY 环境变量。" ||
		string(r.Details) != `{"error":"search1api key not configured"}` {
		t.Errorf("no key: %q %s", r.Text(), r.Details)
	}

	// The key from ~/.pi/web-search.json, trimmed.
	e.write(filepath.Join(os.Getenv("HOME"), ".pi", "web-search.json"), `{"search1apiApiKey": "  k-file  "}`)
	var progress []string
	r = e.runner.Run(context.Background(), toolrun.Call{ID: "p", Name: "web_search", Arguments: json.RawMessage(`{"queries":["one"," two "]}`)},
		func(p toolrun.Result) { progress = append(progress, p.Text()+" "+string(p.Details)) })
	if r.IsError || len(progress) != 1 || progress[0] != "正在搜索: one / two {}" {
		t.Errorf("progress %q (%s)", progress, r.Text())
	}
	api.bodies, api.auth = nil, nil
	r = e.call("web_search", `{"query":"go","queries":["alt"],"numResults":70.9,"recencyFilter":"week","domainFilter":["-Spam.COM","https://go.dev/x",""],"searchService":"bing","includeContent":true}`)
	if r.IsError {
		t.Fatalf("search: %s", r.Text())
	}
	want := `[
  {
    "title": "Go",
    "url": "https://go.dev/",
    "snippet": "The Go programming language."
  },
  {
    "title": "https://pkg.go.dev/",
    "url": "https://pkg.go.dev/",
    "snippet": ""
  },
  {
    "title": "A <b>&",
    "url": "https://go.example/",
    "snippet": "s",
    "content": "body text"
  },
  {
    "title": "A <b>&",
    "url": "https://alt.example/",
    "snippet": "s",
    "content": "body text"
  }
]`
	if r.Text() != want {
		t.Errorf("text:\n%s", r.Text())
	}
	var d struct {
		Query    []string
		Provider string
		Count    int
	}
	json.Unmarshal(r.Details, &d)
	if strings.Join(d.Query, ",") != "go,alt" || d.Provider != "search1api" || d.Count != 4 {
		t.Errorf("details %s", r.Details)
	}
	bodies := strings.Join(api.bodies, "\n")
	for _, b := range []string{
		`{"query":"go","max_results":50,"crawl_results":5,"time_range":"week","search_service":"bing","include_sites":["go.dev"],"exclude_sites":["spam.com"]}`,
		`{"query":"alt","max_results":50,"crawl_results":5,"time_range":"week","search_service":"bing","include_sites":["go.dev"],"exclude_sites":["spam.com"]}`,
	} {
		if !strings.Contains(bodies, b) {
			t.Errorf("no request body %s in\n%s", b, bodies)
		}
	}
	if api.auth[0] != "Bearer k-file|application/json" {
		t.Errorf("headers %q", api.auth[0])
	}

	// The environment wins; defaults; no results; an API error.
	t.Setenv("SEARCH1API_KEY", "k-env")
	api.bodies = nil
	r = e.call("web_search", `{"query":"empty"}`)
	if r.IsError || r.Text() != "没有找到结果。" || string(r.Details) != `{"count":0,"query":["empty"]}` {
		t.Errorf("empty: %q %s", r.Text(), r.Details)
	}
	if api.bodies[0] != `{"query":"empty","max_results":5,"crawl_results":0}` || api.auth[len(api.auth)-1] != "Bearer k-env|application/json" {
		t.Errorf("defaults: %s %s", api.bodies[0], api.auth[len(api.auth)-1])
	}
	r = e.call("web_search", `{"queries":["fail"]}`)
	if !r.IsError || r.Text() != `搜索失败: Search1API error 401: {"error":"Invalid API key"}` {
		t.Errorf("error: %q", r.Text())
	}
	// At most 4 queries.
	api.bodies = nil
	e.call("web_search", `{"queries":["a","b","c","d","e"]}`)
	if len(api.bodies) != 4 {
		t.Errorf("%d requests for 5 queries", len(api.bodies))
	}
}

func TestWebFetchTool(t *testing.T) {
	page := `<html><head><title>T</title></head><body><article><h2>Heading</h2><p>` + strings.Repeat("Readable words in a paragraph. ", 20) + `</p></article></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, page)
		case "/img":
			w.Header().Set("Content-Type", "image/png")
			io.WriteString(w, "\x89PNG fake")
		case "/trap":
			http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
		}
	}))
	defer srv.Close()
	e := webEnv(t, srv)

	r := e.call("web_fetch", `{"url":"`+srv.URL+`/page"}`)
	if r.IsError || !strings.HasPrefix(r.Text(), "## Heading\n\nReadable words") {
		t.Fatalf("page: %q", r.Text())
	}
	var d map[string]any
	json.Unmarshal(r.Details, &d)
	if d["url"] != srv.URL+"/page" || d["title"] != "T" || d["truncated"] != false || int(d["bytes"].(float64)) != len(r.Text()) {
		t.Errorf("details %s", r.Details)
	}

	r = e.call("web_fetch", `{"url":"`+srv.URL+`/trap"}`)
	if !r.IsError || r.Text() != "抓取失败: 拒绝访问内网地址 169.254.169.254 (169.254.169.254)" ||
		string(r.Details) != `{"error":"拒绝访问内网地址 169.254.169.254 (169.254.169.254)","url":"`+srv.URL+`/trap"}` {
		t.Errorf("trap: %q %s", r.Text(), r.Details)
	}

	// output_path inside the workspace: saved verbatim, the JSON summary.
	r = e.call("web_fetch", `{"url":"`+srv.URL+`/img","output_path":"shots/a.png"}`)
	dst := filepath.Join(e.dir, "shots", "a.png")
	wantText := "{\n  \"url\": \"" + srv.URL + "/img\",\n  \"file_path\": \"" + dst + "\",\n  \"content_type\": \"image/png\",\n  \"bytes\": 9\n}"
	if r.IsError || r.Text() != wantText || e.read(dst) != "\x89PNG fake" {
		t.Errorf("save: %q", r.Text())
	}

	// Outside the workspace, headless: the write guard refuses, nothing is written, and the
	// text is the guard's (not a fetch failure).
	out := "/pigo-web-test-outside/a.png" // not under the workspace or /tmp
	defer os.RemoveAll("/pigo-web-test-outside")
	r = e.call("web_fetch", `{"url":"`+srv.URL+`/img","output_path":"`+out+`"}`)
	if !r.IsError || r.Text() != `Path "`+out+`" is outside workspace. No UI available for approval.` {
		t.Errorf("outside: %q", r.Text())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("written outside the workspace")
	}
}

// registryWith is e's session with a registry of exactly the given tools.
func registryWith(t *testing.T, e *env, tools ...string) *toolrun.Runner {
	t.Helper()
	no := false
	cfg, err := config.Load(config.Options{AgentDir: e.agent, ProjectDir: e.dir, Home: filepath.Dir(e.dir), Approve: &no,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Resolve(config.ResolveOptions{Headless: true, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	e.s = &toolrun.Session{Cwd: e.dir, AgentDir: e.agent, Headless: true}
	return toolrun.New(res.Tools, All(), e.s)
}

// TestWebNetworkPolicy: the web tools follow the sandbox's network.mode (the seed's ignore
// it, so a model could read a secret and fetch https://attacker/?k=… with no approval in any
// mode): "block" refuses before any request or file, "limited" lets only the allowlist
// through (every redirect hop checked), "allow-all" fetches.
func TestWebNetworkPolicy(t *testing.T) {
	var hits []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.String())
		mu.Unlock()
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, "http://localhost:"+r.Host[strings.LastIndexByte(r.Host, ':')+1:]+"/page", http.StatusFound)
			return
		}
		io.WriteString(w, "<html><body><article><p>"+strings.Repeat("Words of a page. ", 30)+"</p></article></body></html>")
	}))
	defer srv.Close()
	e := webEnv(t, srv)
	t.Setenv("SEARCH1API_KEY", "k")
	host := srv.Listener.Addr().String()
	s := e.runner.Session

	s.Sandbox = sandbox.Policy{NetMode: sandbox.NetBlock, NetModeOrigin: sandbox.Origin{File: "/x/sandbox.json", Line: 3, Column: 14}}
	r := e.call("web_fetch", `{"url":"`+srv.URL+`/page?k=secret","output_path":"out.html"}`)
	want := `web_fetch is refused: network.mode is "block" (set by /x/sandbox.json:3:14), and the web tools follow the sandbox's network policy as bash does. To let it reach a host, set network.mode to "limited" with the host in network.allowlist, or to "allow-all".`
	if !r.IsError || r.Text() != want {
		t.Errorf("block:\n got %q\nwant %q", r.Text(), want)
	}
	if r := e.call("web_search", `{"query":"secret"}`); !r.IsError || !strings.HasPrefix(r.Text(), `web_search is refused: network.mode is "block"`) {
		t.Errorf("search, block: %q", r.Text())
	}
	s.Sandbox = sandbox.Policy{}
	if r := e.call("web_fetch", `{"url":"`+srv.URL+`/page"}`); !r.IsError || !strings.Contains(r.Text(), `network.mode is "unknown" (set by the default)`) {
		t.Errorf("no policy: %q", r.Text())
	}
	if len(hits) != 0 {
		t.Fatalf("requests were made: %v", hits)
	}
	if _, err := os.Lstat(filepath.Join(e.dir, "out.html")); err == nil {
		t.Fatal("output_path written")
	}

	s.Sandbox = sandbox.Policy{NetMode: sandbox.NetLimited, Allowlist: []string{host}}
	if r := e.call("web_fetch", `{"url":"`+srv.URL+`/page"}`); r.IsError {
		t.Errorf("limited, allowed: %q", r.Text())
	}
	// The allowed host redirects to a name the allowlist lacks.
	r = e.call("web_fetch", `{"url":"`+srv.URL+`/hop"}`)
	if !r.IsError || !strings.HasPrefix(r.Text(), "web_fetch is refused: localhost:") || !strings.Contains(r.Text(), `is not in network.allowlist (network.mode "limited", set by the default)`) {
		t.Errorf("limited, redirect: %q", r.Text())
	}
	s.Sandbox = sandbox.Policy{NetMode: sandbox.NetLimited, Allowlist: []string{"example.org"}}
	n := len(hits)
	if r := e.call("web_fetch", `{"url":"`+srv.URL+`/page"}`); !r.IsError || !strings.Contains(r.Text(), "is not in network.allowlist") {
		t.Errorf("limited, not allowed: %q", r.Text())
	}
	if len(hits) != n {
		t.Error("a refused host was requested")
	}
}

// TestWebFetchHostileOutputPath is issue 20 through web_fetch's output_path, the one write
// a download makes: a dangling link to the agent dir's sandbox.json, a link to /dev/zero,
// a FIFO and .git's hooks are refused before the request leaves, nothing is written and
// nothing hangs; the safe twin (a link that stays inside) is written through.
func TestWebFetchHostileOutputPath(t *testing.T) {
	var hits int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"fs":{"mode":"allow-all"},"network":{"mode":"allow-all"}}`)
	}))
	defer srv.Close()
	e := webEnv(t, srv)
	hostileTree(t, e.dir, e.agent)
	cases := []struct{ path, want string }{
		{"evil.json", `Path "` + filepath.Join(e.dir, "evil.json") + `" is protected (the agent dir: `},
		{".git/hooks/post-checkout", "is protected (git's config and hooks run outside the sandbox). No UI available for approval."},
		{"zero", "/dev/zero: is a character device, not a regular file"},
		{"fifo", "is a named pipe (FIFO), not a regular file"},
	}
	for _, c := range cases {
		var r toolrun.Result
		within(t, c.path, func() {
			r = e.call("web_fetch", `{"url":"`+srv.URL+`/x","output_path":"`+c.path+`"}`)
		})
		if !r.IsError || !strings.Contains(r.Text(), c.want) {
			t.Errorf("%s: got %q (error %v), want %q", c.path, r.Text(), r.IsError, c.want)
		}
	}
	if _, err := os.Lstat(filepath.Join(e.agent, "sandbox.json")); err == nil {
		t.Error("the dangling link was written through")
	}
	if _, err := os.Lstat(filepath.Join(e.dir, ".git/hooks/post-checkout")); err == nil {
		t.Error("a git hook was written")
	}
	if hits != 0 {
		t.Errorf("%d requests left before the refusals", hits)
	}
	// The safe twin: the link stays inside, the download lands in its target, the link stays.
	if r := e.call("web_fetch", `{"url":"`+srv.URL+`/x","output_path":"inner.md"}`); r.IsError {
		t.Fatalf("inner.md: %s", r.Text())
	}
	if got := e.read("docs/inner.md"); !strings.HasPrefix(got, `{"fs"`) {
		t.Errorf("through the inside link: %q", got)
	}
	if l, _ := os.Readlink(filepath.Join(e.dir, "inner.md")); l != "docs/inner.md" {
		t.Errorf("the link was replaced: %q", l)
	}
}
