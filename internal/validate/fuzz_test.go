package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// FuzzCheck validates random JSONC against #Settings and #Sandbox: Check never panics, and
// every diagnostic it returns points inside its file (or at the whole file) and has a code.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"theme": 1}`, `{"personalExtensions": {"fileIo": "vim", "disabledTools": [{"tools": "x"}, 3]}}`,
		`{"fs": {"mode": "x", "writablePaths": [1]}, "approvalRules": [{"action": "maybe"}]}`,
		`{"compaction": {"reserveTokens": -1e99}, "editorPaddingX": 1e400}`, `{"a": {"b": {"c": [[]]}}}`,
		`{"visionConfig": {}, "sessionName": {"maxLength": "x"}, "packages": [{"source": ""}]}`,
		"{\"\\u00e9\": null, \"defaultTool\": [], \"defaultTools\": [], \"defaultTools\": 1}",
		`{"network": {"mode": "limited", "allowlist": ["*."]}, "extraArgs": "x"}`,
	} {
		f.Add([]byte(s))
	}
	// Small versions of the hostile inputs of issue 11 (the big ones run in config's tests).
	var keys, dups strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&keys, "%q: %d,", fmt.Sprintf("unknownKey%d", i), i)
		fmt.Fprintf(&dups, `"theme": "x%d",`, i)
	}
	for _, s := range []string{
		"{" + keys.String() + `"quietStartup": true}`, "{" + dups.String() + `"quietStartup": true}`,
		`{"retry": {"maxRetries": ` + strings.Repeat("9", 20000) + `}, "quietStartup": ` + strings.Repeat("9", 20000) + `}`,
		`{"x": ` + strings.Repeat("[", 900) + strings.Repeat("]", 900) + `}`,
	} {
		f.Add([]byte(s))
	}
	for _, g := range []string{"../../config/testdata/*/*/agent/settings.json", "../../config/testdata/*/*/agent/sandbox.json", "../../examples/*/settings.json", "../../examples/*/sandbox.json"} {
		names, _ := filepath.Glob(g)
		for _, n := range names {
			if data, err := os.ReadFile(n); err == nil {
				f.Add(data)
			}
		}
	}
	s, err := Load()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		root, err := jsonc.Parse(text)
		if err != nil {
			return
		}
		src := diag.NewSource("f.json", text)
		for _, def := range []string{"#Settings", "#Sandbox"} {
			for _, mode := range []Mode{UserConfig, Declaration} {
				for _, d := range s.Check(src, root, def, Options{Mode: mode}) {
					if d.Code == "" || d.Message == "" {
						t.Fatalf("%s: diagnostic without code or message: %+v", def, d)
					}
					if d.Src != src {
						t.Fatalf("%s: diagnostic in another file %q", def, d.File())
					}
					if d.HasPos() && (d.Start > len(text) || d.End > len(text) || d.End < d.Start) {
						t.Fatalf("%s: span [%d,%d) outside the file (%d bytes): %s", def, d.Start, d.End, len(text), d.Message)
					}
				}
			}
		}
	})
}
