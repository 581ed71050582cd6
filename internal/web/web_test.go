package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// server is a loopback test server and the option that opts exactly it in.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, netip.AddrPort) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ap := netip.MustParseAddrPort(srv.Listener.Addr().String())
	return srv, ap
}

// article is the test page (shared with internal/web/extract's tests): a title, navigation,
// an article and a footer.
var article = readTestdata("testdata/article.html")

func readTestdata(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestFetchMarkdown(t *testing.T) {
	srv, ap := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != UserAgent {
			t.Errorf("user agent %q", r.Header.Get("User-Agent"))
		}
		switch r.URL.Path {
		case "/r1":
			http.Redirect(w, r, "/r2", http.StatusFound)
		case "/r2":
			http.Redirect(w, r, "/page", http.StatusMovedPermanently)
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, article)
		}
	})
	c := New(Options{Allow: []netip.AddrPort{ap}})
	p, err := c.Fetch(context.Background(), srv.URL+"/r1")
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != srv.URL+"/page" {
		t.Errorf("final url %q", p.URL)
	}
	if p.Title != "Doc Title" {
		t.Errorf("title %q", p.Title)
	}
	for _, want := range []string{"# Main heading", "[relative link](" + srv.URL + "/rel/link)", "```\ngo test ./...\n```", "- one"} {
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, p.Markdown)
		}
	}
	for _, gone := range []string{"Copyright footer", "About"} {
		if strings.Contains(p.Markdown, gone) {
			t.Errorf("markdown keeps %q:\n%s", gone, p.Markdown)
		}
	}
}

// TestFetchTexts is every refusal and limit of web_fetch with the seed's text.
func TestFetchTexts(t *testing.T) {
	other, _ := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") })
	srv, ap := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chain":
			n := len(r.URL.Query().Get("n"))
			if n < 5 {
				http.Redirect(w, r, "/chain?n="+strings.Repeat("x", n+1), http.StatusTemporaryRedirect)
				return
			}
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "end of chain")
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/to-other":
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
		case "/to-10":
			http.Redirect(w, r, "http://10.1.2.3/x", http.StatusFound)
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/to-ftp":
			http.Redirect(w, r, "ftp://example.com/f", http.StatusFound)
		case "/404":
			http.NotFound(w, r)
		case "/pdf":
			w.Header().Set("Content-Type", "application/pdf")
		case "/none":
			w.Header()["Content-Type"] = nil
			w.Write([]byte{0, 1, 2})
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", fmt.Sprint(MaxBytes+1))
			w.Write(make([]byte, MaxBytes+1))
		case "/bigchunked":
			w.Header().Set("Content-Type", "text/plain")
			w.(http.Flusher).Flush()
			w.Write([]byte(strings.Repeat("a", MaxBytes+1)))
		case "/short":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body><p>tiny</p></body></html>")
		case "/json":
			w.Header().Set("Content-Type", "application/vnd.api+json")
			io.WriteString(w, "\n {\"a\": 1}\n")
		}
	})
	c := New(Options{Allow: []netip.AddrPort{ap}})
	otherHost := strings.TrimPrefix(other.URL, "http://")
	otherIP, _, _ := net.SplitHostPort(otherHost)
	cases := []struct{ url, want string }{
		{"not a url", "无效的 URL: not a url"},
		{"file:///etc/passwd", "只支持 http/https，收到: file:"},
		{srv.URL + "/loop", "重定向次数超过上限 (5)"},
		{srv.URL + "/to-other", "拒绝访问内网地址 " + otherIP + " (" + otherIP + ")"},
		{srv.URL + "/to-10", "拒绝访问内网地址 10.1.2.3 (10.1.2.3)"},
		{srv.URL + "/to-metadata", "拒绝访问内网地址 169.254.169.254 (169.254.169.254)"},
		{srv.URL + "/to-ftp", "不支持的协议: ftp:"},
		{"http://[::1]:1/", "拒绝访问内网地址 [::1] (::1)"},
		{srv.URL + "/404", "HTTP 404 Not Found"},
		{srv.URL + "/pdf", "不支持的内容类型: application/pdf"},
		{srv.URL + "/none", "不支持的内容类型: unknown"},
		{srv.URL + "/big", "页面过大 (5242881 bytes)，上限 5242880"},
		{srv.URL + "/bigchunked", "页面过大，上限 5242880 bytes"},
		{srv.URL + "/short", "页面没有可提取的正文内容"},
	}
	for _, tc := range cases {
		_, err := c.Fetch(context.Background(), tc.url)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %q", tc.url, err, tc.want)
		}
	}
	// Node normalises the numeric host to 127.0.0.1; Go's resolver does not know the form:
	// refused either way.
	if _, err := c.Fetch(context.Background(), "http://0x7f000001/"); err == nil {
		t.Error("0x7f000001 fetched")
	}
	// Exactly five redirects are followed.
	if p, err := c.Fetch(context.Background(), srv.URL+"/chain"); err != nil || p.Markdown != "end of chain" {
		t.Errorf("5 redirects: %+v %v", p, err)
	}
	p, err := c.Fetch(context.Background(), srv.URL+"/json")
	if err != nil || p.Markdown != `{"a": 1}` || p.Title != srv.URL+"/json" {
		t.Errorf("json: %+v %v", p, err)
	}
}

// TestLoopbackNeedsOptIn: without Allow even the test's own server is refused.
func TestLoopbackNeedsOptIn(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") })
	_, err := New(Options{}).Fetch(context.Background(), srv.URL)
	if err == nil || !strings.HasPrefix(err.Error(), "拒绝访问内网地址 127.0.0.1") {
		t.Fatalf("got %v", err)
	}
}

