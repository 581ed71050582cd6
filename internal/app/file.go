package app

import (
	"fmt"
	"os"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
)

// openFile applies the session flags: --no-session, --fork, --session, -c, else a new
// session; `pigo tool run --session FILE` opens (or creates) exactly that file.
func (s *Session) openFile(spec SessionSpec) (*session.Session, error) {
	cwd := s.setup.Cwd
	loc := spec.Location
	switch {
	case spec.File != "":
		f, err := session.Open(spec.File, session.OpenOptions{Cwd: cwd})
		if err != nil {
			return nil, failf("%v", err)
		}
		for _, w := range f.Warnings {
			s.notify("%s", w)
		}
		return f, nil
	case spec.InMemory:
		return session.InMemory(cwd), nil
	case spec.Fork != "":
		p, _, err := session.Resolve(loc, spec.Fork)
		if err != nil {
			return nil, failf("%v", err)
		}
		f, err := session.Fork(p, cwd, loc.Dir)
		if err != nil {
			return nil, failf("--fork: %v", err)
		}
		return f, nil
	case spec.Open != "":
		p, global, err := session.Resolve(loc, spec.Open)
		if err != nil {
			return nil, failf("%v", err)
		}
		if stored, gone := storedCwdGone(p); gone {
			choice := ""
			if spec.MissingCwd == nil {
				return nil, missingSessionCwd(stored, p, cwd)
			}
			switch choice = spec.MissingCwd(stored, cwd); choice {
			case MissingCwdFork:
				// pi 1.6: a copy of the session continues here (new id, the original kept).
				f, err := session.Fork(p, cwd, loc.Dir)
				if err != nil {
					return nil, failf("--session: %v", err)
				}
				return f, nil
			case MissingCwdContinue:
				// The file continues in place with this folder as the workspace; its stored
				// cwd is unchanged, so the next open asks again (pi's "asks again next time").
				f, err := session.Open(p, session.OpenOptions{Dir: loc.Dir, Cwd: cwd})
				if err != nil {
					return nil, failf("--session: %v", err)
				}
				s.fileWarnings(f)
				return f, nil
			default:
				return nil, ErrCancelled
			}
		}
		if global {
			return nil, failf("session %s belongs to another project; use --fork %s to continue a copy of it here", p, spec.Open)
		}
		f, err := session.Open(p, session.OpenOptions{Dir: loc.Dir, Cwd: cwd})
		if err != nil {
			return nil, failf("--session: %v", err)
		}
		s.fileWarnings(f)
		return f, nil
	case spec.Continue:
		if p := session.Recent(loc); p != "" {
			f, err := session.Open(p, session.OpenOptions{Dir: loc.Dir, Cwd: cwd})
			if err != nil {
				return nil, failf("-c: %v", err)
			}
			s.fileWarnings(f)
			return f, nil
		}
	}
	return session.New(cwd, loc.Dir, session.Options{}), nil
}

// storedCwdGone reads the session file's stored working directory and reports whether it no
// longer exists.
func storedCwdGone(path string) (stored string, gone bool) {
	stored, err := session.ReadCwd(path)
	if err != nil || stored == "" {
		return "", false
	}
	_, err = os.Stat(stored)
	return stored, os.IsNotExist(err)
}

// missingSessionCwd is pi's refusal of a session whose stored working directory is gone
// (pi 1.6 print mode; its chat asks: SessionSpec.MissingCwd).
func missingSessionCwd(stored, path, cwd string) error {
	return failf("Stored session working directory does not exist: %s\nSession file: %s\nCurrent working directory: %s", stored, path, cwd)
}

func (s *Session) fileWarnings(f *session.Session) {
	for _, w := range f.Warnings {
		s.notify("%s: warning: %s", f.Path(), w)
	}
}

// switchFile makes f the session file (the old one closed by the caller), points /rewind at
// its images and rebuilds the agent. Call with s.mu held.
func (s *Session) switchFile(f *session.Session) {
	s.file = f
	s.tools.Env.SessionID = f.ID()
	if p := f.Path(); p != "" {
		s.tools.Env.SessionFile = p
	}
	if s.o.Rewind != nil {
		s.o.Rewind.Switch(rewindDir(f.Path()))
	}
	s.startSeed(false)
	s.rebuild()
}

// rewindDir is the sidecar directory of a session file's before-images ("" in memory).
func rewindDir(sessionPath string) string {
	if sessionPath == "" {
		return ""
	}
	return strings.TrimSuffix(sessionPath, ".jsonl") + ".rewind"
}

