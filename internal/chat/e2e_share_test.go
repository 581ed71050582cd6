package chat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeGH writes a `gh` into dir that records its arguments in dir/argv, copies the file
// `gist create` is given to dir/shared.html (and whether that file's folder still exists
// afterwards is for the test to see), and behaves as dir/mode says: "ok", "nologin" (auth
// status fails) or "gistfail" (gist create fails with a message on stderr).
func fakeGH(t *testing.T, dir string) {
	t.Helper()
	write(t, filepath.Join(dir, "mode"), "ok")
	script := `#!/bin/sh
d=` + dir + `
echo "$*" >> "$d/argv"
mode=$(/bin/cat "$d/mode")
if [ "$1" = auth ]; then
  [ "$mode" = nologin ] && { echo "You are not logged into any GitHub hosts." >&2; exit 1; }
  exit 0
fi
if [ "$1" = gist ]; then
  [ "$mode" = gistfail ] && { echo "HTTP 422: Validation Failed" >&2; exit 1; }
  /bin/cp "$4" "$d/shared.html"
  echo "- Creating gist session.html" >&2
  echo "https://gist.github.com/someone/0a1b2c3d4e5f"
  exit 0
fi
exit 2
`
	p := filepath.Join(dir, "gh")
	write(t, p, script)
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// /share exports the session to HTML as /export does and uploads it as a secret gist with
// the GitHub CLI (`gh auth status`, then `gh gist create --public=false <page>`), printing
// pi's viewer link and the gist; gh not signed in, a failing upload and gh missing are
// errors with pi's texts. The page's temporary folder is removed afterwards.
func TestE2EShare(t *testing.T) {
	bin := t.TempDir()
	fakeGH(t, bin)
	tm := startTerm(t, 200, 40, termCfg{env: []string{"PATH=" + bin}}, textTurn("The shared answer."))
	tm.ready()
	tm.typeLine("a question to share")
	tm.waitFor("The shared answer.")
	tm.idle()
	tm.typeLine("/share")
	tm.waitFor("Share URL: https://pi.dev/session/#0a1b2c3d4e5f", "Gist: https://gist.github.com/someone/0a1b2c3d4e5f")
	argv, _ := os.ReadFile(filepath.Join(bin, "argv"))
	lines := strings.Split(strings.TrimSpace(string(argv)), "\n")
	if len(lines) != 2 || lines[0] != "auth status" || !strings.HasPrefix(lines[1], "gist create --public=false ") {
		t.Fatalf("gh's arguments:\n%s", argv)
	}
	page := strings.TrimPrefix(lines[1], "gist create --public=false ")
	if filepath.Base(page) != "session.html" || !strings.HasPrefix(filepath.Base(filepath.Dir(page)), "pi-share-") {
		t.Errorf("the page given to gh: %s", page)
	}
	if _, err := os.Stat(filepath.Dir(page)); !os.IsNotExist(err) {
		t.Errorf("the page's folder is still there: %v", err)
	}
	html, _ := os.ReadFile(filepath.Join(bin, "shared.html"))
	if !strings.Contains(string(html), "<html") || !strings.Contains(string(html), "a question to share") || !strings.Contains(string(html), "The shared answer.") {
		t.Errorf("the page shared:\n%.500s", html)
	}

	write(t, filepath.Join(bin, "mode"), "nologin")
	tm.typeLine("/share")
	tm.waitFor("GitHub CLI is not logged in. Run 'gh auth login' first.")
	write(t, filepath.Join(bin, "mode"), "gistfail")
	tm.typeLine("/share")
	tm.waitFor("Failed to create gist: HTTP 422: Validation Failed")
	if err := os.Remove(filepath.Join(bin, "gh")); err != nil {
		t.Fatal(err)
	}
	tm.typeLine("/share")
	tm.waitFor("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/")
	if n := len(tm.srv.Requests()); n != 1 {
		t.Errorf("/share reached the model: %d requests", n)
	}
	tm.typeLine("/quit")
	tm.waitFor("EXIT=0")
}
