package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/jsonedit"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/validate"
)

// Migration rewrites the seed's older sandbox file (the flat bwrap.json shape, in sandbox.json
// or in a file named bwrap.json) into the current sandbox.json shape. From is the file read;
// To is sandbox.json beside it (the same file when From is a flat sandbox.json).
type Migration struct {
	From string
	To   string
	// Old holds From's bytes; ToOld holds To's bytes when To exists and differs from From
	// (nil otherwise); New is the migrated document.
	Old, ToOld, New []byte
	// Done is true when there is nothing to do (To already holds the current shape).
	Done bool
}

// Diff returns the unified diff from the old file to the new sandbox.json.
func (m *Migration) Diff() string {
	if m.From == m.To {
		return jsonedit.Diff(m.To, m.Old, m.New)
	}
	return jsonedit.Diff(m.To, m.ToOld, m.New)
}

// Write writes sandbox.json atomically (refusing a concurrent change) and, when removeOld is
// set and From is a separate bwrap.json, removes it afterwards.
func (m *Migration) Write(removeOld bool) error {
	if m.Done {
		return m.removeOld(removeOld)
	}
	expect := m.ToOld
	if m.From == m.To {
		expect = m.Old
	}
	if st, err := os.Stat(m.To); err == nil && st.Mode().Perm()&0o222 == 0 {
		return &EditError{File: m.To, Msg: fmt.Sprintf("the file is read-only (mode %04o); pigo does not change read-only files", st.Mode().Perm())}
	}
	if err := jsonedit.WriteFileAtomic(m.To, m.New, expect); err != nil {
		return err
	}
	return m.removeOld(removeOld)
}

func (m *Migration) removeOld(removeOld bool) error {
	if !removeOld || m.From == m.To {
		return nil
	}
	cur, err := os.ReadFile(m.From)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, m.Old) {
		return fmt.Errorf("%s: %w; it was not removed", m.From, jsonedit.ErrChanged)
	}
	return os.Remove(m.From)
}

// MigrateSandbox plans the migration of the sandbox file of one scope. It reads sandbox.json
// when it has the flat shape, else bwrap.json. It refuses when there is nothing to migrate,
// when the source has errors, and when sandbox.json exists, differs from the result and is
// not itself the source.
func (c *Config) MigrateSandbox(s Scope) (*Migration, error) {
	to := c.Path(Sandbox, s)
	legacy := filepath.Join(filepath.Dir(to), "bwrap.json")
	toData, toErr := safefile.Read(to, c.readOptions(s))
	if toErr != nil && !errors.Is(toErr, fs.ErrNotExist) {
		return nil, editErr(to, "%s", ioMessage(toErr))
	}
	m := &Migration{To: to}
	if toErr == nil {
		root, err := jsonc.Parse(toData)
		if err != nil {
			return nil, editErr(to, "the file does not parse: %v; pigo does not migrate it", err)
		}
		if d := detectDialect(Sandbox, root); d != nil && d.legacy {
			m.From, m.Old = to, toData
		}
	}
	if m.From == "" {
		data, err := safefile.Read(legacy, c.readOptions(s))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if toErr == nil {
				return &Migration{From: to, To: to, Old: toData, New: toData, Done: true}, nil
			}
			return nil, editErr(to, "nothing to migrate: neither %s nor %s exists", FileName(Sandbox), filepath.Base(legacy))
		case err != nil:
			return nil, editErr(legacy, "%s", ioMessage(err))
		}
		m.From, m.Old = legacy, data
		if toErr == nil {
			m.ToOld = toData
		}
	}
	out, err := MigrateFlatSandbox(m.From, m.Old)
	if err != nil {
		return nil, err
	}
	m.New = out
	if m.From != m.To && m.ToOld != nil {
		if !bytes.Equal(m.ToOld, m.New) {
			return nil, editErr(to, "already exists and differs from the migrated %s; pigo does not overwrite it (merge the two by hand, or remove one)", filepath.Base(m.From))
		}
		m.Done = true
	}
	return m, nil
}

