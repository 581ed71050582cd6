package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/claudecode"
	"github.com/pigo-agent/pigo/internal/tools/opencode"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

var (
	benchTreeOnce sync.Once
	benchTree     string
)

// tree10k is a 10 000-file source tree (100 directories × 100 files), made
// once per test binary; every tenth file mentions the needle.
func tree10k(b *testing.B) string {
	benchTreeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pigo-bench-tree-")
		if err != nil {
			b.Fatal(err)
		}
		for d := 0; d < 100; d++ {
			sub := filepath.Join(dir, fmt.Sprintf("pkg%02d", d))
			os.MkdirAll(sub, 0o755)
			for f := 0; f < 100; f++ {
				body := fmt.Sprintf("package pkg%02d\n\nfunc F%d() int { return %d }\n", d, f, f)
				if f%10 == 0 {
					body += "// needle here\n"
				}
				os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.go", f)), []byte(body), 0o644)
			}
		}
		benchTree = dir
	})
	return benchTree
}

func runRGDirect(b *testing.B, dir string, args ...string) {
	cmd := exec.Command("rg", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch compares each search tool on a 10k-file tree with
// running ripgrep directly with the same arguments (the tool's overhead is
// the ratio of the two).
func BenchmarkSearch(b *testing.B) {
	needRG(b)
	dir := tree10k(b)
	ctx := context.Background()
	files := claudecode.GrepParams{Pattern: "needle"}
	content := claudecode.GrepParams{Pattern: "needle", OutputMode: sp("content")}
	b.Run("Grep-files/tool", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := claudecode.Grep(ctx, &toolrun.Session{Cwd: dir}, &files); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Grep-files/rg", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runRGDirect(b, dir, claudecode.GrepArgs(&files, dir)...)
		}
	})
	b.Run("Grep-content/tool", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := claudecode.Grep(ctx, &toolrun.Session{Cwd: dir}, &content); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Grep-content/rg", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runRGDirect(b, dir, claudecode.GrepArgs(&content, dir)...)
		}
	})
	b.Run("Glob/tool", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := claudecode.Glob(ctx, dir, "**/*.go", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Glob/rg", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runRGDirect(b, dir, claudecode.GlobArgs("**/*.go")...)
		}
	})
	b.Run("grep/tool", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := opencode.Grep(ctx, &toolrun.Session{Cwd: dir}, "needle", nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("grep/rg", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runRGDirect(b, dir, opencode.GrepArgs("needle", "", ".")...)
		}
	})
	b.Run("glob/tool", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := opencode.Glob(ctx, dir, "**/*.go", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("glob/rg", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runRGDirect(b, dir, opencode.GlobArgs("**/*.go")...)
		}
	})
}

// BenchmarkEdit measures both edit engines on 1 MB and 5 MB files (time
// per byte should stay flat): a unique match near the end, and for
// opencode a miss that runs every matcher.
func BenchmarkEdit(b *testing.B) {
	for _, mb := range []int{1, 5} {
		var sb strings.Builder
		for i := 0; sb.Len() < mb<<20; i++ {
			fmt.Fprintf(&sb, "func f%d() int {\n\treturn %d\n}\n\n", i, i)
		}
		content := sb.String()
		old := "func f20000() int {\n\treturn 20000\n}"
		if mb == 5 {
			old = "func f100000() int {\n\treturn 100000\n}"
		}
		b.Run(fmt.Sprintf("opencode-hit/%dMB", mb), func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			for i := 0; i < b.N; i++ {
				if _, err := toolkit.ApplyEdit(content, old, "x", false); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("opencode-indent/%dMB", mb), func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			for i := 0; i < b.N; i++ {
				if _, err := toolkit.ApplyEdit(content, strings.ReplaceAll(old, "\t", "    "), "x", false); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("opencode-miss/%dMB", mb), func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			for i := 0; i < b.N; i++ {
				if _, err := toolkit.ApplyEdit(content, "no such\ntext anywhere\nin the file", "x", false); err == nil {
					b.Fatal("matched")
				}
			}
		})
		b.Run(fmt.Sprintf("exact/%dMB", mb), func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			for i := 0; i < b.N; i++ {
				if _, err := toolkit.ExactEdit(content, old, "x", false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
