package aft

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// Config is the part of the user-level aft.jsonc pigo reads.
type Config struct {
	// Path is the file read; "" when there is none.
	Path string
	// Doc is the file's text, passed on to aft as its user-tier configuration.
	Doc string
	// Enabled is the master switch (default true).
	Enabled bool
	// SemanticSearch is `semantic_search` (default false).
	SemanticSearch bool
	// Backend and BaseURL are `semantic.backend` and `semantic.base_url` (trailing "/" removed).
	Backend, BaseURL string
	// Problem says why the file was not used (unreadable, not JSONC, wrong types): the
	// defaults apply, and the session start warns with it.
	Problem string
}

// ConfigPath is where the user-level aft.jsonc is read: $XDG_CONFIG_HOME/cortexkit/aft.jsonc
// (else ~/.config/cortexkit/aft.jsonc), or, when that file does not exist, the older pi
// location <agent dir>/aft.jsonc. The second result is false when neither exists.
func ConfigPath(e Env) (string, bool) {
	base := e.getenv("XDG_CONFIG_HOME")
	if base == "" {
		base = filepath.Join(e.home(), ".config")
	}
	p := filepath.Join(base, "cortexkit", "aft.jsonc")
	if _, err := os.Stat(p); err == nil {
		return p, true
	}
	if e.AgentDir != "" {
		legacy := filepath.Join(e.AgentDir, "aft.jsonc")
		if _, err := os.Stat(legacy); err == nil {
			return legacy, true
		}
	}
	return p, false
}

// maxConfig bounds the file read: a real aft.jsonc is a few KB.
const maxConfig = 1 << 20

// LoadConfig reads the user-level aft.jsonc. A missing file is the defaults; a broken one is
// the defaults plus Problem.
func LoadConfig(e Env) Config {
	c := Config{Enabled: true}
	p, ok := ConfigPath(e)
	if !ok {
		return c
	}
	c.Path = p
	src, err := readSmall(p)
	if err != nil {
		c.Problem = fmt.Sprintf("%s: %v; using the defaults", p, err)
		return c
	}
	root, err := jsonc.Parse(src)
	if err != nil {
		c.Problem = fmt.Sprintf("%s: %v; using the defaults", p, err)
		return c
	}
	if root.Kind != jsonc.Object {
		c.Problem = fmt.Sprintf("%s: expected an object; using the defaults", p)
		return c
	}
	c.Doc = string(src)
	bad := func(key, want string) Config {
		return Config{Enabled: true, Path: p, Problem: fmt.Sprintf("%s: %s must be %s; using the defaults", p, key, want)}
	}
	if v := root.Get("enabled"); v != nil {
		if v.Kind != jsonc.Bool {
			return bad("enabled", "a boolean")
		}
		c.Enabled = v.Bool
	}
	if v := root.Get("semantic_search"); v != nil {
		if v.Kind != jsonc.Bool {
			return bad("semantic_search", "a boolean")
		}
		c.SemanticSearch = v.Bool
	}
	if s := root.Get("semantic"); s != nil {
		if s.Kind != jsonc.Object {
			return bad("semantic", "an object")
		}
		for key, dst := range map[string]*string{"backend": &c.Backend, "base_url": &c.BaseURL} {
			if v := s.Get(key); v != nil {
				if v.Kind != jsonc.String {
					return bad("semantic."+key, "a string")
				}
				*dst = v.Str
			}
		}
		c.BaseURL = strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")
	}
	return c
}

func readSmall(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("not a regular file")}
	}
	if fi.Size() > maxConfig {
		return nil, fmt.Errorf("larger than %d bytes", maxConfig)
	}
	return os.ReadFile(p)
}

// SearchReady reports whether aft_search may be registered: semantic_search is on and an
// external embedding backend is configured (semantic.backend "openai_compatible" or "ollama"
// with a base_url). aft's default local ONNX backend (fastembed) is not used. When
// semantic_search is on but the backend is not ready, why says what is missing (the
// session-start warning); when semantic_search is off, why is "".
func (c Config) SearchReady() (ok bool, why string) {
	if !c.Enabled || !c.SemanticSearch {
		return false, ""
	}
	switch c.Backend {
	case "openai_compatible", "ollama":
	case "", "fastembed":
		return false, fmt.Sprintf("%s turns semantic_search on but semantic.backend is %q: aft's local ONNX backend is not used; set semantic.backend to \"openai_compatible\" or \"ollama\" and semantic.base_url", c.Path, orDefault(c.Backend, "fastembed"))
	default:
		return false, fmt.Sprintf("%s: semantic.backend %q is not one of \"openai_compatible\", \"ollama\"", c.Path, c.Backend)
	}
	if c.BaseURL == "" {
		return false, fmt.Sprintf("%s turns semantic_search on with semantic.backend %q but sets no semantic.base_url", c.Path, c.Backend)
	}
	return true, ""
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
