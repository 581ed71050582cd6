package config

import (
	"fmt"
	"io"
)

// Refusal is a command's answer when it cannot do what was asked (`pigo config get` of a key or
// a file that is not there, `pigo mcp remove` of a server no file defines): it fails (exit 1) with its text.
type Refusal struct{ Msg string }

func (e *Refusal) Error() string { return e.Msg }

// GetValue is `pigo config get FILE [KEY]`: the JSON value at key (path, parsed) of file k —
// in the one layer s when s is set, else in the effective configuration, whose left-out layers
// are noted on notes, one line each after prefix. A missing file, key or a layer that cannot be
// read is a *Refusal; reading the effective configuration fails otherwise.
func (c *Config) GetValue(k Kind, s *Scope, key string, path []PathStep, notes io.Writer, prefix string) ([]byte, error) {
	if s != nil {
		v, found, err := c.Get(k, *s, key)
		switch {
		case err != nil:
			return nil, &Refusal{err.Error()}
		case found:
			return v, nil
		case c.Layer(k, *s) == nil:
			return nil, &Refusal{fmt.Sprintf("%s: the %s file does not exist (%s)", k, *s, c.Path(k, *s))}
		}
		return nil, &Refusal{fmt.Sprintf("%s: %s is not set in %s", k, key, c.Layer(k, *s).Path)}
	}
	e, err := c.Effective(k)
	if err != nil {
		return nil, err
	}
	for _, ig := range e.Ignored {
		fmt.Fprintf(notes, "%snote: %s is not applied: %s\n", prefix, ig.File.Path, ig.Reason)
	}
	if len(path) == 0 {
		return e.JSON(), nil
	}
	if v := e.Lookup(path); v != nil {
		return v.JSON(), nil
	}
	return nil, &Refusal{fmt.Sprintf("%s: %s is not set in the effective configuration", k, key)}
}
