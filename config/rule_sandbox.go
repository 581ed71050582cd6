package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// checkSandboxRules checks sandbox.json values the schema cannot: allowlist entries
// (bad-allowlist) and approval rule patterns (bad-approval-rule).
func (c *Config) checkSandboxRules(f *File) {
	root := f.Root
	if root == nil || root.Kind != jsonc.Object {
		return
	}
	if net := root.Get("network"); net != nil && net.Kind == jsonc.Object {
		if list := net.Get("allowlist"); list != nil && list.Kind == jsonc.Array {
			for i, e := range list.Elems {
				if e.Kind != jsonc.String {
					continue // the schema reports it
				}
				err := sandbox.ValidateAllowlistEntry(e.Str)
				var ae *sandbox.AllowlistError
				if err == nil || !errors.As(err, &ae) {
					if err != nil {
						f.Diags.Add(diag.At(f.Src, e.Start, e.End), diag.Error, "bad-allowlist", indexPath("network.allowlist", i), err.Error())
					}
					continue
				}
				f.Diags.Add(inString(f, e, ae.Offset), diag.Error, "bad-allowlist", indexPath("network.allowlist", i), ae.Message)
			}
		}
	}
	c.checkSandboxPaths(f)
	if rules := root.Get("approvalRules"); rules != nil && rules.Kind == jsonc.Array {
		for i, e := range rules.Elems {
			if e.Kind != jsonc.Object {
				continue
			}
			action, pattern := e.Get("action"), e.Get("pattern")
			// A missing, mistyped or empty field or an unknown action is a schema error already.
			if action == nil || pattern == nil || action.Kind != jsonc.String || pattern.Kind != jsonc.String ||
				(action.Str != sandbox.Allow && action.Str != sandbox.Deny) || pattern.Str == "" {
				continue
			}
			re := sandbox.ValidateRule(sandbox.Rule{Action: action.Str, Pattern: pattern.Str})
			if re == nil {
				continue
			}
			path := indexPath("approvalRules", i)
			if re.Offset < 0 {
				f.Diags.Add(diag.At(f.Src, action.Start, action.End), diag.Error, "bad-approval-rule", path+".action", re.Message)
				continue
			}
			d := f.Diags.Add(inString(f, pattern, re.Offset), diag.Error, "bad-approval-rule", path+".pattern", re.Message)
			d.Hint = "each command of a line is matched on its own, against its raw text"
		}
	}
}

// checkSandboxPaths reports path entries pigo would not read as written: a variable other
// than $HOME / ${HOME} (unexpanded-variable: it would be taken literally) and an
// allowUnixSockets entry that is not absolute (bad-unix-socket: a relative socket path would
// depend on the command's directory).
func (c *Config) checkSandboxPaths(f *File) {
	root := f.Root
	lists := []struct{ parent, key string }{
		{"fs", "writablePaths"}, {"fs", "extraWritablePaths"}, {"fs", "denyPaths"}, {"network", "allowUnixSockets"},
	}
	for _, l := range lists {
		parent := root.Get(l.parent)
		if parent == nil || parent.Kind != jsonc.Object {
			continue
		}
		list := parent.Get(l.key)
		if list == nil || list.Kind != jsonc.Array {
			continue
		}
		for i, e := range list.Elems {
			if e.Kind != jsonc.String {
				continue
			}
			path := indexPath(l.parent+"."+l.key, i)
			expanded := sandbox.ExpandHomeVar(e.Str, "/home")
			if j := strings.IndexByte(expanded, '$'); j >= 0 {
				off := j
				if expanded != e.Str {
					off = strings.IndexByte(e.Str[1:], '$') + 1
				}
				d := f.Diags.Add(inString(f, e, off), diag.Warning, "unexpanded-variable", path,
					fmt.Sprintf("%q is not expanded: pigo expands only a leading ~, $HOME or ${HOME}, so this path is taken literally", e.Str))
				d.Hint = "write the path out, or start it with ~/"
			}
			if l.key == "allowUnixSockets" && !filepath.IsAbs(expanded) && expanded != "~" && !strings.HasPrefix(expanded, "~/") {
				f.Diags.Add(diag.At(f.Src, e.Start, e.End), diag.Error, "bad-unix-socket", path,
					fmt.Sprintf("%q is not an absolute path; a Unix socket must be named by an absolute path or one starting with ~/", e.Str))
			}
		}
	}
}

