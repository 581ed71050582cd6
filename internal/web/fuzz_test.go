package web

import (
	"context"
	"strings"
	"testing"
)

// FuzzParseResults: any response body gives hits or an error, never a panic, and every
// hit has a URL.
func FuzzParseResults(f *testing.F) {
	for _, s := range []string{`{"results":[]}`, `{"results":[{"title":null,"link":"x","snippet":null}]}`,
		`{"results":[{"title":1}]}`, `[]`, `{"results":{}}`, ``, `{"results":[{"link":" ","title":"","snippet":"","content":null}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		hits, err := parseResults(b)
		for _, h := range hits {
			if err == nil && h.URL == "" {
				t.Fatalf("hit without url: %+v", h)
			}
		}
	})
}

// BenchmarkExtractMarkdown is one extraction of a small article through the pigo-engines
// helper (the test binary, as the real helper would be: its start, the page and the answer
// over pipes); extract's is the same work in-process.
func BenchmarkExtractMarkdown(b *testing.B) {
	page := strings.Replace(article, "<ul>", strings.Repeat("<p>More text in another paragraph, long enough to count.</p>", 50)+"<ul>", 1)
	for b.Loop() {
		if _, err := ExtractMarkdown(context.Background(), page, "https://example.com/p"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReactSlotsUnhidden: React's streamed content (<div hidden id="S:N">) is kept.
func TestReactSlotsUnhidden(t *testing.T) {
	page := `<html><head><title>R</title></head><body><div>Loading...</div><div hidden id="S:0"><article><p>` +
		strings.Repeat("Streamed article text that only arrives in the hidden slot. ", 8) + `</p></article></div></body></html>`
	p, err := ExtractMarkdown(context.Background(), page, "https://example.com/r")
	if err != nil || !strings.Contains(p.Markdown, "Streamed article text") {
		t.Fatalf("%+v %v", p, err)
	}
}
