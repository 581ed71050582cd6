// Package rewind keeps the before-images of the files an agent session changes, so the
// chat's /rewind can put them back as they were when a prompt was sent. It sees every write
// through the one write path's hooks ([toolrun.WriteHook]): whatever tool writes a file
// (pi's write and edit, claude-code's Write and Edit, opencode's, lsp-rename, codemode's
// fs.write, web_fetch's output_path), the store records it, without a list of tool names.
// It is storage, not UI: the chat shows its plan and calls Apply.
package rewind

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Store keeps the before-images of the files the agent changes, per checkpoint (the session
// leaf a prompt was sent from), so /rewind can put the files back as they were when that
// prompt was sent. It is not git: only files the session's own tools wrote are touched, a
// file changed by anything else since the agent's last write is refused, and other sessions'
// work is never reverted. With a directory the images live beside the session file (blobs
// by sha256 plus a manifest line per change); without one they stay in memory. Files are
// recorded by their real path (the one write path resolves links), so restoring one never
// writes through a link.
type Store struct {
	dir string

	mu      sync.Mutex
	current string
	seq     int
	recs    []change
	blobs   map[string][]byte
	// Points are the prompts sent in this chat, oldest first.
	points []Point
}

// Point is one place /rewind can go back to: the session leaf before a prompt was sent.
type Point struct {
	Leaf string `json:"leaf"`
	Text string `json:"text"`
	Seq  int    `json:"seq"`
}

// change is one file's first change after a checkpoint: what it held before (Existed,
// Before) and the digest of what the agent last wrote (After, "" for a deletion).
type change struct {
	Seq     int    `json:"seq"`
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	Before  string `json:"before"`
	After   string `json:"after"`
}

// New returns a store; dir "" keeps it in memory. A directory's manifest from an earlier
// chat on the same session is read back, so a continued session can still rewind; an
// unreadable manifest starts empty (the images stay on disk untouched).
func New(dir string) *Store {
	r := &Store{dir: dir, blobs: map[string][]byte{}}
	if dir == "" {
		return r
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return r
	}
	var m struct {
		Points  []Point  `json:"points"`
		Changes []change `json:"changes"`
	}
	if json.Unmarshal(b, &m) != nil {
		return r
	}
	r.points, r.recs = m.Points, m.Changes
	for _, p := range m.Points {
		r.seq = max(r.seq, p.Seq)
	}
	return r
}

// Switch makes the store the one of another session's sidecar directory (after /new, /fork
// or /resume): the points of the session left behind name entries the new one lacks.
func (r *Store) Switch(dir string) {
	n := New(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dir, r.current, r.seq, r.recs, r.blobs, r.points = n.dir, "", n.seq, n.recs, n.blobs, n.points
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Begin starts a checkpoint: the prompt text is about to be sent from leaf.
func (r *Store) Begin(leaf, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	r.current = leaf
	r.points = append(r.points, Point{Leaf: leaf, Text: text, Seq: r.seq})
}

// Points returns the checkpoints, newest first.
func (r *Store) Points() []Point {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Point, len(r.points))
	for i, p := range r.points {
		out[len(r.points)-1-i] = p
	}
	return out
}

// Before records a file's content before a tool changes it (once per checkpoint), reading
// it from disk.
func (r *Store) Before(path string) error {
	b, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return r.before(path, b, existed)
}

func (r *Store) before(path string, b []byte, existed bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.recs {
		if c.Seq == r.seq && c.Path == path {
			return nil
		}
	}
	c := change{Seq: r.seq, Path: path, Existed: existed}
	if existed {
		c.Before = digest(b)
		if err := r.putBlob(c.Before, b); err != nil {
			return err
		}
	}
	c.After = c.Before
	r.recs = append(r.recs, c)
	return r.saveLocked()
}

// After records what the tool left in the file, so a later change by anything else shows.
func (r *Store) After(path string) {
	b, err := os.ReadFile(path)
	d := ""
	if err == nil {
		d = digest(b)
	}
	r.after(path, d)
}

func (r *Store) after(path, d string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.recs {
		if r.recs[i].Path == path {
			r.recs[i].After = d
		}
	}
	_ = r.saveLocked()
}

// BeforeWrite is the write path's hook: the file's content before the write (the write
// path read it already), recorded once per checkpoint. A file whose old content the write
// path could not read is read here; if that fails the write is refused, since it could not
// be undone.
func (r *Store) BeforeWrite(_ context.Context, w *toolrun.Written) error {
	old := w.Old
	if w.Existed && old == nil {
		b, err := os.ReadFile(w.Real)
		if err != nil {
			return fmt.Errorf("rewind: cannot keep the before-image of %s: %v", w.Real, err)
		}
		old = b
	}
	if err := r.before(w.Real, old, w.Existed); err != nil {
		return fmt.Errorf("rewind: cannot keep the before-image of %s: %v", w.Real, err)
	}
	return nil
}

// AfterWrite is the write path's hook: what the write left in the file.
func (r *Store) AfterWrite(_ context.Context, w *toolrun.Written) {
	if w.New == nil { // streamed (web_fetch's output_path): read what landed
		r.After(w.Real)
		return
	}
	r.after(w.Real, digest(w.New))
}

func (r *Store) putBlob(sum string, b []byte) error {
	if r.dir == "" {
		r.blobs[sum] = b
		return nil
	}
	p := filepath.Join(r.dir, "blobs", sum)
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o600)
}

func (r *Store) blob(sum string) ([]byte, error) {
	if r.dir == "" {
		b, ok := r.blobs[sum]
		if !ok {
			return nil, fmt.Errorf("before-image %s is missing", sum[:12])
		}
		return b, nil
	}
	return os.ReadFile(filepath.Join(r.dir, "blobs", sum))
}

func (r *Store) saveLocked() error {
	if r.dir == "" {
		return nil
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(struct {
		Points  []Point  `json:"points"`
		Changes []change `json:"changes"`
	}{r.points, r.recs})
	if err != nil {
		return err
	}
	tmp := filepath.Join(r.dir, "manifest.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(r.dir, "manifest.json"))
}

// Restore is one file /rewind would put back.
type Restore struct {
	Path string
	// Delete is true when the file did not exist at the checkpoint.
	Delete bool
	// Refused says why the file is left alone ("" when it will be restored).
	Refused string
	before  string
}

// Plan lists what rewinding to point p does to the files: each file the agent changed since,
// back to its content at p, refused when something else changed it after the agent's last
// write.
func (r *Store) Plan(p Point) []Restore {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := map[string]change{}
	last := map[string]string{}
	for _, c := range r.recs {
		if c.Seq < p.Seq {
			continue
		}
		if _, ok := first[c.Path]; !ok {
			first[c.Path] = c
		}
		last[c.Path] = c.After
	}
	var out []Restore
	for path, c := range first {
		rs := Restore{Path: path, Delete: !c.Existed, before: c.Before}
		now, err := os.ReadFile(path)
		cur := ""
		if err == nil {
			cur = digest(now)
		} else if !errors.Is(err, os.ErrNotExist) {
			rs.Refused = err.Error()
		}
		if rs.Refused == "" && cur != last[path] {
			rs.Refused = "changed outside this session since"
		}
		if rs.Refused == "" && cur == c.Before && c.Existed {
			continue // already as it was
		}
		out = append(out, rs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Apply restores the plan's files that are not refused, and forgets the checkpoints from p on.
func (r *Store) Apply(p Point, plan []Restore) error {
	var errs []error
	for _, rs := range plan {
		if rs.Refused != "" {
			continue
		}
		if rs.Delete {
			if err := os.Remove(rs.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		b, err := r.blob(rs.before)
		if err == nil {
			if fi, lerr := os.Lstat(rs.Path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
				err = fmt.Errorf("%s was replaced by a symbolic link since; not restored", rs.Path)
			} else {
				err = os.WriteFile(rs.Path, b, 0o644)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	keep := r.recs[:0]
	for _, c := range r.recs {
		if c.Seq < p.Seq {
			keep = append(keep, c)
		}
	}
	r.recs = keep
	pts := r.points[:0]
	for _, q := range r.points {
		if q.Seq < p.Seq {
			pts = append(pts, q)
		}
	}
	r.points = pts
	errs = append(errs, r.saveLocked())
	return errors.Join(errs...)
}