// inString is the span of the byte at off inside a string node's decoded value (mapped through
// escapes), up to the closing quote; off 0 means the whole string, from its opening quote.
func inString(f *File, n *jsonc.Node, off int) diag.Span {
	if off <= 0 || off > len(n.Str) {
		return diag.At(f.Src, n.Start, n.End)
	}
	runes := utf8.RuneCountInString(n.Str[:off])
	start := jsonc.StringOffset(f.Src.Text, n, runes)
	end := n.End - 1 // the closing quote
	if end <= start {
		end = start + 1
	}
	return diag.At(f.Src, start, end)
}

func indexPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// Ranks of the sandbox modes, tightest first.
var (
	fsRank  = map[string]int{sandbox.FSReadonly: 0, sandbox.FSWorkspaceWrite: 1, sandbox.FSAllowAll: 2}
	netRank = map[string]int{sandbox.NetBlock: 0, sandbox.NetLimited: 1, sandbox.NetAllowAll: 2}
)

// checkSandboxWidening warns when a trusted project loosens the global sandbox
// (sandbox-widened): one warning per widening, at the project value. The project is compared
// with the global layer over the defaults (the defaults alone when there is no global file).
func (c *Config) checkSandboxWidening() diag.List {
	if !c.Trusted {
		return nil
	}
	proj := c.Layer(Sandbox, Project)
	if proj == nil || proj.Root == nil || proj.Root.Kind != jsonc.Object || proj.Dialect != "" {
		return nil
	}
	var m merger
	global := sandbox.DefaultPolicy()
	var groot *jsonc.Node
	gname := ""
	if g := c.Layer(Sandbox, Global); g != nil && g.Root != nil && g.Root.Kind == jsonc.Object && g.Dialect == "" {
		global = policyOf(m.wrap(g.Root, g))
		groot, gname = g.Root, "the global "+filepath.Base(g.Path)
	}
	// from names where the compared global value comes from: the global file or the default.
	from := func(keys ...string) string {
		n := groot
		for _, k := range keys {
			n = objGet(n, k)
		}
		if n == nil {
			return "the default"
		}
		return gname
	}
	var out diag.List
	warn := func(n *jsonc.Node, path, msg string) {
		d := out.Add(diag.At(proj.Src, n.Start, n.End), diag.Warning, "sandbox-widened", path, "the project widens the sandbox: "+msg)
		d.Hint = "a trusted project may loosen the sandbox; keep this only if you meant it"
	}
	root := proj.Root
	fs, net := objGet(root, "fs"), objGet(root, "network")
	if n := objGet(fs, "mode"); n != nil && n.Kind == jsonc.String {
		if r, ok := fsRank[n.Str]; ok && r > fsRank[global.FSMode] {
			warn(n, "fs.mode", fmt.Sprintf("fs.mode %q is looser than %q (%s)", n.Str, global.FSMode, from("fs", "mode")))
		}
	}
	if n := objGet(net, "mode"); n != nil && n.Kind == jsonc.String {
		if r, ok := netRank[n.Str]; ok && r > netRank[global.NetMode] {
			warn(n, "network.mode", fmt.Sprintf("network.mode %q is looser than %q (%s)", n.Str, global.NetMode, from("network", "mode")))
		}
	}
	cleanIn := func(list []string, p string) bool {
		return slices.ContainsFunc(list, func(x string) bool { return filepath.Clean(x) == filepath.Clean(p) })
	}
	effFS := global.FSMode
	if n := objGet(fs, "mode"); n != nil && n.Kind == jsonc.String {
		effFS = n.Str
	}
	for _, e := range strElems(objGet(fs, "writablePaths")) {
		// writablePaths only count in workspace-write mode (allow-all is reported above).
		if effFS == sandbox.FSWorkspaceWrite && !cleanIn(global.WritablePaths, e.Str) {
			warn(e.Node, indexPath("fs.writablePaths", e.i), fmt.Sprintf("fs.writablePaths adds %q (not writable in %s)", e.Str, from("fs", "writablePaths")))
		}
	}
	for _, e := range strElems(objGet(fs, "extraWritablePaths")) {
		if !cleanIn(global.ExtraWritablePaths, e.Str) {
			warn(e.Node, indexPath("fs.extraWritablePaths", e.i), fmt.Sprintf("fs.extraWritablePaths adds %q (writable in every fs mode)", e.Str))
		}
	}
	if n := objGet(fs, "denyPaths"); n != nil && n.Kind == jsonc.Array {
		proj := []string{}
		for _, e := range strElems(n) {
			proj = append(proj, e.Str)
		}
		for _, d := range global.DenyPaths {
			if !slices.Contains(proj, d) {
				warn(n, "fs.denyPaths", fmt.Sprintf("fs.denyPaths drops %q (hidden in %s)", d, from("fs", "denyPaths")))
			}
		}
	}
	for _, e := range strElems(objGet(net, "allowlist")) {
		if !slices.Contains(global.Allowlist, e.Str) {
			warn(e.Node, indexPath("network.allowlist", e.i), fmt.Sprintf("network.allowlist adds %q", e.Str))
		}
	}
	if rules := objGet(root, "approvalRules"); rules != nil && rules.Kind == jsonc.Array {
		for i, r := range rules.Elems {
			a, p := objGet(r, "action"), objGet(r, "pattern")
			if a == nil || p == nil || a.Kind != jsonc.String || p.Kind != jsonc.String || a.Str != sandbox.Allow {
				continue
			}
			if slices.ContainsFunc(global.ApprovalRules, func(g sandbox.Rule) bool { return g.Action == sandbox.Allow && g.Pattern == p.Str }) {
				continue // the global file allows it already
			}
			warn(p, indexPath("approvalRules", i)+".pattern", fmt.Sprintf("approval rule allows %q to run unsandboxed", p.Str))
		}
	}
	if n := objGet(root, "bwrapPath"); n != nil && n.Kind == jsonc.String && n.Str != global.BwrapPath {
		was := "the bwrap found on PATH"
		if global.BwrapPath != "" {
			was = strconv.Quote(global.BwrapPath)
		}
		warn(n, "bwrapPath", fmt.Sprintf("bwrapPath %q replaces %s", n.Str, was))
	}
	if n := objGet(root, "extraArgs"); n != nil && n.Kind == jsonc.Array {
		args := []string{}
		for _, e := range strElems(n) {
			args = append(args, e.Str)
		}
		if !slices.Equal(args, global.ExtraArgs) {
			warn(n, "extraArgs", fmt.Sprintf("extraArgs [%s] replaces [%s] (%s)", quoteList(args), quoteList(global.ExtraArgs), from("extraArgs")))
		}
	}
	return out
}

// objGet returns the last member key of an object node (as JSON decoders do), or nil.
func objGet(n *jsonc.Node, key string) *jsonc.Node {
	if n == nil || n.Kind != jsonc.Object {
		return nil
	}
	var v *jsonc.Node
	for _, m := range n.Members {
		if m.Key == key {
			v = m.Value
		}
	}
	return v
}

// indexed is a string element of an array with its index.
type indexed struct {
	i int
	*jsonc.Node
}

// strElems returns the string elements of an array node with their indexes (other elements
// are the schema's business).
func strElems(n *jsonc.Node) []indexed {
	if n == nil || n.Kind != jsonc.Array {
		return nil
	}
	var out []indexed
	for i, e := range n.Elems {
		if e.Kind == jsonc.String {
			out = append(out, indexed{i, e})
		}
	}
	return out
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
