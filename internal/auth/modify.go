package auth

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Store is auth.json of one agent dir. Reads take no lock; every change is a locked
// read-modify-write of the whole file, so two processes (pigo or pi) changing different
// providers, or refreshing the same one, lose nothing.
type Store struct {
	Path string
}

// NewStore is the store of agentDir's auth.json.
func NewStore(agentDir string) *Store { return &Store{Path: Path(agentDir)} }

// Load reads the file (a missing file is empty).
func (s *Store) Load() (*File, error) { return Read(s.Path) }

// ensure creates the agent dir (0700) and an empty auth.json (0600) when they are missing, as
// pi does before it locks the file.
func (s *Store) ensure() error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(s.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString("{}"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Modify runs fn on provider's credential as it is in the file after the lock is taken (nil
// when there is none). When fn returns a credential it is stored before the lock is released;
// nil leaves the file as it is. It returns the credential after the operation.
func (s *Store) Modify(ctx context.Context, provider string, fn func(cur *Credential) (*Credential, error)) (*Credential, error) {
	var out *Credential
	err := s.update(ctx, func(f *File) (bool, error) {
		cur := f.Get(provider)
		next, err := fn(cur)
		if err != nil {
			return false, err
		}
		if next == nil {
			out = cur
			return false, nil
		}
		f.set(provider, next)
		out = f.Get(provider)
		return true, nil
	})
	return out, err
}

// Delete removes provider's credential; it reports whether there was one.
func (s *Store) Delete(ctx context.Context, provider string) (bool, error) {
	removed := false
	err := s.update(ctx, func(f *File) (bool, error) {
		removed = f.remove(provider)
		return removed, nil
	})
	return removed, err
}

// update is the locked read-modify-write.
func (s *Store) update(ctx context.Context, fn func(*File) (bool, error)) error {
	if err := s.ensure(); err != nil {
		return fmt.Errorf("cannot create %s: %w", s.Path, unwrapPathError(err))
	}
	l, err := acquire(ctx, s.Path)
	if err != nil {
		return fmt.Errorf("cannot lock %s: %w", s.Path, unwrapPathError(err))
	}
	defer l.release()
	f, err := Read(s.Path)
	if err != nil {
		return err
	}
	changed, err := fn(f)
	if err != nil || !changed {
		return err
	}
	if err := writeAtomic(s.Path, f.encode()); err != nil {
		return fmt.Errorf("cannot write %s: %w", s.Path, unwrapPathError(err))
	}
	return nil
}

// writeAtomic replaces the file behind path (through a symlink, as pi writes through it) with
// data: a temporary file in the same directory with the old file's mode (0600 when new),
// synced, then renamed over it, so a crash never leaves a half-written auth.json.
func writeAtomic(path string, data []byte) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		real = path
	}
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(real); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(real), ".auth.json.tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, real); err != nil {
		return err
	}
	ok = true
	return nil
}
