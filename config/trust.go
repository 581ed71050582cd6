package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/jsonedit"
)

// decideTrust applies D5: --approve/--no-approve, else the nearest trust.json entry walking up
// from the project dir, else the global defaultProjectTrust (always/never/ask; ask without a
// person to answer means untrusted). Project files stay loaded either way; an untrusted overlay is
// marked not applied and one untrusted-project notice says so.
func (c *Config) decideTrust() {
	if !c.HasProject {
		c.Trusted, c.TrustReason = true, "no project overlay"
		return
	}
	switch {
	case c.Opts.Approve != nil && *c.Opts.Approve:
		c.Trusted, c.TrustReason = true, "--approve"
	case c.Opts.Approve != nil:
		c.Trusted, c.TrustReason = false, "--no-approve"
	default:
		if t, where, ok := c.trustEntry(); ok {
			c.Trusted, c.TrustReason = t, "trust.json entry for "+where
		} else {
			switch c.defaultProjectTrust() {
			case "always":
				c.Trusted, c.TrustReason = true, `defaultProjectTrust is "always"`
			case "never":
				c.Trusted, c.TrustReason = false, `defaultProjectTrust is "never"`
			default:
				c.Trusted, c.TrustReason = false, `defaultProjectTrust is "ask" and no one can answer here`
				if c.Opts.AskTrust != nil {
					c.askTrust()
				}
			}
		}
	}
	if c.Trusted {
		return
	}
	for _, f := range c.Files {
		if f.Scope == Project {
			f.Applied = false
		}
	}
	src := diag.NewSource(c.ProjectOverlay()+string(filepath.Separator), nil)
	c.Diags.Add(diag.FileSpan(src), diag.Info, "untrusted-project", "",
		fmt.Sprintf("the project overlay is not applied: the project is not trusted (%s); trust it with `pigo trust` (or --approve for one run)", c.TrustReason))
}

// trustEntry finds the nearest trust.json decision for the project dir or an ancestor.
func (c *Config) trustEntry() (trusted bool, where string, ok bool) {
	f := c.Layer(Trust, Global)
	if f == nil || f.Root == nil || f.Root.Kind != jsonc.Object {
		return false, "", false
	}
	dir, err := c.paths.Abs(c.ProjectDir)
	if err != nil {
		return false, "", false
	}
	if real, err := c.paths.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for {
		for _, key := range []string{dir, dir + string(filepath.Separator)} {
			if n := f.Root.Get(key); n != nil && n.Kind == jsonc.Bool {
				return n.Bool, dir, true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false, "", false
		}
		dir = parent
	}
}

// defaultProjectTrust reads the global settings only (D4: a project cannot trust itself).
func (c *Config) defaultProjectTrust() string {
	f := c.Layer(Settings, Global)
	if f == nil || f.Root == nil {
		return "ask"
	}
	if n := f.Root.Get("defaultProjectTrust"); n != nil && n.Kind == jsonc.String {
		switch n.Str {
		case "always", "never":
			return n.Str
		}
	}
	return "ask"
}

// askTrust puts the trust question to the person at the terminal and, when asked to, saves the
// answer in trust.json (comments and other entries kept).
func (c *Config) askTrust() {
	dir, err := filepath.Abs(c.ProjectDir)
	if err != nil {
		return
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // trust.json is looked up by real path
	}
	trusted, remember := c.Opts.AskTrust(dir)
	c.Trusted = trusted
	c.TrustReason = "answered at the terminal"
	if !remember {
		return
	}
	path, err := SaveTrust(c.AgentDir, dir, &trusted)
	if err != nil {
		c.Diags.Add(diag.FileSpan(diag.NewSource(path, nil)), diag.Warning, "trust-not-saved", "",
			fmt.Sprintf("the trust decision was not saved: %v", err))
		return
	}
	c.TrustReason = "answered at the terminal, saved in " + path
}

// SaveTrust records a trust decision for dir in agentDir/trust.json as pi does: the key is the
// folder's real path, the value true or false; a nil decision removes the folder's own entry
// (pi's null). A file that is plain JSON is rewritten as pi writes it (keys sorted, two-space
// indent); one with comments is edited in place so that they survive. It returns the path.
func SaveTrust(agentDir, dir string, decision *bool) (string, error) {
	path := filepath.Join(agentDir, "trust.json")
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return path, err
	}
	if len(bytes.TrimSpace(old)) == 0 {
		old = nil
	}
	var next []byte
	entries := map[string]any{}
	if old == nil || json.Unmarshal(old, &entries) == nil {
		for k, v := range entries {
			if _, ok := v.(bool); !ok && v != nil {
				return path, fmt.Errorf("%s: value for %q must be true, false, or null", path, k)
			}
		}
		if decision == nil {
			delete(entries, dir)
		} else {
			entries[dir] = *decision
		}
		// encoding/json sorts map keys, as pi's writeTrustFile does.
		b, err := json.MarshalIndent(entries, "", "  ")
		if err != nil {
			return path, err
		}
		next = append(b, '\n')
	} else {
		key := jsonedit.Path{jsonedit.Key(dir)}
		if decision == nil {
			next, err = jsonedit.Unset(old, key)
		} else {
			next, err = jsonedit.Set(old, key, []byte(fmt.Sprint(*decision)))
		}
		if err != nil {
			return path, err
		}
	}
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		return path, err
	}
	return path, jsonedit.WriteFileAtomic(path, next, old)
}
