package toolrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"sync"
	"syscall"

	"github.com/pigo-agent/pigo/internal/safefile"
)

// MaxWholeFile is the ceiling of a whole-file read by the file tools: the old content of a
// write or an edit, codemode's fs.read, a file lsp-rename rewrites. A file over it is
// refused with a text that names the ceiling, never loaded.
const MaxWholeFile = 64 << 20

// ReadCheck is the read-before-write check a write runs (reference §1.4).
type ReadCheck int

// The checks.
const (
	// NoCheck: pi's write and edit, web_fetch's output_path.
	NoCheck ReadCheck = iota
	// Strict: claude-code Edit and Write, opencode edit, codemode fs.write, lsp-rename: an
	// existing file must have been read, be text and be unchanged since.
	Strict
	// Lenient: opencode write: an unread file may be written; a read one must be unchanged.
	Lenient
)

// FileWrite is one file write a tool asks the write path for.
type FileWrite struct {
	// Tool names the tool in the guard's texts ("Write", "edit", "fs.write").
	Tool string
	// Path is the absolute path as the model named it.
	Path string
	// Reads is the toolset whose read state is checked and recorded ("claude-code",
	// "opencode"); "" for none.
	Reads string
	Check ReadCheck
	// Update computes the complete new content from the file's bytes now (nil and false when
	// it does not exist). It runs under the file's lock after the read check; its error is
	// the tool's result and comes before any dialog.
	Update func(old []byte, exists bool) ([]byte, error)
	// ReadError, when set, turns an error resolving the path or reading the existing file
	// into the tool's text; nil from it goes on without the old content. A refusal (a FIFO,
	// a device, a file over [MaxWholeFile]) is never passed to it.
	ReadError func(err error) error
	// NoMkdir leaves missing parent directories missing (the write fails with ENOENT).
	NoMkdir bool
	// Diagnose asks the LSP hook for the diagnostics of the written file.
	Diagnose bool
}

// Written is a finished write.
type Written struct {
	// Path is the path as asked; Real is where the bytes went (links resolved).
	Path, Real string
	Old        []byte
	Existed    bool
	New        []byte
	// Reads is the `details.reads` entry of the recorded read (nil without FileWrite.Reads).
	Reads map[string]Snapshot
	// Diagnostics is the LSP block for the file ("" when clean, or not asked for).
	Diagnostics string
}

// WriteHook sees every write the write path makes, whatever tool makes it: /rewind keeps
// before-images through it, so no list of tool names is needed anywhere.
type WriteHook interface {
	// BeforeWrite runs once the guard allowed the write and before any byte is written
	// (w.New is the content about to be written); an error stops the write and is the
	// tool's result.
	BeforeWrite(ctx context.Context, w *Written) error
	// AfterWrite runs once the file holds w.New.
	AfterWrite(ctx context.Context, w *Written)
}

// AddWriteHook adds h to the hooks every write of the session runs.
func (s *Session) AddWriteHook(h WriteHook) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.hooks = append(s.hooks, h)
}

// RemoveWriteHook removes h (the chat replaces its rewind store on /new).
func (s *Session) RemoveWriteHook(h WriteHook) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	for i, x := range s.hooks {
		if x == h {
			s.hooks = append(s.hooks[:i:i], s.hooks[i+1:]...)
			return
		}
	}
}

func (s *Session) writeHooks() []WriteHook {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	return append([]WriteHook(nil), s.hooks...)
}

// PendingWrite is a write that has been resolved, read, checked, computed and allowed, and
// holds its file's lock until Commit or Release: lsp-rename prepares every file before it
// writes any, so a refusal leaves every file as it was.
type PendingWrite struct {
	s      *Session
	w      FileWrite
	t      *safefile.Target
	unlock func()
	out    Written
	done   bool
}

// WriteFile is the one write path (spec D27): every tool that writes a file calls it. Under
// the file's lock it
//  1. resolves the target from directory handles, component by component
//     ([safefile.Resolve]: a dangling link is judged by where it leads);
//  2. reads the existing file through the handle: regular files only, at most
//     [MaxWholeFile] bytes;
//  3. runs the read-before-write check with the reference texts;
//  4. computes the new content (FileWrite.Update);
//  5. runs the write guard on the resolved target: outside the workspace or on the
//     protected list, a person is asked (headless: refused);
//  6. runs the before hooks, writes atomically through the handle (missing directories
//     created, the mode kept), records the read, runs the after hooks and, when asked, the
//     LSP diagnostics.
func (s *Session) WriteFile(ctx context.Context, w FileWrite) (Written, error) {
	p, err := s.PrepareWrite(ctx, w)
	if err != nil {
		return Written{}, err
	}
	return p.Commit(ctx)
}

// PrepareWrite runs steps 1–5 of [Session.WriteFile] and keeps the file locked; the caller
// must Commit or Release the result.
func (s *Session) PrepareWrite(ctx context.Context, w FileWrite) (*PendingWrite, error) {
	t, unlock, err := s.resolveLocked(w.Path)
	if err != nil {
		if e := w.readError(err); e != nil {
			return nil, e
		}
		return nil, err
	}
	p := &PendingWrite{s: s, w: w, t: t, unlock: unlock}
	if err := p.prepare(ctx); err != nil {
		p.Release()
		return nil, err
	}
	return p, nil
}

