package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/session"
)

// chatCommands are pi's interactive commands that change the thinking level or copy the
// session (/thinking, /clone, /import); the chat's key bindings run them too.
func chatCommands() []Command {
	return []Command{
		{Name: "thinking", Interactive: true, Run: func(_ context.Context, s *Session, level string) (Result, error) {
			if !slices.Contains(ThinkingLevels, level) {
				return Result{}, fmt.Errorf("Invalid thinking level %q. Use one of: %s", level, strings.Join(ThinkingLevels, ", "))
			}
			t, err := s.SetThinking(level)
			if err != nil {
				return Result{}, err
			}
			return Result{Text: "Thinking level: " + t}, nil
		}},
		{Name: "clone", Interactive: true, Run: func(_ context.Context, s *Session, _ string) (Result, error) {
			if err := s.Clone(); err != nil {
				return Result{}, err
			}
			return s.sessionStarted(Result{Text: "Cloned to new session", Reset: true}), nil
		}},
		{Name: "import", Interactive: true, Run: runImport},
	}
}

// File is the current session file (it changes on /new, /fork, /resume, /clone, /import). A
// front end reads its entries (the footer's totals, the editor's history, /export); it is
// safe for concurrent use.
func (s *Session) File() *session.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file
}

// Dequeue takes back the steering and follow-up messages still queued (Alt+Up, an abort).
func (s *Session) Dequeue() []string {
	if ag := s.agent(); ag != nil {
		return ag.Dequeue()
	}
	return nil
}

// SetThinking sets the thinking level (clamped to what the model supports), records a
// thinking_level_change and continues with it; it returns the level set.
func (s *Session) SetThinking(level string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.model == nil {
		return "", errors.New("no model")
	}
	t := ClampThinking(s.model, level)
	if _, err := s.file.AppendThinkingLevelChange(t); err != nil {
		return "", err
	}
	s.thinking = t
	s.rebuild()
	return t, nil
}

// Clone continues in a new session file holding the current branch (pi's /clone); the old
// file stays as it is.
func (s *Session) Clone() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.file
	var ns *session.Session
	if old.Path() == "" || !old.Persisted() {
		ns = session.New(s.setup.Cwd, old.Dir(), session.Options{ParentSession: old.Path()})
		for _, e := range old.Branch(old.Leaf()) {
			c := *e
			if _, err := ns.Append(&c); err != nil {
				return err
			}
		}
	} else {
		var err error
		if ns, err = session.Fork(old.Path(), s.setup.Cwd, old.Dir()); err != nil {
			return err
		}
	}
	if err := old.Close(); err != nil {
		ns.Close()
		return err
	}
	s.switchFile(ns)
	return nil
}

// Import copies the JSONL session at path into the session folder, keeping its id and
// working directory (pi's /import), and continues it as Resume does. A relative path is the
// workspace's; "~/" is the home folder's.
func (s *Session) Import(path string) (note string, err error) {
	path = s.importPath(path)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var h session.Header
	first, _, _ := strings.Cut(string(b), "\n")
	if err := json.Unmarshal([]byte(first), &h); err != nil || h.Type != "session" || h.ID == "" {
		return "", fmt.Errorf("%s is not a session file (its first line is not a session header)", path)
	}
	dir := s.File().Dir()
	if dir == "" {
		return "", errors.New("this session is in memory (--no-session): there is no session folder to import into")
	}
	dst := filepath.Join(dir, filepath.Base(path))
	if !strings.HasSuffix(dst, ".jsonl") {
		dst += ".jsonl"
	}
	if dst != path {
		if _, err := os.Stat(dst); err == nil {
			return "", fmt.Errorf("%s already exists", dst)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return "", err
		}
	}
	return s.Resume(dst)
}

// importPath is /import's argument as a path: quotes dropped, "~/" the home folder's, a
// relative path the workspace's.
func (s *Session) importPath(path string) string {
	path = strings.Trim(path, `"'`)
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[2:])
		}
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(s.setup.Cwd, path)
	}
	return path
}

// runImport is /import: a file whose stored working directory is gone first asks, as pi 1.6
// does; continue imports it to work here, fork continues a copy of it made for this folder
// (nothing imported), cancel does nothing.
func runImport(_ context.Context, s *Session, arg string) (Result, error) {
	choice, path := parseCwdAnswer(arg)
	if path == "" {
		return Result{}, errors.New("Usage: /import <path.jsonl>")
	}
	switch choice {
	case "":
		if stored, gone := storedCwdGone(s.importPath(path)); gone {
			return Result{Ask: missingCwdQuestion(stored, s.setup.Cwd, path)}, nil
		}
	case cancelAnswer:
		return Result{Text: "Import cancelled"}, nil
	case MissingCwdFork:
		id, note, err := s.ResumeFork(s.importPath(path))
		if err != nil {
			return Result{}, err
		}
		text := fmt.Sprintf("Forked into new session %s in %s", id, s.setup.Cwd)
		if note != "" {
			text += "\n" + note
		}
		return s.sessionStarted(Result{Text: text, Reset: true}), nil
	}
	note, err := s.Import(path)
	if err != nil {
		return Result{}, err
	}
	text := "Session imported from: " + path
	if note != "" {
		text += "\n" + note
	}
	return s.sessionStarted(Result{Text: text, Reset: true}), nil
}
