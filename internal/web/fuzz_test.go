package web

import (
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

// FuzzExtractMarkdown: any page gives Markdown or an error, never a panic.
func FuzzExtractMarkdown(f *testing.F) {
	f.Add(article)
	f.Add("<div hidden id=\"S:1\">" + strings.Repeat("word ", 60) + "</div>")
	f.Add("<html><body><table><tr><td>" + strings.Repeat("x", 300))
	f.Fuzz(func(t *testing.T, page string) {
		_, _ = ExtractMarkdown(page, "https://example.com/p")
	})
}

// BenchmarkExtractMarkdown measures readability + conversion of a small article.
func BenchmarkExtractMarkdown(b *testing.B) {
	page := strings.Replace(article, "<ul>", strings.Repeat("<p>More text in another paragraph, long enough to count.</p>", 50)+"<ul>", 1)
	for b.Loop() {
		if _, err := ExtractMarkdown(page, "https://example.com/p"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReactSlotsUnhidden: React's streamed content (<div hidden id="S:N">) is kept.
func TestReactSlotsUnhidden(t *testing.T) {
	page := `<html><head><title>R</title></head><body><div>Loading...</div><div hidden id="S:0"><article><p>` +
		strings.Repeat("Streamed article text that only arrives in the hidden slot. ", 8) + `</p></article></div></body></html>`
	p, err := ExtractMarkdown(page, "https://example.com/r")
	if err != nil || !strings.Contains(p.Markdown, "Streamed article text") {
		t.Fatalf("%+v %v", p, err)
	}
}
