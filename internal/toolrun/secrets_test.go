package toolrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/safefile"
)

// TestSearchCommandHidesCredentials: a search whose tree holds the agent dir's auth.json runs
// under bwrap with the store covered; without bwrap it is refused naming the store; a search
// elsewhere is the program itself; a search of the store is refused as a read is.
func TestSearchCommandHidesCredentials(t *testing.T) {
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	if err := os.MkdirAll(agent, 0o700); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(agent, "auth.json")
	if err := os.WriteFile(store, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	ctx := context.Background()
	s := &Session{Cwd: work, AgentDir: agent}

	cmd, err := s.SearchCommand(ctx, work, work, "/usr/bin/rg", []string{"x"})
	if err != nil || cmd.Path != "/usr/bin/rg" || strings.Join(cmd.Args, " ") != "/usr/bin/rg x" || cmd.Dir != work {
		t.Fatalf("search outside the agent dir: %v %v", cmd, err)
	}

	if _, err := os.Stat("/usr/bin/bwrap"); err == nil {
		cmd, err = s.SearchCommand(ctx, work, home, "/usr/bin/rg", []string{"x"})
		if err != nil {
			t.Fatal(err)
		}
		want := "--dev-bind / / --dev-bind /dev/null " + ReadKey(store) + " -- /usr/bin/rg x"
		if got := strings.Join(cmd.Args[1:], " "); got != want {
			t.Fatalf("search of home:\n got %s\nwant %s", got, want)
		}
	}

	s.Sandbox.BwrapPath = filepath.Join(home, "no-bwrap")
	_, err = s.SearchCommand(ctx, work, home, "/usr/bin/rg", []string{"x"})
	var r *Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Text, "Refusing to search "+home+": it contains pigo's credential store "+ReadKey(store)) {
		t.Fatalf("without bwrap: %v", err)
	}

	link := filepath.Join(work, "link.json")
	if err := os.Symlink(store, link); err != nil {
		t.Fatal(err)
	}
	_, err = s.SearchCommand(ctx, work, "link.json", "/usr/bin/rg", []string{"x"})
	var sr *safefile.Refusal
	if !errors.As(err, &sr) || sr.Path != link {
		t.Fatalf("search of the store through a link: %v", err)
	}
}