// MigrateFlatSandbox rewrites a sandbox document from the seed's flat shape into the current
// one (a document already in the current shape is returned unchanged):
//
//	mode             → fs.mode + network.mode (allow-all → allow-all/allow-all,
//	                   workspace-write → workspace-write/block, readonly → readonly/block,
//	                   allow-net → workspace-write/allow-all, net-allowlist → workspace-write/limited)
//	writablePaths, extraWritablePaths, denyPaths → fs.*
//	tmpfsPaths       → fs.denyPaths, each entry with a trailing "/"
//	networkAllowlist → network.allowlist
//	bwrapPath, extraArgs, approvalRules and unknown keys stay at the top level.
//
// Values keep their text (and the comments inside them); a key's comment lines above it and its
// comment at the end of its line move with it. The result is validated against #Sandbox.
func MigrateFlatSandbox(name string, src []byte) ([]byte, error) {
	s, err := validate.Load()
	if err != nil {
		return nil, err
	}
	root, err := jsonc.Parse(src)
	if err != nil {
		return nil, editErr(name, "the file does not parse: %v; pigo does not migrate it", err)
	}
	if root.Kind != jsonc.Object {
		return nil, editErr(name, "expected an object at the top level, got %s", root.Kind)
	}
	switch d := detectDialect(Sandbox, root); {
	case d == nil:
		return src, nil // already the current shape (only the file name was old)
	case !d.legacy:
		return nil, editErr(name, "the file is written in another extension's format (%s); there is nothing pigo can migrate", d.name)
	}
	ds := s.Check(diag.NewSource(name, src), root, "#LegacyBwrap", validate.Options{Mode: validate.UserConfig})
	if ds.HasErrors() {
		var errs diag.List
		for _, d := range ds {
			if d.Severity == diag.Error {
				errs = append(errs, d)
			}
		}
		return nil, &EditError{File: name, Msg: "the file has errors; pigo does not migrate an invalid file", Diags: errs}
	}
	out := newMigrator(src, root).run()
	nroot, err := jsonc.Parse(out)
	if err != nil {
		return nil, fmt.Errorf("internal error: the migrated document does not parse: %v", err)
	}
	if ds := s.Check(diag.NewSource(name, out), nroot, "#Sandbox", validate.Options{Mode: validate.UserConfig}); ds.HasErrors() {
		return nil, &EditError{File: name, Msg: "internal error: the migrated document does not validate", Diags: ds}
	}
	return out, nil
}

// piece is one member of the flat document with the text that travels with it.
type piece struct {
	key   string
	value string   // the value's source text, re-indented on output
	lead  []string // comment (and blank) lines directly above the key, without indentation
	trail string   // a comment after the value on the same line
	node  *jsonc.Node
}

type migrator struct {
	src    []byte
	root   *jsonc.Node
	nl     string
	unit   string // indentation unit
	ind0   string // indentation of the top-level members in the source
	comma  bool   // the source ends its last member with a trailing comma
	pieces []*piece
	head   string // text between "{" and the first member's comments (same-line comment)
	foot   []string
}

func newMigrator(src []byte, root *jsonc.Node) *migrator {
	m := &migrator{src: src, root: root, nl: "\n", unit: "  "}
	if bytes.Contains(src, []byte("\r\n")) {
		m.nl = "\r\n"
	}
	prevEnd := root.Start + 1 // after "{"
	for i, mem := range root.Members {
		p := &piece{key: mem.Key, node: mem.Value}
		gap := string(src[prevEnd:mem.KeyStart])
		if i == 0 {
			// A comment on the "{" line stays there.
			if j := strings.IndexByte(gap, '\n'); j >= 0 {
				m.head = strings.TrimSpace(gap[:j])
				gap = gap[j+1:]
			} else {
				gap = ""
			}
			ls := lineStart(src, mem.KeyStart)
			m.ind0 = string(src[ls:mem.KeyStart])
			if strings.TrimSpace(m.ind0) == "" && m.ind0 != "" {
				m.unit = m.ind0
			} else {
				m.ind0 = ""
			}
		}
		p.lead = commentLines(gap)
		p.value = string(src[mem.Value.Start:mem.Value.End])
		end := mem.Value.End
		// The comma and a comment on the same line belong to this member.
		rest := src[end:]
		k := 0
		for k < len(rest) && (rest[k] == ' ' || rest[k] == '\t') {
			k++
		}
		if k < len(rest) && rest[k] == ',' {
			k++
			if i == len(root.Members)-1 {
				m.comma = true
			}
		}
		for k < len(rest) && (rest[k] == ' ' || rest[k] == '\t') {
			k++
		}
		if bytes.HasPrefix(rest[k:], []byte("//")) || bytes.HasPrefix(rest[k:], []byte("/*")) {
			e := bytes.IndexByte(rest[k:], '\n')
			if e < 0 {
				e = len(rest) - k
			}
			c := strings.TrimRight(string(rest[k:k+e]), "\r")
			if !strings.HasPrefix(c, "/*") || strings.HasSuffix(strings.TrimSpace(c), "*/") {
				p.trail = strings.TrimSpace(c)
				k += e
			}
		}
		// Stop at the end of this line; what follows belongs to the next member.
		if e := bytes.IndexByte(rest[k:], '\n'); e >= 0 && strings.TrimSpace(string(rest[k:k+e])) == "" {
			k += e + 1
		}
		prevEnd = end + k
		m.pieces = append(m.pieces, p)
	}
	if prevEnd < root.End-1 {
		m.foot = commentLines(string(src[prevEnd : root.End-1]))
	}
	return m
}

