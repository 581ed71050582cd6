package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Cache keeps each server's last tool list on disk, so `pigo tools` and `pigo explain` answer
// without starting servers. A list is stored per server name and defining file, with the key of
// the entry it was taken from: when the entry changes, the list is still shown but marked stale
// until the server connects again. No secret is stored: the key is a hash.
type Cache struct {
	// Dir is the cache directory ("" disables the cache).
	Dir string
}

// CacheDir returns the schema cache's directory: $PIGO_CACHE_DIR/mcp, else
// $XDG_CACHE_HOME/pigo/mcp, else ~/.cache/pigo/mcp.
func CacheDir(getenv func(string) string, home string) string {
	if d := getenv("PIGO_CACHE_DIR"); d != "" {
		return filepath.Join(d, "mcp")
	}
	base := getenv("XDG_CACHE_HOME")
	if base == "" {
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "pigo", "mcp")
}

// path is the file of a server defined in file source.
func (c Cache) path(s *Server) string {
	sum := sha256.Sum256([]byte(s.Source.File + "\x00" + s.Name))
	return filepath.Join(c.Dir, s.Name+"-"+hex.EncodeToString(sum[:6])+".json")
}

// Load returns the cached list of s; stale is true when it was taken from another version of
// the entry. ok is false when nothing is cached.
func (c Cache) Load(s *Server) (list *ToolList, stale, ok bool) {
	if c.Dir == "" {
		return nil, false, false
	}
	b, err := os.ReadFile(c.path(s))
	if err != nil {
		return nil, false, false
	}
	var l ToolList
	if json.Unmarshal(b, &l) != nil || l.Server != s.Name {
		return nil, false, false
	}
	return &l, l.Key != s.Key(), true
}

// Save stores the list of s (written to a temporary file and renamed, so a concurrent reader
// never sees half a file). Errors are returned for the caller to ignore: the cache is an
// optimisation.
func (c Cache) Save(s *Server, l *ToolList) error {
	if c.Dir == "" {
		return nil
	}
	l.Key, l.Server = s.Key(), s.Name
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return err
	}
	p := c.path(s)
	f, err := os.CreateTemp(c.Dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), p)
}

// Forget removes the cached list of s.
func (c Cache) Forget(s *Server) error {
	if c.Dir == "" {
		return nil
	}
	if err := os.Remove(c.path(s)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