// NewSession closes the session file and starts a new one with the same model and thinking
// level (/new).
func (s *Session) NewSession() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.file.Close(); err != nil {
		return err
	}
	f := session.New(s.setup.Cwd, s.file.Dir(), session.Options{})
	if _, err := f.AppendModelChange(s.model.Provider, s.model.ID); err != nil {
		return err
	}
	if _, err := f.AppendThinkingLevelChange(s.thinking); err != nil {
		return err
	}
	s.switchFile(f)
	return nil
}

// Name sets the session's name (a session_info entry); "" returns the current one.
func (s *Session) Name(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == "" {
		return s.file.Name(), nil
	}
	_, err := s.file.AppendSessionInfo(name)
	return name, err
}

// Fork continues the session in a new file holding the path up to before the user message
// id (pi's fork), and returns that message's text for the editor. Forking from the first
// message starts an empty session whose parentSession is the old file.
func (s *Session) Fork(id string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	target := s.file.Entry(id)
	text := ""
	if target != nil {
		text = userText(target)
	}
	if text == "" {
		return "", fmt.Errorf("Invalid entry ID for forking")
	}
	if target.ParentID == "" {
		old := s.file.Path()
		if err := s.file.Close(); err != nil {
			return "", err
		}
		s.switchFile(session.New(s.setup.Cwd, s.file.Dir(), session.Options{ParentSession: old}))
		return text, nil
	}
	if _, err := s.file.Branched(target.ParentID); err != nil {
		return "", err
	}
	s.switchFile(s.file)
	return text, nil
}

// Resume continues the session file at path (its new branches stay in the session
// directory) and closes the current one; the session's model and thinking level come back
// as pi restores them. A note says when its model no longer resolves.
func (s *Session) Resume(path string) (note string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if path != s.file.Path() {
		l := s.o.Session.Location
		f, err := session.Open(path, session.OpenOptions{Dir: l.Dir, Cwd: l.Cwd})
		if err != nil {
			return "", err
		}
		if err := s.file.Close(); err != nil {
			f.Close()
			return "", err
		}
		s.file = f
	}
	return s.continueFileLocked(), nil
}

// continueFileLocked continues the conversation of s.file, just opened: its model (the note
// says when it cannot be restored) and thinking level. Call with s.mu held.
func (s *Session) continueFileLocked() (note string) {
	ctx := s.file.Context()
	if ref := ctx.Model; ref != nil && !(strings.EqualFold(ref.Provider, s.model.Provider) && strings.EqualFold(ref.ModelID, s.model.ID)) {
		if err := s.useModelLocked(ref.Provider + "/" + ref.ModelID); err != nil {
			note = fmt.Sprintf("Could not restore model %s/%s: %v", ref.Provider, ref.ModelID, err)
		}
	}
	s.thinking = ClampThinking(s.model, ctx.ThinkingLevel)
	s.switchFile(s.file)
	return note
}

// Navigate moves the leaf to entry id, or to before it when it is a user message, whose text
// it returns for the editor (pi's navigateTree without a summary).
func (s *Session) Navigate(id string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.file.Entry(id)
	if e == nil {
		return "", fmt.Errorf("Entry %s not found", id)
	}
	leaf, text := id, ""
	if t := userText(e); t != "" || (e.Type == session.TypeMessage && e.Message != nil && e.Message.LLM != nil && e.Message.LLM.Role == llm.RoleUser) {
		leaf, text = e.ParentID, t
	}
	if leaf == "" {
		s.file.ResetLeaf()
	} else if err := s.file.SetLeaf(leaf); err != nil {
		return "", err
	}
	s.rebuild()
	return text, nil
}

// userText is a user message entry's text (pi's contentText: the text parts joined), "" for
// any other entry.
func userText(e *session.Entry) string {
	if e.Type != session.TypeMessage || e.Message == nil || e.Message.LLM == nil || e.Message.LLM.Role != llm.RoleUser {
		return ""
	}
	var b strings.Builder
	for _, c := range e.Message.LLM.Content {
		if c.Type == llm.TypeText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// Info is /session's text.
func (s *Session) Info() string {
	s.mu.Lock()
	p, id, ag := s.file.Path(), s.file.ID(), s.ag
	s.mu.Unlock()
	if p == "" {
		p = "(in memory)"
	}
	n := 0
	if ag != nil {
		n = len(ag.Messages())
	}
	return fmt.Sprintf("Session %s\nFile: %s\nMessages: %d", id, p, n)
}
