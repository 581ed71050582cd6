package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// script is the 4-request session as scripts/benchserve plays it, with a bash command that
// shows what this test checks: the placeholders (ls -a) and the shell ($0).
func script(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		n := bytes.Count(b, []byte(`"role":"tool"`))
		w.Header().Set("Content-Type", "text/event-stream")
		call := func(name, args string) string {
			return fmt.Sprintf(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c%d","function":{"name":%q,"arguments":%q}}]}}]}`, n, name, args)
		}
		var chunk string
		switch n {
		case 0:
			chunk = call("read", `{"path":"main.go"}`)
		case 1:
			chunk = call("bash", `{"command":"ls -a; echo \"shell=$0\""}`)
		case 2:
			chunk = call("edit", `{"path":"main.go","edits":[{"oldText":"hello","newText":"goodbye"}]}`)
		default:
			chunk = `{"choices":[{"delta":{"content":"Done."}}]}`
		}
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", chunk)
	}))
}

// dutiesFile writes a duty file as `pigo sandbox argv --format json` does: a bwrap command line
// covering ws/.pi with a read-only tmpfs (a placeholder made on the host when missing).
func dutiesFile(t *testing.T, ws string) string {
	argv := []string{"bwrap", "--ro-bind", "/", "/", "--bind", ws, ws, "--tmpfs", ws + "/.pi", "--remount-ro", ws + "/.pi",
		"--dev", "/dev", "--proc", "/proc", "--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session",
		"--", "/bin/bash", "-lc", "ls"}
	b, _ := json.Marshal(map[string]any{"Argv": argv, "Env": []string{"PATH=/usr/bin:/bin"}})
	p := filepath.Join(t.TempDir(), "duties.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFloorSkip: each duty FLOOR_SKIP names is left out and only that one: pigo's command line
// (its placeholder seen by `ls -a` inside the sandbox, gone afterwards), bash (the command's
// $0), the edit through a renamed temporary file (main.go's inode changes), the session file
// (kept in FLOOR_SESSIONS, one a run). An unknown duty is an error.
func TestFloorSkip(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("no bwrap")
	}
	if err := exec.Command("bwrap", "--ro-bind", "/", "/", "--unshare-user", "--unshare-net", "true").Run(); err != nil {
		t.Skipf("bwrap cannot run here: %v", err)
	}
	srv := script(t)
	defer srv.Close()
	for _, skip := range []string{"", "argv", "bash", "edit", "log"} {
		t.Run("skip="+skip, func(t *testing.T) {
			sessions := t.TempDir()
			ws := t.TempDir()
			main := filepath.Join(ws, "main.go")
			if err := os.WriteFile(main, []byte("package main\n\nfunc main() { println(\"hello\") }\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var before syscall.Stat_t
			if err := syscall.Stat(main, &before); err != nil {
				t.Fatal(err)
			}
			t.Setenv("FLOOR_DUTIES", dutiesFile(t, ws))
			t.Setenv("FLOOR_SKIP", skip)
			t.Setenv("FLOOR_SESSIONS", sessions)
			t.Chdir(ws)
			duties = nil
			err := run(srv.URL + "/v1")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(filepath.Join(ws, "main.go"))
			if !bytes.Contains(b, []byte("goodbye")) {
				t.Fatalf("main.go not edited: %q", b)
			}
			if _, err := os.Lstat(filepath.Join(ws, ".pi")); !os.IsNotExist(err) {
				t.Errorf("the placeholder .pi is left in the workspace: %v", err)
			}
			var st syscall.Stat_t
			syscall.Stat(filepath.Join(ws, "main.go"), &st)
			if renamed := st.Ino != before.Ino; renamed != (skip != "edit") {
				t.Errorf("main.go's inode changed: %v, want %v", renamed, skip != "edit")
			}
			logs, _ := os.ReadDir(sessions)
			if skip == "log" {
				if len(logs) != 0 {
					t.Fatalf("session files written: %v", logs)
				}
				return
			}
			if len(logs) != 1 {
				t.Fatalf("%d session files, want 1", len(logs))
			}
			log, _ := os.ReadFile(filepath.Join(sessions, logs[0].Name()))
			var out string
			for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
				var m struct{ Role, Content string }
				json.Unmarshal([]byte(line), &m)
				if m.Role == "tool" && strings.Contains(m.Content, "shell=") {
					out = m.Content
				}
			}
			if seen := strings.Contains(out, ".pi\n"); seen != (skip != "argv") {
				t.Errorf("the command saw .pi: %v, want %v (its output %q)", seen, skip != "argv", out)
			}
			shell := "shell=/bin/bash"
			if skip == "bash" {
				shell = "shell=/bin/sh"
			}
			if !strings.Contains(out, shell) {
				t.Errorf("the command's output %q lacks %q", out, shell)
			}
			if !bytes.Contains(log, []byte(`"content":"Done."`)) {
				t.Errorf("the answer is not in the session file:\n%s", log)
			}
		})
	}
	t.Run("unknown", func(t *testing.T) {
		ws := t.TempDir()
		t.Setenv("FLOOR_DUTIES", dutiesFile(t, ws))
		t.Setenv("FLOOR_SKIP", "argv,fsync")
		t.Chdir(ws)
		duties = nil
		if err := run(srv.URL + "/v1"); err == nil || !strings.Contains(err.Error(), `unknown duty "fsync"`) {
			t.Fatalf("run = %v, want the unknown duty named", err)
		}
	})
}

// TestFloorSessionsTemporary: without FLOOR_SESSIONS the session file goes to a temporary
// directory that the run removes.
func TestFloorSessionsTemporary(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("no bwrap")
	}
	srv := script(t)
	defer srv.Close()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("hello\n"), 0o644)
	t.Setenv("FLOOR_DUTIES", dutiesFile(t, ws))
	t.Setenv("FLOOR_SKIP", "argv")
	t.Setenv("FLOOR_SESSIONS", "")
	t.Chdir(ws)
	duties = nil
	if err := run(srv.URL + "/v1"); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("left in TMPDIR: %v", ents)
	}
	if duties == nil || duties.temp == "" || !strings.HasPrefix(duties.temp, tmp) {
		t.Fatalf("the session file was not in a temporary directory under TMPDIR: %+v", duties)
	}
}
