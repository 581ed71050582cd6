package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
)

// The check corpus, in the manner of actionlint's testdata: every case is a directory with an
// agent dir (`agent/`) and/or a project (`project/`, whose overlay is `project/.pi/`).
//
//   - testdata/ok/<case>: must give no error and no warning.
//   - testdata/err/<case>: want.out lists every diagnostic, one per line, as
//     `path:line:col: severity: message [code]` (paths relative to the case dir; a diagnostic
//     about a whole file has no line:col), followed by `    hint: ...` when it has a hint.
//   - testdata/pending/<case>: cases for codes not produced yet; not run.
//
// A file `flags` in a case dir may say `approve` or `no-approve` (--approve / --no-approve);
// without it trust is decided from the tree as pigo would. UPDATE_GOLDEN=1 rewrites want.out.

// checkCase loads one case dir as pigo check would (embedded declarations included) and
// returns the diagnostics with the case dir stripped from their paths.
func checkCase(t *testing.T, dir string) (diag.List, []string) {
	t.Helper()
	opts := config.Options{
		AgentDir:   filepath.Join(dir, "agent"),
		ProjectDir: filepath.Join(dir, "project"),
		Home:       filepath.Join(dir, "home"),
		Getenv:     func(string) string { return "" },
	}
	if b, err := os.ReadFile(filepath.Join(dir, "flags")); err == nil {
		for _, f := range strings.Fields(string(b)) {
			switch f {
			case "approve", "no-approve":
				v := f == "approve"
				opts.Approve = &v
			default:
				t.Fatalf("%s/flags: unknown flag %q", dir, f)
			}
		}
	}
	cfg, err := config.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AddEmbedded()
	list := cfg.Check()
	return list, formatDiags(list, dir)
}

// formatDiags renders diagnostics one per line with paths relative to dir.
func formatDiags(list diag.List, dir string) []string {
	var out []string
	for _, d := range list {
		name := d.File()
		if rel, err := filepath.Rel(dir, name); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
			if strings.HasSuffix(d.File(), string(filepath.Separator)) {
				name += "/"
			}
		}
		loc := name
		if l, c := d.Pos(); l > 0 {
			loc = fmt.Sprintf("%s:%d:%d", name, l, c)
		}
		out = append(out, fmt.Sprintf("%s: %s: %s [%s]", loc, d.Severity, d.Message, d.Code))
		if d.Hint != "" {
			out = append(out, "    hint: "+d.Hint)
		}
	}
	return out
}

func caseDirs(t *testing.T, kind string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata", kind, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no cases in testdata/%s", kind)
	}
	return out
}

// TestCorpusOK checks that every tree in testdata/ok gives no error and no warning.
func TestCorpusOK(t *testing.T) {
	for _, dir := range caseDirs(t, "ok") {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			list, lines := checkCase(t, dir)
			if errs, warns, _ := list.Count(); errs+warns > 0 {
				t.Errorf("%d errors, %d warnings:\n%s", errs, warns, strings.Join(lines, "\n"))
			}
		})
	}
}

// TestCorpusErr checks every tree in testdata/err against its want.out.
func TestCorpusErr(t *testing.T) {
	update := os.Getenv("UPDATE_GOLDEN") == "1"
	for _, dir := range caseDirs(t, "err") {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			list, lines := checkCase(t, dir)
			golden := filepath.Join(dir, "want.out")
			got := strings.Join(lines, "\n") + "\n"
			if update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("diagnostics differ from want.out (-want +got):\n%s", d)
			}
			if len(list) == 0 {
				t.Errorf("an err case must produce at least one diagnostic")
			}
		})
	}
}
