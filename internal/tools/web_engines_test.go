package tools

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/engines"
)

// TestWebFetchWithoutHelper: web_fetch of an HTML page needs the pigo-engines helper (its
// extractor); without it the tool's error is engines.ErrNotFound's text, and a text page,
// which is not extracted, is still read.
func TestWebFetchWithoutHelper(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/text" {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "plain words")
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body><article><p>"+strings.Repeat("Words of a page. ", 30)+"</p></article></body></html>")
	}))
	defer srv.Close()
	e := webEnv(t, srv)
	t.Setenv(engines.EnvPath, "")
	t.Setenv("PATH", t.TempDir())

	r := e.call("web_fetch", `{"url":"`+srv.URL+`/page"}`)
	if !r.IsError || !strings.HasPrefix(r.Text(), "抓取失败: "+engines.ErrNotFound.Error()) {
		t.Errorf("html: %q", r.Text())
	}
	var d map[string]any
	json.Unmarshal(r.Details, &d)
	if msg, _ := d["error"].(string); !strings.HasPrefix(msg, engines.ErrNotFound.Error()) || d["url"] != srv.URL+"/page" {
		t.Errorf("details %s", r.Details)
	}
	if r := e.call("web_fetch", `{"url":"`+srv.URL+`/text"}`); r.IsError || r.Text() != "plain words" {
		t.Errorf("text: %q", r.Text())
	}
}