// TestDNSRebinding: the name passes the check (it resolved to a public address) but the
// dialler's own resolution is loopback: the dial-time check refuses it.
func TestDNSRebinding(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") })
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	c := New(Options{Lookup: func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}})
	_, err := c.Fetch(context.Background(), "http://localhost:"+port+"/")
	if err == nil || !strings.HasPrefix(err.Error(), "拒绝访问内网地址 localhost (") {
		t.Fatalf("got %v", err)
	}
}

func TestBlocked(t *testing.T) {
	for _, s := range []string{"0.1.2.3", "10.0.0.1", "127.0.0.1", "169.254.169.254", "172.16.0.1", "172.31.255.255",
		"192.168.1.1", "100.64.0.1", "198.18.0.1", "192.0.0.1", "224.0.0.1", "255.255.255.255", "192.0.2.1",
		"::", "::1", "fc00::1", "fd12::1", "fe80::1", "::ffff:10.0.0.1", "::ffff:127.0.0.1", "ff02::1",
		"64:ff9b::a00:1", "2002:a00:1::", "2001:db8::1", "::127.0.0.1"} {
		if !Blocked(netip.MustParseAddr(s)) {
			t.Errorf("%s not blocked", s)
		}
	}
	for _, s := range []string{"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "64:ff9b::808:808"} {
		if Blocked(netip.MustParseAddr(s)) {
			t.Errorf("%s blocked", s)
		}
	}
}

func TestSave(t *testing.T) {
	payload := strings.Repeat("\x00\xffbinary", 1000)
	srv, ap := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/file":
			w.Header().Set("Content-Type", "application/octet-stream")
			io.WriteString(w, payload)
		case "/huge":
			w.Header().Set("Content-Length", fmt.Sprint(MaxFileBytes+1))
		}
	})
	c := New(Options{Allow: []netip.AddrPort{ap}})
	var buf bytes.Buffer
	f, err := c.Save(context.Background(), srv.URL+"/file", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if buf.String() != payload || f.Bytes != int64(len(payload)) || f.ContentType != "application/octet-stream" || f.URL != srv.URL+"/file" {
		t.Errorf("saved %+v (%d bytes)", f, buf.Len())
	}
	// A download refused from its Content-Length writes nothing.
	buf.Reset()
	_, err = c.Save(context.Background(), srv.URL+"/huge", &buf)
	if err == nil || err.Error() != "文件过大 (209715201 bytes)，上限 209715200" {
		t.Errorf("huge: %v", err)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %d bytes", buf.Len())
	}
}

func TestLimitReader(t *testing.T) {
	var buf bytes.Buffer
	_, err := io.Copy(&buf, &limitReader{r: strings.NewReader("abcdef"), n: 4})
	if !errors.Is(err, errTooLarge) || buf.String() != "abcd" {
		t.Errorf("%q %v", buf.String(), err)
	}
	buf.Reset()
	if _, err := io.Copy(&buf, &limitReader{r: strings.NewReader("abcd"), n: 4}); err != nil || buf.String() != "abcd" {
		t.Errorf("%q %v", buf.String(), err)
	}
}

func TestTruncateMarkdown(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	text := strings.Repeat(line, 2000) // 200,000 bytes
	got, trunc := TruncateMarkdown(text)
	if !trunc || !strings.HasSuffix(got, "x\n…(已截断)") || len(got) > MaxMarkdownBytes+20 {
		t.Fatalf("truncated %v len %d tail %q", trunc, len(got), got[len(got)-30:])
	}
	if strings.Count(got, "\n") != 1024 {
		t.Errorf("cut at %d lines", strings.Count(got, "\n"))
	}
	if s, tr := TruncateMarkdown("short"); tr || s != "short" {
		t.Error("short text changed")
	}
}

func TestReadProxy(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "proxy.json")
	env := map[string]string{"https_proxy": "http://env:1", "NO_PROXY": "a.b"}
	getenv := func(k string) string { return env[k] }
	s, err := ReadProxy(p, getenv)
	if err != nil || s != (ProxySettings{"http://env:1", "a.b"}) {
		t.Errorf("env: %+v %v", s, err)
	}
	os.WriteFile(p, []byte(`{"proxy": " http://file:2 "}`), 0o644)
	if s, _ := ReadProxy(p, getenv); s != (ProxySettings{"http://file:2", "a.b"}) {
		t.Errorf("file: %+v", s)
	}
	for body, want := range map[string]string{
		`{"proxy": "socks5://h:1"}`: "unsupported proxy protocol: socks5://h:1 (expected http:// or https://)",
		`{"proxy": "nope"}`:         "invalid proxy URL: nope",
		`{"proxy": 1}`:              p + ": /proxy: Expected string",
	} {
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := ReadProxy(p, getenv); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// TestProxyUsed: a configured proxy receives the request (the proxy address is dialled
// unchecked; the target name is still checked first).
func TestProxyUsed(t *testing.T) {
	var got string
	proxy, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.String()
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "via proxy")
	})
	c := New(Options{Proxy: ProxySettings{Proxy: proxy.URL}, Lookup: func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}})
	p, err := c.Fetch(context.Background(), "http://example.test/a")
	if err != nil || p.Markdown != "via proxy" || got != "http://example.test/a" {
		t.Fatalf("%+v %v %q", p, err, got)
	}
}
