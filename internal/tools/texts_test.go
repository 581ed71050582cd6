package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/claudecode"
	"github.com/pigo-agent/pigo/internal/tools/opencode"
)

// The quoted texts of runtime-behaviour.md §1.2–§1.3 and §1.7 that the
// per-tool tests do not already produce, each from a real call. (The
// others: filetools_test.go, opencode_test.go, search_test.go,
// bash_seed_test.go, lsp_test.go, editmatch_test.go and the corpus.)
func TestQuotedTexts(t *testing.T) {
	t.Run("Edit too large", func(t *testing.T) {
		e := newFileEnv(t, "claude-code")
		p := e.path("huge.bin")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		// A sparse file: 1 GiB + 1 byte on paper, nothing read.
		if err := f.Truncate(1<<30 + 1); err != nil {
			t.Skipf("no sparse files here: %v", err)
		}
		f.Close()
		e.fail("Edit", map[string]any{"file_path": p, "old_string": "a", "new_string": "b"}, "File is too large to edit (1.0 GB). Maximum editable file size is 1.0 GB.")
	})
	t.Run("Glob ripgrep failed", func(t *testing.T) {
		needRG(t)
		e := newFileEnv(t, "claude-code")
		r := e.call("Glob", map[string]any{"pattern": "a{b"})
		if !r.IsError || !strings.HasPrefix(r.Text(), "ripgrep failed: ") {
			t.Errorf("got %q", r.Text())
		}
	})
	t.Run("Grep path did you mean", func(t *testing.T) {
		needRG(t)
		e := newFileEnv(t, "claude-code")
		sub := e.write("src/x.go", "")
		_ = sub
		wrong := filepath.Join(filepath.Dir(e.dir), "src")
		e.fail("Grep", map[string]any{"pattern": "x", "path": wrong}, "Path does not exist: "+wrong+". Note: your current working directory is "+e.dir+". Did you mean "+filepath.Join(e.dir, "src")+"?")
	})
	t.Run("grep without ripgrep", func(t *testing.T) {
		e := newFileEnv(t, "opencode")
		t.Setenv("PATH", t.TempDir())
		e.fail("grep", map[string]any{"pattern": "x"}, "ripgrep (rg) was not found on PATH; install ripgrep to use this tool.")
		e.fail("glob", map[string]any{"pattern": "x"}, "ripgrep (rg) was not found on PATH; install ripgrep to use this tool.")
	})
	t.Run("grep record too large", func(t *testing.T) {
		needRG(t)
		e := newFileEnv(t, "opencode")
		e.write("wide.txt", "needle "+strings.Repeat("x", 70<<10)+"\n")
		e.fail("grep", map[string]any{"pattern": "needle"}, "ripgrep JSON record exceeded 65536 bytes")
	})
	t.Run("glob missing dir", func(t *testing.T) {
		needRG(t)
		e := newFileEnv(t, "opencode")
		e.write("srcs/a", "")
		e.fail("glob", map[string]any{"pattern": "*", "path": "src"}, "Directory does not exist: src. Note: your current working directory is "+e.dir+".\n\nDid you mean one of these?\n"+filepath.Join(e.dir, "srcs"))
	})
	t.Run("Bash byte limit and partial line", func(t *testing.T) {
		e := bashEnv(t, "claude-code")
		r := e.call("Bash", map[string]any{"command": "for i in $(seq 100); do printf '%01000d\\n' $i; done"})
		var d struct {
			FullOutputPath string `json:"fullOutputPath"`
		}
		json.Unmarshal(r.Details, &d)
		if !strings.HasSuffix(r.Text(), "\n\n[Showing lines 50-100 of 100 (50.0KB limit). Full output: "+d.FullOutputPath+"]") {
			t.Errorf("byte limit: %q", r.Text()[len(r.Text())-100:])
		}
		r = e.call("Bash", map[string]any{"command": "head -c 60000 /dev/zero | tr '\\0' y"})
		json.Unmarshal(r.Details, &d)
		if !strings.HasSuffix(r.Text(), "\n\n[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: "+d.FullOutputPath+"]") {
			t.Errorf("partial line: %q", r.Text()[len(r.Text())-100:])
		}
	})
	t.Run("Bash aborted", func(t *testing.T) {
		for _, name := range []string{"Bash", "bash"} {
			fileIO := "claude-code"
			if name == "bash" {
				fileIO = "opencode"
			}
			e := bashEnv(t, fileIO)
			ctx, cancel := context.WithCancel(context.Background())
			go func() { time.Sleep(300 * time.Millisecond); cancel() }()
			r := e.runner.Run(ctx, toolrun.Call{ID: "c", Name: name, Arguments: json.RawMessage(`{"command":"sleep 5"}`)}, nil)
			if !r.IsError || r.Text() != "Command aborted" || string(r.Structured) != `{"exitCode":null,"output":""}` {
				t.Errorf("%s: %q %v %s", name, r.Text(), r.IsError, r.Structured)
			}
		}
	})
	t.Run("bash missing workdir", func(t *testing.T) {
		e := bashEnv(t, "opencode")
		e.fail("bash", map[string]any{"command": "true", "workdir": e.write("file", "")}, "Working directory is not a directory: "+filepath.Join(e.dir, "file"))
	})
}

func TestGrepHiddenGlobDefaults(t *testing.T) {
	// The seed's exact argument lists (with pigo's --sort where noted).
	p := claudecode.GrepParams{Pattern: "-x", Glob: sp("*.ts,*.js {a,b}.go"), OutputMode: sp("content"), Before: fp(2), After: fp(3), IgnoreCase: bp(true), Type: sp("go"), Multiline: bp(true)}
	got := strings.Join(claudecode.GrepArgs(&p, "/w"), " ")
	want := "--color=never --hidden --max-columns 500 --glob !.git --glob !.svn --glob !.hg --glob !.bzr --glob !.jj --glob !.sl --no-heading --with-filename --sort=path --line-number --before-context 2 --after-context 3 --ignore-case --type go --multiline --multiline-dotall --glob *.ts --glob *.js --glob {a,b}.go -e -x /w"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	p = claudecode.GrepParams{Pattern: "x", OutputMode: sp("content"), Context: fp(1), Around: fp(5), LineNums: bp(false)}
	if got := strings.Join(claudecode.GrepArgs(&p, "/w"), " "); !strings.HasSuffix(got, "--no-heading --with-filename --sort=path --context 1 x /w") {
		t.Errorf("context wins over -C: %s", got)
	}
	if got := strings.Join(opencode.GrepArgs("p", "*.go", "."), " "); got != "--no-config --json --hidden --no-messages --sort=path --glob=*.go --glob=!**/.git/** -- p ." {
		t.Errorf("opencode grep: %s", got)
	}
	if got := strings.Join(claudecode.GlobArgs("**/*.go"), " "); got != "--files --glob **/*.go --sort=modified --no-ignore --hidden --glob !.git/**" {
		t.Errorf("Glob: %s", got)
	}
	if _, err := exec.LookPath("rg"); err != nil {
		t.Log("rg missing: the argument lists above were not run")
	}
}