// resolveLocked resolves path and takes the lock of its real path, resolving again under
// the lock until both agree (a writer holding the lock may have created what was missing).
func (s *Session) resolveLocked(path string) (*safefile.Target, func(), error) {
	for try := 0; ; try++ {
		t, err := safefile.Resolve(path)
		if err != nil {
			return nil, nil, err
		}
		unlock := s.queue.lock(t.Real)
		t2, err := safefile.Resolve(path)
		if err != nil {
			t.Close()
			unlock()
			return nil, nil, err
		}
		if t2.Real == t.Real || try >= 3 {
			t.Close()
			return t2, unlock, nil
		}
		t.Close()
		t2.Close()
		unlock()
	}
}

func (p *PendingWrite) prepare(ctx context.Context) error {
	s, w, t := p.s, p.w, p.t
	p.out = Written{Path: w.Path, Real: t.Real, Existed: t.Exists}
	if t.Exists {
		var old []byte
		err := error(&os.PathError{Op: "open", Path: t.Real, Err: syscall.EISDIR})
		if !t.Info.IsDir() {
			old, err = t.ReadExisting(MaxWholeFile)
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			p.out.Existed = false
		case err != nil:
			// A ReadError that returns nil lets the write go on without the old content
			// (pi's write never reads the file it replaces).
			if err := w.readError(err); err != nil {
				return err
			}
		default:
			p.out.Old = old
		}
	}
	if w.Reads != "" {
		reads := s.Reads(w.Reads)
		var err error
		switch w.Check {
		case Strict:
			err = reads.checkStrict(t.Real, w.Path, p.out.Old, p.out.Existed)
		case Lenient:
			err = reads.checkLenient(t.Real, p.out.Old, p.out.Existed)
		}
		if err != nil {
			return err
		}
	}
	newb, err := w.Update(p.out.Old, p.out.Existed)
	if err != nil {
		return err
	}
	p.out.New = newb
	if ctx.Err() != nil {
		return errors.New(TextAborted)
	}
	return s.guard(ctx, w.Tool, t, p.out.Old, p.out.Existed, newb)
}

// readError is FileWrite.ReadError of err; a refusal (a FIFO, a device, a file over the
// ceiling) keeps its own text.
func (w *FileWrite) readError(err error) error {
	var r *safefile.Refusal
	if errors.As(err, &r) || w.ReadError == nil {
		return err
	}
	return w.ReadError(err)
}

// Commit writes the prepared content and releases the lock.
func (p *PendingWrite) Commit(ctx context.Context) (Written, error) {
	return p.commit(ctx, nil)
}

// CommitStream writes what fill produces instead of the prepared content (web_fetch's
// output_path is guarded before the download, the dialog showing the path, and streams the
// body into the file); a failing fill leaves the file as it was. Written.New is nil after it.
func (p *PendingWrite) CommitStream(ctx context.Context, fill func(w io.Writer) error) (Written, error) {
	return p.commit(ctx, fill)
}

func (p *PendingWrite) commit(ctx context.Context, fill func(w io.Writer) error) (Written, error) {
	defer p.Release()
	s, t := p.s, p.t
	if fill != nil {
		p.out.New = nil
	}
	hooks := s.writeHooks()
	for _, h := range hooks {
		if err := h.BeforeWrite(ctx, &p.out); err != nil {
			return Written{}, err
		}
	}
	o := safefile.WriteOptions{Mkdir: !p.w.NoMkdir}
	var err error
	if fill != nil {
		err = t.WriteStream(fill, o)
	} else {
		err = t.Write(p.out.New, o)
	}
	if err != nil {
		return Written{}, err
	}
	if p.w.Reads != "" && fill == nil {
		p.out.Reads = s.Reads(p.w.Reads).record(t.Real, p.out.New, true)
	}
	for _, h := range hooks {
		h.AfterWrite(ctx, &p.out)
	}
	if p.w.Diagnose && s.LSP != nil {
		p.out.Diagnostics = s.LSP.Diagnostics(ctx, t.Real, p.out.New)
	}
	return p.out, nil
}

// Release gives up a prepared write that was not committed (idempotent).
func (p *PendingWrite) Release() {
	if p.done {
		return
	}
	p.done = true
	p.t.Close()
	p.unlock()
}

// Real is the resolved target of a prepared write.
func (p *PendingWrite) Real() string { return p.t.Real }

// PrepareAll prepares several writes, taking the locks in the order of their real paths (two
// renames over the same files cannot deadlock); on the first error every prepared one is
// released.
func (s *Session) PrepareAll(ctx context.Context, ws []FileWrite) ([]*PendingWrite, error) {
	order := make([]int, len(ws))
	for i := range order {
		order[i] = i
	}
	keys := make([]string, len(ws))
	for i, w := range ws {
		keys[i] = ReadKey(w.Path) // the locks are taken on real paths
	}
	sort.SliceStable(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	for i := 1; i < len(order); i++ {
		if keys[order[i]] == keys[order[i-1]] { // one lock taken twice would never be released
			return nil, fmt.Errorf("%s and %s are the same file", ws[order[i-1]].Path, ws[order[i]].Path)
		}
	}
	out := make([]*PendingWrite, len(ws))
	for _, i := range order {
		p, err := s.PrepareWrite(ctx, ws[i])
		if err != nil {
			for _, q := range out {
				if q != nil {
					q.Release()
				}
			}
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// TextAborted is the text of a call aborted while it ran.
const TextAborted = "Operation aborted"

// hooksState is the write hooks of a session.
type hooksState struct {
	hooksMu sync.Mutex
	hooks   []WriteHook
}
