package app

import (
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/session"
)

// The chat's question for a session whose stored working directory is gone, asked by /resume
// and /import as pi 1.6's interactive mode asks it (its title, its three choices and its
// status lines). The chosen answer comes back as the command's argument: cwdAnswer marks it
// with a NUL, which a person cannot type, so a typed argument is never taken for an answer.

// cancelAnswer is the answer to the question when it is closed without a choice.
const cancelAnswer = "cancel"

// missingCwdQuestion is the selector pi shows: "Session cwd does not exist: <stored>" and
// continue here / fork here / cancel, each answer carrying arg (the session file or the
// path typed) back to the command.
func missingCwdQuestion(stored, cwd, arg string) *Picker {
	return &Picker{
		Title: "Session cwd does not exist: " + stored,
		Items: []PickItem{
			{Label: "Continue in " + cwd + " (asks again next time)", Arg: cwdAnswer(MissingCwdContinue, arg)},
			{Label: "Fork into " + cwd + " (new session ID, original kept)", Arg: cwdAnswer(MissingCwdFork, arg)},
			{Label: "Cancel", Arg: cwdAnswer(cancelAnswer, arg)},
		},
		Cancel: cwdAnswer(cancelAnswer, arg),
	}
}

func cwdAnswer(choice, arg string) string { return "\x00" + choice + "\x00" + arg }

// parseCwdAnswer splits an argument into the question's answer ("" when it is not one) and
// the argument the question was asked for.
func parseCwdAnswer(arg string) (choice, rest string) {
	if !strings.HasPrefix(arg, "\x00") {
		return "", arg
	}
	choice, rest, _ = strings.Cut(arg[1:], "\x00")
	return choice, rest
}

// runResume is /resume with the session file chosen: a file whose stored working directory
// is gone first asks (pi 1.6); continue resumes it working here (its stored cwd unchanged, so
// the next resume asks again), fork continues a copy made for this folder (new id, the
// original kept), cancel leaves the current session as it is.
func runResume(s *Session, arg string) (Result, error) {
	choice, path := parseCwdAnswer(arg)
	cwd := s.setup.Cwd
	if choice == "" {
		if stored, gone := storedCwdGone(path); gone && path != s.File().Path() {
			return Result{Ask: missingCwdQuestion(stored, cwd, path)}, nil
		}
	}
	var note, text string
	var err error
	switch choice {
	case cancelAnswer:
		return Result{Text: "Resume cancelled"}, nil
	case MissingCwdFork:
		var id string
		if id, note, err = s.ResumeFork(path); err == nil {
			text = fmt.Sprintf("Forked into new session %s in %s", id, cwd)
		}
	case MissingCwdContinue:
		note, err = s.Resume(path)
		text = "Resumed session in " + cwd
	case "":
		note, err = s.Resume(path)
		text = "Resumed session"
	default:
		return Result{}, fmt.Errorf("unknown answer %q", choice)
	}
	if err != nil {
		return Result{}, err
	}
	if note != "" {
		text = note + "\n" + text
	}
	return s.sessionStarted(Result{Text: text, Reset: true}), nil
}

// ResumeFork continues a copy of the session file at path made for this folder (pi's fork of
// a session whose folder is gone): a new file with a new id and this workspace as its cwd;
// the original is not touched. It returns the new session's id.
func (s *Session) ResumeFork(path string) (id, note string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := session.Fork(path, s.setup.Cwd, s.o.Session.Location.Dir)
	if err != nil {
		return "", "", err
	}
	if err := s.file.Close(); err != nil {
		f.Close()
		return "", "", err
	}
	s.file = f
	return f.ID(), s.continueFileLocked(), nil
}
