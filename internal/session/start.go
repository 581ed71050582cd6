package session

import (
	"fmt"
	"os"
	"strings"
)

// StartOptions are a run's session flags (pi's; cli.md "Running a session").
type StartOptions struct {
	Location Location
	// Session is --session PATH|ID (a path, a session id or a unique id prefix).
	Session string
	// Continue is -c: the newest session of this cwd, or a new one.
	Continue bool
	// Fork is --fork PATH|ID: a copy of that session as a new session of this cwd.
	Fork string
	// NoSession is --no-session: in memory only.
	NoSession bool
	// Resume is -r: the caller picks a file (it needs a person) and passes it as Session.
	Resume bool
}

// OtherCwdError is returned when --session names another project's session: pi asks
// "Fork this session into current directory?" at a terminal; a headless run refuses.
type OtherCwdError struct {
	Path, Cwd string
}

func (e *OtherCwdError) Error() string {
	return "Session found in different project: " + e.Cwd
}

// MissingCwdError is returned when a session's stored working directory does not exist
// (pi's text; pi offers the current cwd at a terminal).
type MissingCwdError struct {
	File, SessionCwd, Cwd string
}

func (e *MissingCwdError) Error() string {
	return "Stored session working directory does not exist: " + e.SessionCwd + "\nSession file: " + e.File +
		"\nCurrent working directory: " + e.Cwd
}

// Start opens or creates the session a run's flags ask for, as pi's createSessionManager
// does. The run then works in the session's Cwd() (an opened session keeps the cwd in its
// header). Flag conflicts and unknown ids are errors with pi's texts.
func Start(o StartOptions) (*Session, error) {
	l := o.Location
	if o.Fork != "" {
		var bad []string
		for _, f := range []struct {
			on   bool
			name string
		}{{o.Session != "", "--session"}, {o.Continue, "--continue"}, {o.Resume, "--resume"}, {o.NoSession, "--no-session"}} {
			if f.on {
				bad = append(bad, f.name)
			}
		}
		if len(bad) > 0 {
			return nil, fmt.Errorf("--fork cannot be combined with %s", strings.Join(bad, ", "))
		}
	}
	switch {
	case o.NoSession:
		return InMemory(l.Cwd), nil
	case o.Fork != "":
		p, _, err := Resolve(l, o.Fork)
		if err != nil {
			return nil, err
		}
		return Fork(p, l.Cwd, l.Dir)
	case o.Session != "":
		p, global, err := Resolve(l, o.Session)
		if err != nil {
			return nil, err
		}
		if global {
			h, _ := readHeader(p)
			cwd := ""
			if h != nil {
				cwd = h.Cwd
			}
			return nil, &OtherCwdError{Path: p, Cwd: cwd}
		}
		return openChecked(p, l)
	case o.Continue:
		if p := Recent(l); p != "" {
			return openChecked(p, l)
		}
	}
	return New(l.Cwd, l.Dir, Options{}), nil
}

func openChecked(p string, l Location) (*Session, error) {
	s, err := Open(p, OpenOptions{Dir: l.Dir, Cwd: l.Cwd})
	if err != nil {
		return nil, err
	}
	if c := s.Cwd(); c != "" {
		if _, err := os.Stat(c); err != nil {
			s.Close()
			return nil, &MissingCwdError{File: s.Path(), SessionCwd: c, Cwd: l.Cwd}
		}
	}
	return s, nil
}
