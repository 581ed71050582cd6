package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/validate"
	"github.com/pigo-agent/pigo/schema"
)

// The schema check of a file is a pure function of the schema, the file's kind, name and bytes.
// Commands that start a session (tools, explain, sandbox, lsp, agents, tui) reuse earlier results
// from a small content-addressed cache instead of evaluating CUE again; `pigo check` never uses
// it and always validates fully.

// cacheVersion changes whenever the checker's wording or rules change without a schema
// change, so that results cached by an older pigo are not shown by a newer one.
const cacheVersion = "2"

var (
	schemaHashOnce sync.Once
	schemaHash     string
)

func schemaFingerprint() string {
	schemaHashOnce.Do(func() {
		h := sha256.New()
		h.Write([]byte(cacheVersion))
		for _, name := range schema.Files() {
			b, _ := fs.ReadFile(schema.FS, name)
			h.Write([]byte(name))
			h.Write(b)
		}
		schemaHash = hex.EncodeToString(h.Sum(nil))
	})
	return schemaHash
}

type cachedDiag struct {
	Start, End int
	Severity   diag.Severity
	Code       string
	Message    string
	Path       string `json:",omitempty"`
	Hint       string `json:",omitempty"`
}

// cacheDir returns the directory of the validation cache, or "" when caching is off.
func (c *Config) cacheDir() string {
	if !c.Opts.Cache {
		return ""
	}
	if d := c.Opts.getenv("PIGO_CACHE_DIR"); d != "" {
		return d
	}
	base := c.Opts.getenv("XDG_CACHE_HOME")
	if base == "" {
		base = filepath.Join(c.Home, ".cache")
	}
	return filepath.Join(base, "pigo", "check")
}

// schemaCheck runs the schema walker on a file, or returns its cached result.
func (c *Config) schemaCheck(f *File, root *jsonc.Node, def string, opt validate.Options) diag.List {
	dir := c.cacheDir()
	var key string
	if dir != "" {
		h := sha256.New()
		for _, part := range []string{schemaFingerprint(), def, string(rune('0' + opt.Mode)), strings.Join(opt.Skip, ","), f.Path} {
			h.Write([]byte(part))
			h.Write([]byte{0})
		}
		h.Write(f.Src.Text)
		key = hex.EncodeToString(h.Sum(nil))
		if b, err := os.ReadFile(filepath.Join(dir, key[:2], key)); err == nil {
			var cd []cachedDiag
			if json.Unmarshal(b, &cd) == nil {
				out := make(diag.List, 0, len(cd))
				for _, d := range cd {
					out = append(out, diag.Diagnostic{Span: diag.At(f.Src, d.Start, d.End), Severity: d.Severity, Code: d.Code,
						Message: d.Message, Path: d.Path, Hint: d.Hint})
					if d.Start < 0 {
						out[len(out)-1].Span = diag.FileSpan(f.Src)
					}
				}
				return out
			}
		}
	}
	s, err := validate.Load()
	if err != nil {
		var l diag.List
		l.Add(diag.FileSpan(f.Src), diag.Error, "internal", "", err.Error())
		return l
	}
	out := s.Check(f.Src, root, def, opt)
	if dir != "" {
		cd := make([]cachedDiag, 0, len(out))
		for _, d := range out {
			start, end := d.Start, d.End
			if !d.HasPos() {
				start, end = -1, -1
			}
			cd = append(cd, cachedDiag{start, end, d.Severity, d.Code, d.Message, d.Path, d.Hint})
		}
		if b, err := json.Marshal(cd); err == nil {
			sub := filepath.Join(dir, key[:2])
			if os.MkdirAll(sub, 0o755) == nil {
				// Best effort: a cache that cannot be written only costs time.
				tmp, err := os.CreateTemp(sub, ".tmp-*")
				if err == nil {
					_, werr := tmp.Write(b)
					cerr := tmp.Close()
					if werr == nil && cerr == nil {
						_ = os.Rename(tmp.Name(), filepath.Join(sub, key))
					} else {
						_ = os.Remove(tmp.Name())
					}
				}
			}
		}
	}
	return slices.Clip(out)
}
