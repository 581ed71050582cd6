package session

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestStart(t *testing.T) {
	agent, cwd, other := t.TempDir(), t.TempDir(), t.TempDir()
	l := Locate(agent, cwd, "", "")
	lo := Locate(agent, other, "", "")
	write := func(l Location, cwd string) *Session {
		s := New(cwd, l.Dir, Options{})
		s.AppendMessage(user("q"))
		s.AppendMessage(assistant("a"))
		s.Close()
		return s
	}
	if _, err := Start(StartOptions{Location: l, Fork: "x", Session: "y", NoSession: true}); err == nil || err.Error() != "--fork cannot be combined with --session, --no-session" {
		t.Errorf("conflict: %v", err)
	}
	s, _ := Start(StartOptions{Location: l, NoSession: true})
	if s.Persisted() {
		t.Error("--no-session persists")
	}
	s, _ = Start(StartOptions{Location: l, Continue: true})
	if len(s.Entries()) != 0 || s.Path() == "" {
		t.Error("-c without sessions starts a new one")
	}
	mine := write(l, cwd)
	theirs := write(lo, other)
	s, err := Start(StartOptions{Location: l, Continue: true})
	if err != nil || s.ID() != mine.ID() {
		t.Errorf("-c: %v", err)
	}
	s, err = Start(StartOptions{Location: l, Session: mine.ID()[:13]})
	if err != nil || s.ID() != mine.ID() || len(s.Context().Messages) != 2 {
		t.Errorf("--session prefix: %v", err)
	}
	var oc *OtherCwdError
	if _, err := Start(StartOptions{Location: l, Session: theirs.ID()}); !errors.As(err, &oc) || oc.Cwd != other || err.Error() != "Session found in different project: "+other {
		t.Errorf("--session of another cwd: %v", err)
	}
	f, err := Start(StartOptions{Location: l, Fork: theirs.ID()})
	if err != nil || f.Header().ParentSession != theirs.Path() || f.Cwd() != cwd || filepath.Dir(f.Path()) != l.Dir {
		t.Fatalf("--fork: %v %+v", err, f.Header())
	}
	if _, err := Start(StartOptions{Location: l, Session: "ffff"}); err == nil || err.Error() != "No session found matching 'ffff'" {
		t.Errorf("unknown: %v", err)
	}
	os.RemoveAll(other)
	var mc *MissingCwdError
	if _, err := Start(StartOptions{Location: l, Session: theirs.Path()}); !errors.As(err, &mc) {
		t.Errorf("missing cwd: %v", err)
	} else if want := "Stored session working directory does not exist: " + other + "\nSession file: " + theirs.Path() + "\nCurrent working directory: " + cwd; err.Error() != want {
		t.Errorf("missing cwd text %q", err.Error())
	}
}
