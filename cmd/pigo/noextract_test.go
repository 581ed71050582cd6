package main

import (
	"os/exec"
	"strings"
	"testing"
)

// extractLibraries are web_fetch's HTML extraction and what it brings: the pigo-engines
// helper's extract engine links them (internal/web/extract), pigo does not.
var extractLibraries = []string{
	"codeberg.org/readeck/",
	"github.com/JohannesKaufmann/",
	"golang.org/x/net/html",
	"github.com/andybalholm/cascadia",
	"github.com/gogs/chardet",
	"github.com/go-shiori/",
}

// TestNoHTMLExtractionLinked: pigo does not link web_fetch's extractor (readability,
// html-to-markdown, x/net/html and theirs): their package initialisation cost every pigo start
// ~0.6 ms, and only web_fetch of an HTML page needs them, through the helper (D25.21).
func TestNoHTMLExtractionLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "github.com/pigo-agent/pigo/cmd/pigo").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	heavy := func(p string) bool {
		for _, l := range extractLibraries {
			if strings.HasPrefix(p, l) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		n++
		if heavy(f[0]) {
			t.Errorf("pigo links %s", f[0])
			continue
		}
		for _, q := range f[1:] {
			if heavy(q) {
				t.Errorf("%s imports %s", f[0], q)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d packages listed", n)
	}
}
