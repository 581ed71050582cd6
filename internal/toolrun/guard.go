package toolrun

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// previewLines caps the diff preview of the write dialog.
const previewLines = 100

// Inside reports whether path may be written without asking as far as the workspace goes:
// inside the workspace or /tmp, decided on the real path a write would land on (links
// resolved, a dangling one followed to where it leads), so a symlink inside the workspace
// that points outside is outside. This is a deliberate tightening of the seed, which
// compares the paths as written. The protected list is checked apart ([Session.Protected]).
func (s *Session) Inside(path string) bool { return s.insideReal(ReadKey(path)) }

func (s *Session) insideReal(real string) bool {
	for _, root := range []string{s.Cwd, "/tmp"} {
		if root == "" {
			continue
		}
		if within(ReadKey(root), real) {
			return true
		}
	}
	return false
}

// Protected says why path (resolved as a write would resolve it) is on the protected list
// ([sandbox.WriteProtected]: the workspace's .pi, .agent and .git, the agent dir,
// trust.json), "" when it is not.
func (s *Session) Protected(path string) string {
	return sandbox.WriteProtected(ReadKey(path), s.Cwd, s.AgentDir)
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// guard is the write guard (reference §1.5) on a resolved target: nil when the write may go
// ahead. Inside the workspace and off the protected list it never asks; both are decided on
// the real target. Otherwise it refuses when requests are denied, else it asks the session's
// approvals (package approve) with the diff preview and the real target — nobody to answer is
// a refusal with the reference text and the path as the model named it; after "Approve once"
// the file must still hold old.
func (s *Session) guard(ctx context.Context, tool string, t *safefile.Target, old []byte, exists bool, newb []byte) error {
	real := t.Real
	inside := s.insideReal(real)
	why := sandbox.WriteProtected(real, s.Cwd, s.AgentDir)
	if inside && why == "" {
		return nil
	}
	deny := "user deny " + tool + ": "
	if s.DenyingRequests() {
		return &Refusal{Text: deny + "blocked", Kind: RefusedPolicy}
	}
	if runtime.GOOS == "windows" && !inside {
		return &Refusal{Text: `Path "` + t.Path + `" is outside workspace. Writes outside the workspace are not allowed on Windows.`, Kind: RefusedPolicy}
	}
	preview := Preview(filepath.Base(real), old, newb)
	head := "Model requests write access outside workspace:"
	noUI := `Path "` + t.Path + `" is outside workspace. No UI available for approval.`
	if inside {
		head = "Model requests write access to a protected path:"
		noUI = `Path "` + t.Path + `" is protected (` + why + `). No UI available for approval.`
	}
	lines := "\n\n  Tool:  " + tool + "\n  Path:  " + t.Path
	if t.Path != real {
		lines += "\n  Target: " + real + " (where a symbolic link leads)"
	}
	if why != "" {
		lines += "\n  Why:   protected: " + why
	}
	title := head + lines + "\n\n" + preview + "\n\nAllow?"
	d, err := s.ApproverFor(ctx).Ask(ctx, approve.Request{Kind: approve.KindWrite, Tool: tool, Path: real, Asked: t.Path, Protected: why,
		Preview: preview, Title: title, NoUI: noUI})
	if err != nil {
		var no *approve.Refusal
		if errors.As(err, &no) { // nobody can be asked (headless, or inside a codemode script)
			return &Refusal{Text: no.Text, Kind: RefusedHeadless}
		}
		if ctx.Err() == nil {
			return err
		}
		d = approve.Decision{Choice: approve.Dismissed} // the turn was aborted while the dialog was open
	}
	switch d.Choice {
	case approve.Allow, approve.AllowSession:
		now, err := t.ReadExisting(MaxWholeFile) // a missing file counts as empty
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if Digest(now) != Digest(old) {
			return errors.New(TextModified)
		}
		return nil
	case approve.Deny:
		return &Refusal{Text: deny + "blocked", Kind: RefusedUser}
	case approve.DenyReason:
		if strings.TrimSpace(d.Reason) == "" {
			return &Refusal{Text: deny + "blocked", Kind: RefusedUser}
		}
		return &Refusal{Text: deny + d.Reason, Kind: RefusedUser}
	}
	if s.Abort != nil {
		s.Abort()
	}
	return &Refusal{Text: deny + "cancelled", Kind: RefusedUser}
}

// Preview is the write dialog's diff block: a unified diff of the LF-normalised contents
// with 2 context lines, cut at 100 lines, in a ```diff fence longer than any backtick run
// inside it.
func Preview(name string, old, new []byte) string {
	lf := func(b []byte) string {
		return string(bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n")))
	}
	a, b := lf(old), lf(new)
	diff, err := udiff.ToUnified(name, name, a, udiff.Lines(a, b), 2)
	if err != nil {
		diff = err.Error()
	}
	diff = strings.TrimSuffix(diff, "\n")
	lines := strings.Split(diff, "\n")
	if len(lines) > previewLines {
		diff = strings.Join(lines[:previewLines], "\n") + "\n… (preview truncated to 100 lines)"
	}
	fence := "```"
	for run := longestRun(diff, '`'); len(fence) <= run; {
		fence += "`"
	}
	return fence + "diff\n" + diff + "\n" + fence
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
