package extract

import (
	"os"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/engines/enginestest"
	"github.com/pigo-agent/pigo/internal/web/extractwire"
)

// TestMain: the server's tests run it as the helper does, in a process of its own (Serve bounds
// its process: the test binary must not be the one it bounds).
func TestMain(m *testing.M) {
	enginestest.Main(m, map[string]engines.Server{extractwire.Engine: Serve})
}

// article is internal/web's test page: a title, navigation, an article and a footer.
var article = func() string {
	b, err := os.ReadFile("../testdata/article.html")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// FuzzExtractMarkdown: any page gives Markdown or an error, never a panic (internal/web's
// fuzz test, moved here with the extractor).
func FuzzExtractMarkdown(f *testing.F) {
	f.Add(article)
	f.Add("<div hidden id=\"S:1\">" + strings.Repeat("word ", 60) + "</div>")
	f.Add("<html><body><table><tr><td>" + strings.Repeat("x", 300))
	f.Fuzz(func(t *testing.T, page string) {
		_, _, _ = Markdown(page, "https://example.com/p")
	})
}

// BenchmarkExtractMarkdown measures readability + conversion of a small article, in-process
// (internal/web's is the same through the helper).
func BenchmarkExtractMarkdown(b *testing.B) {
	page := strings.Replace(article, "<ul>", strings.Repeat("<p>More text in another paragraph, long enough to count.</p>", 50)+"<ul>", 1)
	for b.Loop() {
		if _, _, err := Markdown(page, "https://example.com/p"); err != nil {
			b.Fatal(err)
		}
	}
}
