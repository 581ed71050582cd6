package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
)

// writeBigTree writes an agent dir (dir/home/.pi/agent) whose extensions/ declare n tools in
// files of 100 tools each, shaped like real declarative tools (parameters, a condition, an exec
// template), plus a settings.json with a few rules over them. It is the input of the 1k and
// 10k-tool measurements (BenchmarkCheckBig, and PIGO_BIG_TREE for the binary).
func writeBigTree(tb testing.TB, dir string, n int) {
	tb.Helper()
	ext := filepath.Join(dir, "home", ".pi", "agent", "extensions")
	if err := os.MkdirAll(ext, 0o755); err != nil {
		tb.Fatal(err)
	}
	for f := 0; f*100 < n; f++ {
		var b strings.Builder
		b.WriteString("{\n  \"tools\": [\n")
		for i := f * 100; i < min(n, (f+1)*100); i++ {
			fmt.Fprintf(&b, `    {"name": "big_%d", "label": "Big %d", "description": "Tool number %d of the generated set",
      "promptSnippet": "big_%d: does thing %d", "promptGuidelines": ["Use big_%d for thing %d."],
      "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "A file"}, "n": {"type": "integer", "minimum": 1}}, "required": ["path"]},
      "when": "os != 'windows'", "exec": ["echo", "{{path}}", "{{n}}"]},
`, i, i, i, i, i, i, i)
		}
		b.WriteString("  ]\n}\n")
		if err := os.WriteFile(filepath.Join(ext, "big-"+strconv.Itoa(f)+".json"), []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	settings := `{"personalExtensions": {"disabledTools": ["big_1*"], "codemodeOnlyTools": ["big_2*"]}, "defaultTools": ["read", "bash", "big_3"]}`
	if err := os.WriteFile(filepath.Join(dir, "home", ".pi", "agent", "settings.json"), []byte(settings), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "proj"), 0o755); err != nil {
		tb.Fatal(err)
	}
}

// TestWriteBigTree writes the big trees for measuring the binary when PIGO_BIG_TREE names a
// directory: PIGO_BIG_TREE=/tmp/big go test ./config -run TestWriteBigTree, then
// HOME=/tmp/big/1000/home /usr/bin/time -v pigo -C /tmp/big/1000/proj check.
func TestWriteBigTree(t *testing.T) {
	dir := os.Getenv("PIGO_BIG_TREE")
	if dir == "" {
		t.Skip("PIGO_BIG_TREE not set")
	}
	for _, n := range []int{1000, 10000} {
		writeBigTree(t, filepath.Join(dir, strconv.Itoa(n)), n)
	}
}

// BenchmarkCheckBig measures check (as `pigo check` runs it) with 1k and 10k declared tools.
func BenchmarkCheckBig(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := b.TempDir()
			writeBigTree(b, dir, n)
			load := func() *config.Config {
				cfg, err := config.Load(config.Options{Home: filepath.Join(dir, "home"), ProjectDir: filepath.Join(dir, "proj"), Getenv: func(string) string { return "" }})
				if err != nil {
					b.Fatal(err)
				}
				cfg.AddEmbedded()
				return cfg
			}
			load().Check()
			b.ReportAllocs()
			for b.Loop() {
				if errs, _, _ := load().Check().Count(); errs > 0 {
					b.Fatalf("%d errors", errs)
				}
			}
		})
	}
}
