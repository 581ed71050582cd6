package toolrun

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/pigo-agent/pigo/internal/approve"
)

// previewLines caps the diff preview of the write dialog.
const previewLines = 100

// Write is one write a tool is about to make: the file's bytes now (Old, nil with !Exists)
// and the complete new content, computed and read-checked before the guard runs.
type Write struct {
	Tool   string
	Path   string // absolute
	Old    []byte
	Exists bool
	New    []byte
}

// Inside reports whether path may be written without asking: inside the workspace or /tmp,
// decided on realpaths (the deepest existing ancestor's), so a symlink inside the workspace
// that points outside is outside. This is a deliberate tightening of the seed, which
// compares the paths as written.
func (s *Session) Inside(path string) bool {
	key := ReadKey(path)
	for _, root := range []string{s.Cwd, "/tmp"} {
		if root == "" {
			continue
		}
		if within(ReadKey(root), key) {
			return true
		}
	}
	return false
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// GuardWrite is the write guard (reference §1.5): nil when w may go ahead. Outside the
// workspace it refuses when requests are denied, else it asks the session's Approver with the
// diff preview (a headless one refuses with the reference text); after "Approve once" the disk must still hold w.Old.
func (s *Session) GuardWrite(ctx context.Context, w Write) error {
	if s.Inside(w.Path) {
		return nil
	}
	deny := "user deny " + w.Tool + ": "
	if s.DenyRequests {
		return errors.New(deny + "blocked")
	}
	if runtime.GOOS == "windows" {
		return errors.New(`Path "` + w.Path + `" is outside workspace. Writes outside the workspace are not allowed on Windows.`)
	}
	preview := Preview(filepath.Base(w.Path), w.Old, w.New)
	title := "Model requests write access outside workspace:\n\n  Tool:  " + w.Tool + "\n  Path:  " + w.Path + "\n\n" + preview + "\n\nAllow?"
	d, err := s.ApproverFor(ctx).Ask(ctx, approve.Request{Kind: approve.KindWrite, Tool: w.Tool, Path: w.Path, Preview: preview, Title: title,
		NoUI: `Path "` + w.Path + `" is outside workspace. No UI available for approval.`})
	if err != nil {
		if ctx.Err() == nil {
			return err
		}
		d = approve.Decision{Choice: approve.Dismissed} // the turn was aborted while the dialog was open
	}
	switch d.Choice {
	case approve.Allow, approve.AllowSession:
		now, _, err := ReadFile(w.Path) // a missing file counts as empty
		if err != nil {
			return err
		}
		if Digest(now) != Digest(w.Old) {
			return errors.New(TextModified)
		}
		return nil
	case approve.Deny:
		return errors.New(deny + "blocked")
	case approve.DenyReason:
		if strings.TrimSpace(d.Reason) == "" {
			return errors.New(deny + "blocked")
		}
		return errors.New(deny + d.Reason)
	}
	if s.Abort != nil {
		s.Abort()
	}
	return errors.New(deny + "cancelled")
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
