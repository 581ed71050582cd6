package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// everythingHTTP starts the real server-everything in its streamable HTTP mode on a free
// loopback port and returns its URL.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	bin := pitest.Tool(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port), "PATH="+pitest.NodeDir()+":"+os.Getenv("PATH"))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		closed := false
		for sc.Scan() {
			if !closed && strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				closed = true
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("server-everything did not start its HTTP server")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

func httpConn(t *testing.T, url string, timeout float64) *Conn {
	s := &mcp.Server{Name: "web", Transport: mcp.HTTP, URL: url, Enabled: true, Timeout: timeout}
	c := NewConn(s, &Options{Cwd: t.TempDir(), ClientName: "pigo", ClientVersion: "test"}, nil, nil)
	t.Cleanup(c.Close)
	return c
}

// TestStreamableHTTPEverything: the real server over streamable HTTP: tools, a call answered
// on an SSE stream with progress, an image, and resources.
func TestStreamableHTTPEverything(t *testing.T) {
	c := httpConn(t, everythingHTTP(t), 30)
	ctx := context.Background()
	if err := c.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if len(c.Tools()) < 10 || !c.HasResources() {
		t.Fatalf("%d tools, resources %v", len(c.Tools()), c.HasResources())
	}
	raw, err := c.CallTool(ctx, "echo", json.RawMessage(`{"message":"over http"}`), nil)
	if err != nil || !strings.Contains(string(raw), "Echo: over http") {
		t.Fatalf("echo: %s %v", raw, err)
	}
	var steps int
	raw, err = c.CallTool(ctx, "trigger-long-running-operation", json.RawMessage(`{"duration":1,"steps":3}`), func(Progress) { steps++ })
	if err != nil || steps != 3 {
		t.Errorf("long operation: %s %v, %d progress notifications", raw, err, steps)
	}
	raw, err = c.CallTool(ctx, "get-tiny-image", nil, nil)
	conv, _ := ConvertResult("web", "get-tiny-image", raw, true, nil)
	hasImage := false
	for _, b := range conv.Content {
		hasImage = hasImage || b.Type == "image" && b.MimeType == "image/png" && b.Data != ""
	}
	if err != nil || !hasImage {
		t.Errorf("image: %v %+v", err, conv.Content)
	}
	raw, err = c.Request(ctx, "resources/read", json.RawMessage(`{"uri":"demo://resource/static/document/architecture.md"}`))
	if err != nil || !strings.Contains(string(raw), "contents") {
		t.Errorf("resources/read: %s %v", raw, err)
	}
}

// TestHTTPConnectRetries: transient statuses are retried twice at connect (pi's 250 ms and
// 1 s), other failures are not, and the error says what the server answered.
func TestHTTPConnectRetries(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"initialize"`) && hits.Add(1) <= 2 {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		var m message
		_ = json.Unmarshal(body, &m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s1")
		result := `{}`
		if m.Method == "initialize" {
			result = `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}`
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}))
	defer srv.Close()
	c := httpConn(t, srv.URL, 5)
	if err := c.Open(context.Background()); err != nil {
		t.Fatalf("after two 503s the third attempt connects: %v", err)
	}
	if hits.Load() != 3 {
		t.Errorf("%d initialize attempts", hits.Load())
	}

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no such endpoint", http.StatusBadRequest)
	}))
	defer bad.Close()
	hits.Store(0)
	err := httpConn(t, bad.URL, 5).Open(context.Background())
	if err == nil || !strings.Contains(err.Error(), "MCP HTTP request failed with status 400: no such endpoint") || hits.Load() != 1 {
		t.Errorf("a 400 is not retried: %v (%d attempts)", err, hits.Load())
	}
}

// TestSSEParsing: CRLF, CR and LF line ends, multi-line data, comments, ids and an event over
// the bound.
func TestSSEParsing(t *testing.T) {
	in := ": comment\r\nid: 7\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nevent: message\rdata: x\r\rretry: 50\ndata: y\n\n"
	var got []string
	var ids []string
	err := readSSE(strings.NewReader(in), 1<<20, func(ev sseEvent) { got = append(got, ev.event+"|"+ev.data+"|"+ev.id) }, func(id string) { ids = append(ids, id) })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"|{\"a\":\n1}|7", "message|x|", "|y|"}
	if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(ids) != "[7]" {
		t.Errorf("events %q, ids %q", got, ids)
	}
	big := "data: " + strings.Repeat("z", 2000) + "\n\n"
	if err := readSSE(strings.NewReader(big), 1000, func(sseEvent) {}, func(string) {}); err == nil || !strings.Contains(err.Error(), "exceeds 1000 bytes") {
		t.Errorf("oversize event: %v", err)
	}
}
