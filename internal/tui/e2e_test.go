package tui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEndToEndTmux runs the real binary on a real terminal (tmux, 80x24): it finds the tool a
// rule disabled, re-enables it for the session model, quits, and checks the screen and the
// bytes written to settings.json (comments kept).
func TestEndToEndTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: skipping the end-to-end terminal test (install tmux to run it)")
	}
	if testing.Short() {
		t.Skip("-short: skipping the end-to-end terminal test (it builds the binary)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pigo")
	// pigo and, beside it as installed, its engines helper (web_fetch, codemode and talk need it).
	build := exec.Command("go", "build", "-o", dir+"/", "github.com/pigo-agent/pigo/cmd/pigo", "github.com/pigo-agent/pigo/cmd/pigo-engines")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj")
	settings := filepath.Join(home, ".pi", "agent", "settings.json")
	write(t, settings, settingsJSON)
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}

	sock := fmt.Sprintf("pigo-tui-e2e-%d", os.Getpid())
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	t.Cleanup(func() {
		// tmux 3.3's kill-server leaves the socket file in /tmp/tmux-UID: it is removed too.
		path, _ := exec.Command(tmux, "-L", sock, "display-message", "-p", "#{socket_path}").Output()
		_ = exec.Command(tmux, "-L", sock, "kill-server").Run()
		if p := strings.TrimSpace(string(path)); p != "" {
			os.Remove(p)
		}
	})
	shell := fmt.Sprintf("cd %q && env -i HOME=%q PATH=%q TERM=xterm-256color NO_COLOR=1 %q tui; echo EXIT=$?; sleep 600",
		proj, home, os.Getenv("PATH"), bin)
	run("new-session", "-d", "-s", "e2e", "-x", "80", "-y", "24", shell)

	screen := func() string { return run("capture-pane", "-p", "-J", "-t", "e2e") }
	// waitFor polls the screen until it shows every text (a deadline, not a timing assertion).
	waitFor := func(what ...string) string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			s := screen()
			ok := true
			for _, w := range what {
				ok = ok && strings.Contains(s, w)
			}
			if ok {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("the screen never showed %q:\n%s", what, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	keys := func(ks ...string) { run(append([]string{"send-keys", "-t", "e2e"}, ks...)...) }

	waitFor("1 Registry", "model: anthropic/claude-sonnet-4-5", "disabled 1")
	keys("/")
	waitFor("find: ")
	keys("-l", "TodoWrite")
	keys("Enter")
	s := waitFor("find: TodoWrite", "explain TodoWrite (toolset:claude-code) => disabled")
	if !strings.Contains(s, `rule "Todo*" at ~/.pi/agent/settings.json:7:23`) {
		t.Errorf("the explain pane does not show the rule's file:line:\n%s", s)
	}
	keys("E")
	s = waitFor("explain TodoWrite (toolset:claude-code) => active", `rule "TodoWrite" at ~/.pi/agent/settings.json:10:19`)
	if !strings.Contains(s, "personalExtensions.enabledTools +=") {
		t.Errorf("the status line does not report the edit:\n%s", s)
	}
	row := ""
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "> TodoWrite") {
			row = l
		}
	}
	if !strings.Contains(row, "active") {
		t.Errorf("the TodoWrite row is %q, want active:\n%s", row, s)
	}
	keys("q")
	s = waitFor("EXIT=0")
	if !strings.Contains(s, `pigo tui: personalExtensions.enabledTools += {"tools":["TodoWrite"],"models":["anthropic/claude-sonnet-4-5"]}`) {
		t.Errorf("no edit summary after quitting:\n%s", s)
	}
	got, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(settingsJSON, `    "disabledTools": ["Todo*"],
`, `    "disabledTools": ["Todo*"],
    "enabledTools": [
      {
        "tools": ["TodoWrite"],
        "models": ["anthropic/claude-sonnet-4-5"],
      },
    ],
`, 1)
	if !bytes.Equal(got, []byte(want)) {
		t.Errorf("settings.json is\n%s\nwant\n%s", got, want)
	}
}
