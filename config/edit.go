package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/jsonedit"
	"github.com/pigo-agent/pigo/internal/validate"
)

// Edit operations (`pigo config set|unset|add`).
const (
	OpSet   = "set"
	OpUnset = "unset"
	OpAdd   = "add"
)

// EditOp is one edit of a JSON config file: set a value, unset a key or element, or append to
// an array. Path is a dotted path with [N] indexes (`servers.gopls.args[0]`); Value is standard
// JSON (unused by unset).
type EditOp struct {
	Op    string
	Path  string
	Value []byte
}

// Change is an edit of one file, computed and validated against the whole stack but not yet
// written. Old is nil when the file does not exist yet.
type Change struct {
	Kind  Kind
	Scope Scope
	// File is the path of the file the change writes.
	File string
	Old  []byte
	New  []byte
	// Config is the configuration rebuilt with New in place of the file.
	Config *Config
	// Warnings are the warnings the change adds (the edit goes through; they are shown).
	Warnings diag.List
}

// Diff returns the unified diff of the change ("" when nothing changes).
func (ch *Change) Diff() string {
	return jsonedit.Diff(ch.File, ch.Old, ch.New)
}

// Changed reports whether the change alters the file.
func (ch *Change) Changed() bool { return ch.Old == nil || !bytes.Equal(ch.Old, ch.New) }

// Write writes the change atomically. It refuses a read-only file and a file that changed (or
// appeared) since it was read (the error then wraps jsonedit.ErrChanged); on any failure the
// old file is intact. A missing .pi/ folder is created.
func (ch *Change) Write() error {
	if st, err := os.Stat(ch.File); err == nil && st.Mode().Perm()&0o222 == 0 {
		return &EditError{File: ch.File, Msg: fmt.Sprintf("the file is read-only (mode %04o); pigo does not change read-only files", st.Mode().Perm())}
	}
	return jsonedit.WriteFileAtomic(ch.File, ch.New, ch.Old)
}

// EditError is an edit pigo refuses: a bad path, a value of the wrong shape, a file that is
// invalid now, or an edit that would make the configuration invalid (Diags then holds the
// error diagnostics it would introduce).
type EditError struct {
	File string
	Msg  string
	Hint string
	// Diags are the diagnostics that explain the refusal, if any.
	Diags diag.List
}

