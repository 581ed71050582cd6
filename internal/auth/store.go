// Package auth holds a pi user's credentials as pi 1.6 keeps them: the agent dir's auth.json
// (API keys, `!command` keys, per-credential environment, OAuth tokens with their
// provider-specific fields), the order in which a request's credential is chosen (--api-key,
// auth.json, models.json, the environment), OAuth refresh under the same file lock pi takes,
// and the sign-in flows of the providers pi signs in to.
//
// Secrets stay in this package and in the request that needs them: errors name files,
// providers and causes, never a key or a token.
package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Credential types in auth.json.
const (
	TypeAPIKey = "api_key"
	TypeOAuth  = "oauth"
)

// Credential is one provider's entry in auth.json. Fields is the entry as stored, keys in file
// order, so provider-specific fields (accountId, enterpriseUrl, availableModelIds, …) survive a
// rewrite.
type Credential struct {
	Type string
	// api_key: Key as written (a literal, "$VAR" / "${VAR}" template or "!command"); KeySet
	// tells an absent key from an empty one. Env overrides the process environment for this
	// provider.
	Key    string
	KeySet bool
	Env    map[string]string
	// oauth: the access and refresh tokens and the access token's expiry (Unix ms).
	Access, Refresh string
	Expires         int64

	Fields llm.Obj
}

// Get returns a provider-specific string field ("" when absent or not a string).
func (c *Credential) Get(name string) string {
	v, _ := c.Fields.Get(name)
	s, _ := v.(string)
	return s
}

// File is auth.json's content: provider ids to entries, in file order.
type File struct {
	obj llm.Obj
}

// Providers lists the provider ids with an entry, in file order.
func (f *File) Providers() []string {
	out := make([]string, 0, len(f.obj))
	for _, fl := range f.obj {
		out = append(out, fl.K)
	}
	return out
}

// Get returns provider's credential (nil when it has none).
func (f *File) Get(provider string) *Credential {
	v, ok := f.obj.Get(provider)
	if !ok {
		return nil
	}
	c, _ := credentialFrom(v)
	return c
}

// set stores c (its Fields, updated from the typed fields) under provider, keeping the entry's
// position; a new provider goes last, as pi's object spread puts it.
func (f *File) set(provider string, c *Credential) {
	f.obj = f.obj.Set(provider, c.toObj())
}

func (f *File) remove(provider string) bool {
	for i, fl := range f.obj {
		if fl.K == provider {
			f.obj = append(f.obj[:i:i], f.obj[i+1:]...)
			return true
		}
	}
	return false
}

// ParseError is an auth.json that is not what pi writes: its path and what is wrong.
type ParseError struct {
	Path string
	Msg  string
}

func (e *ParseError) Error() string { return e.Path + ": " + e.Msg }

// parse reads auth.json's bytes as pi does (a leading BOM is ignored) and checks every entry
// as pi's read-only reader does; an invalid entry is an error naming its provider.
func parse(path string, data []byte) (*File, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return &File{}, nil
	}
	v, err := llm.DecodeOrdered(data)
	if err != nil {
		return nil, &ParseError{path, "not valid JSON: " + jsonErrorText(data, err)}
	}
	obj, ok := v.(llm.Obj)
	if !ok {
		return nil, &ParseError{path, "expected an object of provider credentials"}
	}
	for _, fl := range obj {
		if _, err := credentialFrom(fl.V); err != nil {
			return nil, &ParseError{path, fmt.Sprintf("provider %q: %v", fl.K, err)}
		}
	}
	return &File{obj: obj}, nil
}

func jsonErrorText(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := 1, 1
		for _, c := range data[:min(int(se.Offset), len(data))] {
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Sprintf("%s (line %d, column %d)", se.Error(), line, col)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of the file"
	}
	return err.Error()
}

// credentialFrom checks one entry as pi's reader does: api_key with a string key (or none) and
// an env object of strings; oauth with string access and refresh tokens and a finite expiry.
func credentialFrom(v any) (*Credential, error) {
	o, ok := v.(llm.Obj)
	if !ok {
		return nil, errors.New("expected an object")
	}
	c := &Credential{Fields: o}
	t, _ := o.Get("type")
	c.Type, _ = t.(string)
	switch c.Type {
	case TypeAPIKey:
		if k, ok := o.Get("key"); ok && k != nil {
			s, isStr := k.(string)
			if !isStr {
				return nil, errors.New(`"key" must be a string`)
			}
			c.Key, c.KeySet = s, true
		}
		if e, ok := o.Get("env"); ok {
			eo, isObj := e.(llm.Obj)
			if !isObj {
				return nil, errors.New(`"env" must be an object of strings`)
			}
			c.Env = map[string]string{}
			for _, f := range eo {
				s, isStr := f.V.(string)
				if !isStr {
					return nil, fmt.Errorf(`"env.%s" must be a string`, f.K)
				}
				c.Env[f.K] = s
			}
		}
	case TypeOAuth:
		a, _ := o.Get("access")
		r, _ := o.Get("refresh")
		e, _ := o.Get("expires")
		var okA, okR bool
		c.Access, okA = a.(string)
		c.Refresh, okR = r.(string)
		exp, okE := number(e)
		if !okA || !okR || !okE {
			return nil, errors.New(`an oauth credential needs string "access" and "refresh" and a numeric "expires"`)
		}
		c.Expires = exp
	default:
		return nil, fmt.Errorf(`unknown credential type %q (expected "api_key" or "oauth")`, c.Type)
	}
	return c, nil
}

func number(v any) (int64, bool) {
	var f float64
	switch n := v.(type) {
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return 0, false
		}
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		f = n
	default:
		return 0, false
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return int64(f), true
}

// toObj writes the typed fields back into the entry, keeping its other fields and their order.
func (c *Credential) toObj() llm.Obj {
	o := append(llm.Obj(nil), c.Fields...)
	o = o.Set("type", c.Type)
	switch c.Type {
	case TypeAPIKey:
		if c.KeySet {
			o = o.Set("key", c.Key)
		}
		if c.Env != nil {
			env := llm.Obj{}
			for _, k := range sortedKeys(c.Env) {
				env = env.Set(k, c.Env[k])
			}
			o = o.Set("env", env)
		}
	case TypeOAuth:
		o = o.Set("refresh", c.Refresh).Set("access", c.Access).Set("expires", c.Expires)
	}
	return o
}

// encode is JSON.stringify(data, null, 2): two-space indent, JavaScript's string escapes.
func (f *File) encode() []byte {
	obj := f.obj
	if obj == nil {
		obj = llm.Obj{}
	}
	compact := llm.AppendJSON(nil, obj)
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return compact
	}
	return out.Bytes()
}

// Read reads auth.json without taking the lock (a missing file is an empty one). A file that
// cannot be read or is not what pi writes is an error naming it: never a silent "no key".
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &File{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPathError(err))
	}
	return parse(path, data)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Path is auth.json in agentDir.
func Path(agentDir string) string { return filepath.Join(agentDir, "auth.json") }

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}