func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// commentLines keeps the comment lines of a gap (and single blank lines between them), each
// trimmed of its indentation.
func commentLines(gap string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(gap, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || t == "," {
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			continue
		}
		out = append(out, t)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// entry is one member of the output: a moved piece under a new key, or a generated value.
type entry struct {
	key   string
	value string // text, already re-indented for the entry's level
	lead  []string
	trail string
}

func (m *migrator) reindent(p *piece, level int) string {
	lines := strings.Split(p.value, "\n")
	to := strings.Repeat(m.unit, level)
	for i := 1; i < len(lines); i++ {
		lines[i] = to + strings.TrimPrefix(lines[i], m.ind0)
	}
	return strings.Join(lines, "\n")
}

func (m *migrator) run() []byte {
	byKey := map[string]*piece{}
	for _, p := range m.pieces {
		byKey[p.key] = p
	}
	var fsEntries, netEntries []entry
	if p := byKey["mode"]; p != nil {
		fsm, net := legacyModes(p.node.Str)
		fsEntries = append(fsEntries, entry{key: "mode", value: quote(fsm), lead: p.lead, trail: p.trail})
		netEntries = append(netEntries, entry{key: "mode", value: quote(net)})
	}
	for _, k := range []string{"writablePaths", "extraWritablePaths"} {
		if p := byKey[k]; p != nil {
			fsEntries = append(fsEntries, entry{key: k, value: m.reindent(p, 2), lead: p.lead, trail: p.trail})
		}
	}
	deny, tmpfs := byKey["denyPaths"], byKey["tmpfsPaths"]
	switch {
	case tmpfs != nil && deny == nil:
		fsEntries = append(fsEntries, entry{key: "denyPaths", value: m.reindent(&piece{value: dirSuffixes(tmpfs), node: tmpfs.node}, 2), lead: tmpfs.lead, trail: tmpfs.trail})
	case tmpfs != nil:
		var items []string
		for _, e := range deny.node.Elems {
			items = append(items, string(m.src[e.Start:e.End]))
		}
		for _, e := range tmpfs.node.Elems {
			items = append(items, quote(withSlash(e.Str)))
		}
		lead := append(append([]string{}, deny.lead...), tmpfs.lead...)
		trail := strings.TrimSpace(deny.trail + " " + tmpfs.trail)
		fsEntries = append(fsEntries, entry{key: "denyPaths", value: "[" + strings.Join(items, ", ") + "]", lead: lead, trail: trail})
	case deny != nil:
		fsEntries = append(fsEntries, entry{key: "denyPaths", value: m.reindent(deny, 2), lead: deny.lead, trail: deny.trail})
	}
	if p := byKey["networkAllowlist"]; p != nil {
		netEntries = append(netEntries, entry{key: "allowlist", value: m.reindent(p, 2), lead: p.lead, trail: p.trail})
	}
	group := map[string]string{"mode": "fs", "writablePaths": "fs", "extraWritablePaths": "fs", "denyPaths": "fs", "tmpfsPaths": "fs", "networkAllowlist": "network"}
	var top []entry
	emitted := map[string]bool{}
	for _, p := range m.pieces {
		g, moved := group[p.key]
		if !moved {
			top = append(top, entry{key: p.key, value: m.reindent(p, 1), lead: p.lead, trail: p.trail})
			continue
		}
		gs := []string{g}
		if p.key == "mode" {
			gs = []string{"fs", "network"}
		}
		for _, g := range gs {
			if emitted[g] {
				continue
			}
			emitted[g] = true
			list := fsEntries
			if g == "network" {
				list = netEntries
			}
			if len(list) > 0 {
				top = append(top, entry{key: g, value: m.object(list, 1)})
			}
		}
	}
	var b strings.Builder
	b.WriteString(string(m.src[:m.root.Start]))
	b.WriteString(m.object(top, 0))
	b.WriteString(string(m.src[m.root.End:]))
	out := b.String()
	if m.nl != "\n" {
		out = strings.ReplaceAll(strings.ReplaceAll(out, "\r\n", "\n"), "\n", "\r\n")
	}
	return []byte(out)
}

// object renders entries as a multi-line object whose closing brace sits at level.
func (m *migrator) object(es []entry, level int) string {
	in := strings.Repeat(m.unit, level+1)
	var b strings.Builder
	b.WriteString("{")
	if level == 0 && m.head != "" {
		b.WriteString(" " + m.head)
	}
	b.WriteString("\n")
	for i, e := range es {
		for _, l := range e.lead {
			if l == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString(in + l + "\n")
		}
		b.WriteString(in + quote(e.key) + ": " + e.value)
		if i < len(es)-1 || m.comma {
			b.WriteString(",")
		}
		if e.trail != "" {
			b.WriteString(" " + e.trail)
		}
		b.WriteString("\n")
	}
	if level == 0 {
		for _, l := range m.foot {
			if l == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString(in + l + "\n")
		}
	}
	b.WriteString(strings.Repeat(m.unit, level) + "}")
	return b.String()
}

// dirSuffixes returns the text of a tmpfsPaths array with "/" added to each string entry that
// lacks it; everything else in the text (comments, layout) is kept.
func dirSuffixes(p *piece) string {
	v := []byte(p.value)
	base := p.node.Start
	for i := len(p.node.Elems) - 1; i >= 0; i-- {
		e := p.node.Elems[i]
		if e.Kind != jsonc.String || strings.HasSuffix(e.Str, "/") {
			continue
		}
		at := e.End - 1 - base // the closing quote
		v = append(v[:at], append([]byte("/"), v[at:]...)...)
	}
	return string(v)
}

func withSlash(s string) string {
	if strings.HasSuffix(s, "/") {
		return s
	}
	return s + "/"
}

func quote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Run is `pigo config migrate sandbox` once the migration is planned: nothing to do (or only
// the old file to remove with removeOld), else the diff, then — unless dryRun — the write;
// what happened goes to w. An error is Write's (an *EditError, a refused or changed file, or an
// I/O failure).
func (m *Migration) Run(w io.Writer, dryRun, removeOld bool) error {
	if m.Done {
		if removeOld && m.From != m.To && !dryRun {
			if err := m.Write(true); err != nil {
				return err
			}
			fmt.Fprintf(w, "%s already holds the migrated policy; removed %s\n", m.To, m.From)
			return nil
		}
		fmt.Fprintf(w, "%s is already in the current shape: nothing to migrate\n", m.To)
		return nil
	}
	fmt.Fprint(w, m.Diff())
	if dryRun {
		return nil
	}
	if err := m.Write(removeOld); err != nil {
		return err
	}
	switch {
	case m.From == m.To:
		fmt.Fprintf(w, "migrated %s to the current shape\n", m.To)
	case removeOld:
		fmt.Fprintf(w, "migrated %s to %s and removed %s\n", m.From, m.To, m.From)
	default:
		fmt.Fprintf(w, "migrated %s to %s; %s is left as it was (pass --remove-old to remove it)\n", m.From, m.To, m.From)
	}
	return nil
}
