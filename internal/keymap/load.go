package keymap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// File is the keybindings file's name in the agent dir.
const File = "keybindings.json"

// Load reads <agentDir>/keybindings.json over pi's defaults. A missing file is the defaults; a
// file that is not JSON (with comments) is the defaults and one error; an unknown action, a
// value that is not a key or a list of keys, and a key pi would not accept are each reported
// (with their position) and skipped, as pi skips them. Two actions claiming the same key are a
// warning, as pi reports them.
func Load(agentDir string) (*Map, diag.List) {
	m := Default()
	if agentDir == "" {
		return m, nil
	}
	path := filepath.Join(agentDir, File)
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	var ds diag.List
	s := diag.NewSource(path, src)
	if err != nil {
		ds.Add(diag.FileSpan(s), diag.Error, "io", "", err.Error())
		return m, ds
	}
	root, pd := jsonc.ParseObject(s, "keybindings.json", " (keybindings ignored)")
	if root == nil {
		return m, append(ds, pd...)
	}
	claims := map[string][]Action{}
	for _, mem := range root.Members {
		if mem.Key == "$schema" {
			continue
		}
		a := Action(mem.Key)
		if la, ok := legacyName(mem.Key); ok {
			a = la
		}
		if !known(a) {
			ds.Add(diag.At(s, mem.KeyStart, mem.KeyEnd), diag.Warning, "unknown-field", mem.Key,
				fmt.Sprintf("unknown keybinding action %q (ignored)", mem.Key))
			continue
		}
		type entry struct {
			key  string
			span diag.Span
		}
		var keys []entry
		v := mem.Value
		switch v.Kind {
		case jsonc.String:
			keys = []entry{{v.Str, diag.At(s, v.Start, v.End)}}
		case jsonc.Array:
			for _, e := range v.Elems {
				if e.Kind != jsonc.String {
					ds.Add(diag.At(s, e.Start, e.End), diag.Warning, "schema", mem.Key, "a key must be a string (ignored)")
					continue
				}
				keys = append(keys, entry{e.Str, diag.At(s, e.Start, e.End)})
			}
		default:
			ds.Add(diag.At(s, v.Start, v.End), diag.Warning, "schema", mem.Key,
				fmt.Sprintf("%s must be a key or a list of keys, not %s (ignored)", mem.Key, v.Kind))
			continue
		}
		good := []string{}
		for _, k := range keys {
			n, ok := Name(k.key)
			if !ok {
				ds.Add(k.span, diag.Warning, "bad-key", mem.Key, fmt.Sprintf("%q is not a key pi accepts (ignored)", k.key))
				continue
			}
			good = append(good, k.key)
			claims[n] = append(claims[n], a)
		}
		m.set(a, good)
	}
	var dup []string
	for k, as := range claims {
		if len(as) > 1 {
			dup = append(dup, k)
		}
	}
	sort.Strings(dup)
	for _, k := range dup {
		ds.Add(diag.FileSpan(s), diag.Warning, "key-conflict", "",
			fmt.Sprintf("%q is bound to %d actions: %v", k, len(claims[k]), claims[k]))
	}
	return m, ds
}