func (e *EditError) Error() string {
	s := e.File + ": " + e.Msg
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

func editErr(file, format string, a ...any) *EditError {
	return &EditError{File: file, Msg: fmt.Sprintf(format, a...)}
}

// ParsePath parses a config key path (`fs.mode`, `servers.gopls.args[0]`, `a["x.y"]`).
func ParsePath(s string) ([]PathStep, error) {
	if s == "" {
		return nil, nil // the whole document
	}
	p, err := jsonedit.ParsePath(s)
	if err != nil {
		return nil, err
	}
	out := make([]PathStep, len(p))
	for i, st := range p {
		out[i] = PathStep{Key: st.Key, Index: st.Index, IsIndex: st.IsIndex}
	}
	return out, nil
}

// IsEditable reports whether k is a FILE argument of `pigo config`.
func IsEditable(k Kind) bool { return slices.Contains(EditableKinds, k) }

// ProjectTrusted reports whether a project overlay would apply, even when DIR/.pi/ holds no
// file pigo reads yet (then Trusted is true only because there is nothing to trust).
func (c *Config) ProjectTrusted() bool {
	if c.HasProject {
		return c.Trusted
	}
	cp := *c
	cp.Files = slices.Clone(c.Files)
	cp.HasProject, cp.Diags = true, nil
	cp.decideTrust()
	return cp.Trusted
}

// DefaultScope is the scope `pigo config` edits without --scope: the project when DIR/.pi/
// exists and the project is trusted, else the global agent dir.
func (c *Config) DefaultScope() Scope {
	st, err := os.Stat(c.ProjectOverlay())
	if err != nil || !st.IsDir() || c.sameDir(c.ProjectOverlay(), filepath.Dir(c.AgentDir)) {
		return Global
	}
	if c.ProjectTrusted() {
		return Project
	}
	return Global
}

// Override returns the configuration loaded again with the same options, except that the file
// of kind k in scope s holds src instead of what is on disk (nil src: the file is absent). It
// is how an edit is validated before anything is written.
func (c *Config) Override(k Kind, s Scope, src []byte) (*Config, error) {
	nc := &Config{Opts: c.Opts, Home: c.Home, AgentDir: c.AgentDir, ProjectDir: c.ProjectDir}
	nc.discoverAgentDir()
	nc.discoverProject()
	for _, e := range c.Opts.Extensions {
		if !IsPackageSource(e) && CodeExtension(e) == "" {
			nc.addFile(e, Extension, CLI, true)
		}
	}
	path := c.Path(k, s)
	idx := -1
	for i, f := range nc.Files {
		if f.Kind == k && f.Scope == s && !f.Legacy {
			idx, path = i, f.Path
			break
		}
	}
	if src == nil {
		if idx >= 0 {
			nc.Files = slices.Delete(nc.Files, idx, idx+1)
		}
	} else {
		f := &File{Path: path, Kind: k, Scope: s, Applied: true, Src: diag.NewSource(path, src)}
		nc.parseJSON(f)
		if idx >= 0 {
			nc.Files[idx] = f
		} else {
			nc.Files = append(nc.Files, f)
			nc.sortFiles()
		}
		if s == Project {
			nc.HasProject = true
		}
	}
	nc.decideTrust()
	nc.discoverPackages()
	return nc, nil
}

// Edit applies ops in order to the file of kind k in scope s (creating it when it does not
// exist) and validates the result against the whole configuration. It refuses (with an
// *EditError) a file that is invalid now, a key the schema does not allow, a path through a
// value of another type, an index out of range, and any edit that introduces an error
// diagnostic. Nothing is written: call Write on the result.
func (c *Config) Edit(k Kind, s Scope, ops ...EditOp) (*Change, error) {
	if !IsEditable(k) {
		return nil, fmt.Errorf("%s is not a file pigo config edits (one of %s)", k, kindList(EditableKinds))
	}
	sch, err := validate.Load()
	if err != nil {
		return nil, err
	}
	ch := &Change{Kind: k, Scope: s, File: c.Path(k, s)}
	before := c.Check()
	var src []byte
	if f := c.Layer(k, s); f != nil {
		ch.File = f.Path
		if f.Src.Text == nil {
			return nil, &EditError{File: f.Path, Msg: "the file cannot be read; pigo does not rewrite it", Diags: f.Diags}
		}
		if f.Dialect != "" {
			msg := fmt.Sprintf("the file is written in another format (%s); pigo does not edit it", f.Dialect)
			e := editErr(f.Path, "%s", msg)
			if k == Sandbox {
				e.Hint = "`pigo config migrate sandbox` rewrites the seed's older shape"
			}
			return nil, e
		}
		if f.Root == nil {
			return nil, &EditError{File: f.Path, Msg: "the file does not parse; pigo never rewrites it (fix it first, see pigo check)", Diags: errorsIn(before, f.Path)}
		}
		src = f.Src.Text
		ch.Old = src
	}
	cur := src
	for _, op := range ops {
		cur, err = applyOp(sch, k, ch.File, cur, op)
		if err != nil {
			return nil, err
		}
	}
	if cur == nil {
		cur = []byte("{}\n")
	}
	ch.New = cur
	nc, err := c.Override(k, s, cur)
	if err != nil {
		return nil, err
	}
	ch.Config = nc
	after := nc.Check()
	if intro := introduced(before, after, diag.Error); len(intro) > 0 {
		return nil, &EditError{File: ch.File, Msg: "the edit would make the configuration invalid; nothing was written", Diags: intro}
	}
	ch.Warnings = introduced(before, after, diag.Warning)
	return ch, nil
}

// EditLockTimeout is how long Apply waits for another pigo editing the same file.
var EditLockTimeout = 60 * time.Second

// Apply is Edit followed by Write, safe against other pigo processes editing the same file:
// it holds the file's lock (jsonedit.Lock) while it reads the configuration again, computes and
// validates the change and writes it, so concurrent edits apply one after the other and none
// is lost. A save by another program between the read and the write is detected by the write
// (jsonedit.ErrChanged); the edit is then computed again on what was saved, a few times. With
// dryRun nothing is locked or written.
func (c *Config) Apply(k Kind, s Scope, dryRun bool, ops ...EditOp) (*Change, error) {
	if dryRun {
		return c.Edit(k, s, ops...)
	}
	path := c.Path(k, s)
	if f := c.Layer(k, s); f != nil {
		path = f.Path
	}
	unlock, err := jsonedit.Lock(path, EditLockTimeout)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for try := 0; ; try++ {
		fresh, err := c.Reload()
		if err != nil {
			return nil, err
		}
		ch, err := fresh.Edit(k, s, ops...)
		if err != nil || !ch.Changed() {
			return ch, err
		}
		if err = ch.Write(); err == nil || !errors.Is(err, jsonedit.ErrChanged) || try == 4 {
			return ch, err
		}
	}
}

// Reload reads the configuration again with the same options. The project keeps the trust
// decided when it was first loaded (nobody is asked twice).
func (c *Config) Reload() (*Config, error) {
	o := c.Opts
	if o.Approve == nil && o.AskTrust != nil {
		trusted := c.Trusted
		o.AskTrust = func(string) (bool, bool) { return trusted, false }
	}
	return Load(o)
}

func kindList(ks []Kind) string {
	var s []string
	for _, k := range ks {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

func errorsIn(list diag.List, file string) diag.List {
	var out diag.List
	for _, d := range list {
		if d.Severity == diag.Error && d.Span.Src != nil && d.Span.Src.Name == file {
			out = append(out, d)
		}
	}
	return out
}

var digits = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+`) })

// introduced returns the diagnostics of severity sev in after that before did not have. They
// are compared without their offsets (an edit moves what follows it), as a multiset of file,
// code, path and message, so an edit that fixes one error of a file and leaves another adds
// nothing, and the edit that fixes a schema error goes through.
func introduced(before, after diag.List, sev diag.Severity) diag.List {
	key := func(d diag.Diagnostic) string {
		name := ""
		if d.Span.Src != nil {
			name = d.Span.Src.Name
		}
		// Numbers are left out too: a message that names a line ("replaces the one on line 3")
		// or a path with an index changes when an edit moves things (an earlier element was
		// removed), and that is not a new problem.
		return fmt.Sprintf("%s\x00%s\x00%s\x00%s", name, d.Code, digits().ReplaceAllString(d.Path, "#"), digits().ReplaceAllString(d.Message, "#"))
	}
	old := map[string]int{}
	for _, d := range before {
		if d.Severity == sev {
			old[key(d)]++
		}
	}
	var out diag.List
	for _, d := range after {
		if d.Severity != sev {
			continue
		}
		if k := key(d); old[k] > 0 {
			old[k]--
			continue
		}
		out = append(out, d)
	}
	return out.Sort()
}

// applyOp performs one edit on src (nil: the file does not exist yet).
func applyOp(s *validate.Schema, k Kind, file string, src []byte, op EditOp) ([]byte, error) {
	p, err := jsonedit.ParsePath(op.Path)
	if err != nil {
		return nil, editErr(file, "bad key %q: %v", op.Path, err)
	}
	if len(p) == 0 {
		return nil, editErr(file, "a key is required")
	}
	var root *jsonc.Node
	if len(bytes.TrimSpace(src)) > 0 {
		if root, err = jsonc.Parse(src); err != nil {
			return nil, editErr(file, "the file does not parse: %v", err)
		}
	}
	if err := checkSchemaPath(s, k, root, p, op.Op); err != nil {
		err.File = file
		return nil, err
	}
	var out []byte
	switch op.Op {
	case OpSet:
		out, err = jsonedit.Set(src, p, op.Value)
	case OpAdd:
		out, err = jsonedit.Add(src, p, op.Value)
	case OpUnset:
		if src == nil {
			return nil, editErr(file, "%s is not set (the file does not exist)", p)
		}
		out, err = jsonedit.Unset(src, p)
	default:
		return nil, fmt.Errorf("unknown edit %q", op.Op)
	}
	if err != nil {
		return nil, translateEditErr(file, op, err)
	}
	return out, nil
}

func translateEditErr(file string, op EditOp, err error) error {
	var je *jsonedit.Error
	if errors.As(err, &je) {
		e := editErr(file, "%s", je.Msg)
		if je.Line > 0 && !errors.Is(err, jsonedit.ErrInvalidValue) {
			e.Msg = fmt.Sprintf("%d:%d: %s", je.Line, je.Column, je.Msg)
		}
		if errors.Is(err, jsonedit.ErrNotFound) && op.Op == OpUnset {
			e.Msg = fmt.Sprintf("%s is not set: %s", op.Path, je.Msg)
		}
		return e
	}
	if errors.Is(err, jsonedit.ErrInvalidValue) {
		return editErr(file, "value for %s is not valid JSON: %v", op.Path, err)
	}
	return editErr(file, "%v", err)
}

// checkSchemaPath refuses a key path the schema does not allow, with a did-you-mean. It walks
// the document beside the schema so that a disjunction is resolved by the value present.
func checkSchemaPath(s *validate.Schema, k Kind, root *jsonc.Node, p jsonedit.Path, op string) *EditError {
	sch := s.Def(Definition(k))
	n := root
	for i, st := range p {
		here := jsonedit.Path(p[:i+1]).String()
		if sch.IsTop() {
			return nil
		}
		if st.IsIndex {
			if sch.Kind()&validate.List == 0 {
				return &EditError{Msg: fmt.Sprintf("%s: %s is not a list in the schema (expected %s)", here, jsonedit.Path(p[:i]).String(), sch.KindWord())}
			}
			sch = s.Elem(sch)
			n = elemNode(n, st.Index)
			continue
		}
		if sch.Kind()&validate.Struct == 0 {
			what := "the top level"
			if i > 0 {
				what = jsonedit.Path(p[:i]).String()
			}
			return &EditError{Msg: fmt.Sprintf("%s: %s is %s in the schema, not an object", here, what, sch.KindWord())}
		}
		f := s.Field(sch, n, st.Key)
		if !f.Exists() {
			e := &EditError{Msg: fmt.Sprintf("unknown key %q: the schema of %s does not allow it", here, Definition(k))}
			if sug := validate.Suggest(st.Key, sch.FieldNames()); sug != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", jsonedit.Path(append(slices.Clone(p[:i]), jsonedit.Key(sug))).String())
			}
			return e
		}
		sch = f
		n = memberNode(n, st.Key)
	}
	if op == OpAdd && !sch.IsTop() && sch.Kind()&validate.List == 0 {
		return &EditError{Msg: fmt.Sprintf("%s is %s in the schema; add appends to a list", p, sch.KindWord())}
	}
	return nil
}

func memberNode(n *jsonc.Node, key string) *jsonc.Node {
	if n == nil || n.Kind != jsonc.Object {
		return nil
	}
	return n.Get(key)
}

func elemNode(n *jsonc.Node, i int) *jsonc.Node {
	if n == nil || n.Kind != jsonc.Array || i < 0 || i >= len(n.Elems) {
		return nil
	}
	return n.Elems[i]
}

// Get returns the value at path in one layer file (as compact JSON); found is false when the
// file or the key does not exist.
func (c *Config) Get(k Kind, s Scope, path string) (value []byte, found bool, err error) {
	var p jsonedit.Path
	if path != "" {
		var err error
		if p, err = jsonedit.ParsePath(path); err != nil {
			return nil, false, err
		}
	}
	f := c.Layer(k, s)
	if f == nil || f.Src.Text == nil {
		return nil, false, nil
	}
	if len(p) == 0 {
		if f.Root == nil {
			return nil, false, fmt.Errorf("%s: the file does not parse", f.Path)
		}
		return f.Root.JSON(), true, nil
	}
	return jsonedit.Get(f.Src.Text, p)
}
