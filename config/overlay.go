package config

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// The merge rules of D4, declared on schema fields as @merge(rule).
const (
	RuleReplace = "replace" // the project value replaces the global one (scalars, arrays)
	RuleDeep    = "deep"    // objects merge key by key (the default for objects)
	RulePrepend = "prepend" // arrays: project items first, then global
	RuleAppend  = "append"  // arrays: global items, then project
	RuleUnion   = "union"   // arrays: de-duplicated union, global first
	RuleEntries = "entries" // maps: entries merge by key, an entry is replaced whole
	RuleGlobal  = "global"  // read from the global file only
	RuleOnly    = "only"    // a single layer set it (nothing was merged)
	// RuleOverride is mcp.json's mcpServers (pi 1.6): entries merge by key; a project entry
	// with command, url or type replaces the global entry whole, one without them overrides
	// only enabled, exposure and toolExposure of the global entry and keeps the rest.
	RuleOverride = "override"
)

// Value is one node of an effective configuration with its provenance: the layer file that
// wrote it, the node as written, the merge rule that produced it and the values it replaced.
type Value struct {
	Kind jsonc.Kind
	// Node and File are where the value was written. For a merged object Node is the
	// winning layer's object.
	Node *jsonc.Node
	File *File
	// Members of a (merged) object, in order: global keys first, then keys only the project has.
	Members []*Member
	// Elems of an array; combined arrays keep each element's own file.
	Elems []*Value
	// Rule is the merge rule applied at this value.
	Rule string
	// Replaced lists the lower-layer values this one replaced or shadowed.
	Replaced []*Value
}

// Member is one key of a merged object.
type Member struct {
	Key   string
	Value *Value
}

// Get returns the member value for key, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil {
		return nil
	}
	for _, m := range v.Members {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Span returns the span of the value in its file.
func (v *Value) Span() diag.Span {
	if v == nil || v.File == nil || v.Node == nil {
		return diag.Span{Start: -1}
	}
	return diag.At(v.File.Src, v.Node.Start, v.Node.End)
}

// JSON encodes the effective value as standard JSON (object keys in merged order).
func (v *Value) JSON() []byte {
	var b bytes.Buffer
	v.appendJSON(&b)
	return b.Bytes()
}

func (v *Value) appendJSON(b *bytes.Buffer) {
	switch {
	case v == nil:
		b.WriteString("null")
	case v.Kind == jsonc.Object:
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(m.Key)
			b.Write(k)
			b.WriteByte(':')
			m.Value.appendJSON(b)
		}
		b.WriteByte('}')
	case v.Kind == jsonc.Array:
		b.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.appendJSON(b)
		}
		b.WriteByte(']')
	default:
		b.Write(v.Node.JSON())
	}
}

// Effective is the merged configuration of one kind.
type Effective struct {
	Kind Kind
	// Root is nil when no layer exists (every default applies).
	Root *Value
	// Layers are the files that were merged, global first.
	Layers []*File
	// Ignored are layers that exist but were not applied, with the reason.
	Ignored []IgnoredLayer

	// providers is models.json's providers, decoded once (Config.modelsProviders).
	providers     map[string]providerEntry
	providersErr  error
	providersDone bool
}

// IgnoredLayer is a file left out of the effective configuration.
type IgnoredLayer struct {
	File   *File
	Reason string
}

// JSON returns the effective document as standard JSON ("{}" when no layer exists).
func (e *Effective) JSON() []byte {
	if e.Root == nil {
		return []byte("{}")
	}
	return e.Root.JSON()
}

// Effective merges the global and (trusted) project layers of a JSON kind with the merge rules
// declared in the schema. Layers are validated first: a layer with errors, in a foreign
// dialect or under a legacy name is left out (and listed in Ignored).
func (c *Config) Effective(k Kind) (*Effective, error) {
	if e, ok := c.effective[k]; ok {
		return e, nil // the files do not change once loaded: merge each kind once
	}
	e := &Effective{Kind: k}
	defer func() {
		if c.effective == nil {
			c.effective = map[Kind]*Effective{}
		}
		c.effective[k] = e
	}()
	for _, scope := range []Scope{Global, Project} {
		for _, f := range c.Files {
			if f.Kind != k || f.Scope != scope {
				continue
			}
			c.checkFile(nil, f)
			switch {
			case f.Legacy:
				e.Ignored = append(e.Ignored, IgnoredLayer{f, "legacy file name (pigo reads " + FileName(k) + ")"})
			case f.Dialect != "":
				e.Ignored = append(e.Ignored, IgnoredLayer{f, "written in another extension's format (" + f.Dialect + ")"})
			case scope == Project && !c.Trusted:
				e.Ignored = append(e.Ignored, IgnoredLayer{f, "the project is not trusted"})
			case !f.Applied || f.Root == nil || (f.Diags.HasErrors() && !lenient(k)):
				// A sandbox, lsp or other file with errors is left out whole (fail closed, as
				// the seed refuses an invalid sandbox.json or lsp.json). settings.json is read as
				// pi and the seed read it: a wrong entry is skipped, the rest applies.
				e.Ignored = append(e.Ignored, IgnoredLayer{f, "the file has errors (see pigo check)"})
			default:
				e.Layers = append(e.Layers, f)
			}
		}
	}
	m := merger{kind: k}
	for _, f := range e.Layers {
		v := m.wrap(f.Root, f)
		if e.Root == nil {
			e.Root = v
			if f.Scope == Project {
				m.dropGlobalOnly(e.Root)
			}
			continue
		}
		e.Root = m.merge(e.Root, v, "", RuleDeep)
	}
	return e, nil
}

// merger merges layers of one kind with the rules of merge_rules.json (generated from the
// schema's @merge attributes).
type merger struct{ kind Kind }

// rule returns the declared rule of a field, trying the exact path and then the map form.
func (m *merger) rule(parent, key string) (path, rule string) {
	path = key
	if parent != "" {
		path = parent + "." + key
	}
	if r := mergeRule(m.kind, path); r != "" {
		return path, r
	}
	star := "*"
	if parent != "" {
		star = parent + ".*"
	}
	if r := mergeRule(m.kind, star); r != "" {
		return star, r
	}
	return path, ""
}

// wrap turns one layer's node into a Value (rule "only").
func (m *merger) wrap(n *jsonc.Node, f *File) *Value {
	v := &Value{Kind: n.Kind, Node: n, File: f, Rule: RuleOnly}
	// Members by key: a scan per member made 40k keys quadratic, so a large object indexes them;
	// a small one (most) looks back through the few it has, without a map.
	var index map[string]*Member
	if len(n.Members) > 16 {
		index = make(map[string]*Member, len(n.Members))
	}
	if len(n.Members) > 0 {
		v.Members = make([]*Member, 0, len(n.Members))
	}
	for _, mem := range n.Members {
		// A repeated key keeps its last value, as JSON decoders do.
		child := m.wrap(mem.Value, f)
		var old *Member
		if index != nil {
			old = index[mem.Key]
		} else {
			for _, x := range v.Members {
				if x.Key == mem.Key {
					old = x
					break
				}
			}
		}
		if old != nil {
			child.Replaced = append(child.Replaced, old.Value)
			old.Value = child
			continue
		}
		nm := &Member{Key: mem.Key, Value: child}
		v.Members = append(v.Members, nm)
		if index != nil {
			index[mem.Key] = nm
		}
	}
	if len(n.Elems) > 0 {
		v.Elems = make([]*Value, 0, len(n.Elems))
	}
	for _, e := range n.Elems {
		v.Elems = append(v.Elems, m.wrap(e, f))
	}
	return v
}

// dropGlobalOnly removes the @merge(global) keys from a project-only document.
func (m *merger) dropGlobalOnly(v *Value) {
	if v.Kind != jsonc.Object {
		return
	}
	kept := v.Members[:0]
	for _, mem := range v.Members {
		if _, r := m.rule("", mem.Key); r == RuleGlobal {
			continue
		}
		kept = append(kept, mem)
	}
	v.Members = kept
}

// merge layers over onto base at the field path (dotted) whose declared (or default) rule is
// rule.
func (m *merger) merge(base, over *Value, path string, rule string) *Value {
	switch {
	case rule == RuleGlobal:
		out := *base
		out.Rule = RuleGlobal
		out.Replaced = append([]*Value{over}, base.Replaced...) // shown as ignored in blame
		return &out
	case base.Kind == jsonc.Object && over.Kind == jsonc.Object && (rule == RuleDeep || rule == RuleEntries || rule == "" || rule == RuleOnly):
		out := &Value{Kind: jsonc.Object, Node: over.Node, File: over.File, Rule: RuleDeep}
		if rule == RuleEntries {
			out.Rule = RuleEntries
		}
		for _, bm := range base.Members {
			out.Members = append(out.Members, &Member{Key: bm.Key, Value: bm.Value})
		}
		for _, om := range over.Members {
			fpath, frule := m.rule(path, om.Key)
			if rule == RuleEntries {
				frule = RuleReplace
			}
			if frule == "" {
				frule = defaultRule(om.Value)
			}
			found := false
			for _, mm := range out.Members {
				if mm.Key == om.Key {
					mm.Value = m.merge(mm.Value, om.Value, fpath, frule)
					found = true
				}
			}
			if !found {
				if frule == RuleGlobal {
					continue
				}
				out.Members = append(out.Members, &Member{Key: om.Key, Value: om.Value})
			}
		}
		out.Replaced = []*Value{base}
		return out
	case rule == RuleOverride && base.Kind == jsonc.Object && over.Kind == jsonc.Object:
		out := &Value{Kind: jsonc.Object, Node: over.Node, File: over.File, Rule: RuleOverride}
		for _, bm := range base.Members {
			out.Members = append(out.Members, &Member{Key: bm.Key, Value: bm.Value})
		}
		for _, om := range over.Members {
			var cur *Member
			for _, mm := range out.Members {
				if mm.Key == om.Key {
					cur = mm
				}
			}
			switch {
			case cur == nil:
				out.Members = append(out.Members, &Member{Key: om.Key, Value: om.Value})
			case om.Value.Kind == jsonc.Object && isOverride(om.Value.Node) && cur.Value.Kind == jsonc.Object:
				cur.Value = m.overrideEntry(cur.Value, om.Value)
			default:
				r := *om.Value
				r.Rule = RuleReplace
				r.Replaced = append([]*Value{cur.Value}, cur.Value.Replaced...)
				cur.Value = &r
			}
		}
		out.Replaced = []*Value{base}
		return out
	case base.Kind == jsonc.Array && over.Kind == jsonc.Array && (rule == RulePrepend || rule == RuleAppend || rule == RuleUnion):
		out := &Value{Kind: jsonc.Array, Node: over.Node, File: over.File, Rule: rule}
		switch rule {
		case RulePrepend:
			out.Elems = append(append(out.Elems, over.Elems...), base.Elems...)
		case RuleAppend:
			out.Elems = append(append(out.Elems, base.Elems...), over.Elems...)
		case RuleUnion:
			out.Elems = append(out.Elems, base.Elems...)
			for _, e := range over.Elems {
				dup := false
				for _, x := range out.Elems {
					dup = dup || bytes.Equal(x.JSON(), e.JSON())
				}
				if !dup {
					out.Elems = append(out.Elems, e)
				}
			}
		}
		out.Replaced = []*Value{base}
		return out
	}
	out := *over
	out.Rule = RuleReplace
	out.Replaced = append([]*Value{base}, base.Replaced...)
	return &out
}

// overrideEntry applies a project override entry (no command, url or type) to a global
// mcpServers entry: enabled, exposure and toolExposure replace the global values, the rest of
// the global entry stays. An override that sets other keys is ignored whole, as pi ignores it
// (check reports it).
func (m *merger) overrideEntry(base, over *Value) *Value {
	for _, om := range over.Members {
		if !slices.Contains(mcpOverrideKeys, om.Key) {
			return base
		}
	}
	out := &Value{Kind: jsonc.Object, Node: base.Node, File: base.File, Rule: RuleOverride}
	for _, bm := range base.Members {
		out.Members = append(out.Members, &Member{Key: bm.Key, Value: bm.Value})
	}
	for _, om := range over.Members {
		found := false
		for _, mm := range out.Members {
			if mm.Key == om.Key {
				r := *om.Value
				r.Rule = RuleReplace
				r.Replaced = append([]*Value{mm.Value}, mm.Value.Replaced...)
				mm.Value, found = &r, true
			}
		}
		if !found {
			out.Members = append(out.Members, &Member{Key: om.Key, Value: om.Value})
		}
	}
	out.Replaced = []*Value{base}
	return out
}

func defaultRule(v *Value) string {
	if v.Kind == jsonc.Object {
		return RuleDeep
	}
	return RuleReplace
}

// Leaf is one effective leaf for `pigo config blame`.
type Leaf struct {
	Path     string
	Value    *Value
	Rule     string
	Replaced []*Value
}

// Leaves lists the effective leaves in document order: scalars, empty containers, and the
// elements of arrays. The leaves of an array or object that replaced a lower layer's whole
// value (an array under "replace", an lsp.json server replaced by id) carry that replacement:
// its rule and the values it replaced, so blame shows what was dropped.
func (e *Effective) Leaves() []Leaf {
	var out []Leaf
	if e.Root == nil {
		return out
	}
	var walk func(path string, v *Value, inherited string, inhRepl []*Value)
	walk = func(path string, v *Value, inherited string, inhRepl []*Value) {
		rule := v.Rule
		if (rule == RuleOnly || rule == "") && inherited != "" {
			rule = inherited
		}
		container := v.Kind == jsonc.Object && len(v.Members) > 0 || v.Kind == jsonc.Array && len(v.Elems) > 0
		if container && v.Rule == RuleReplace && len(v.Replaced) > 0 {
			inherited, inhRepl = RuleReplace, v.Replaced
		}
		switch {
		case v.Kind == jsonc.Object && len(v.Members) > 0:
			// Values inside an element of a combined array came in by that array's rule.
			inh := ""
			if v.Rule == RuleOnly || v.Rule == RuleReplace {
				inh = inherited
			}
			for _, m := range v.Members {
				walk(joinKey(path, m.Key), m.Value, inh, inhRepl)
			}
		case v.Kind == jsonc.Array && len(v.Elems) > 0:
			inh := ""
			switch {
			case v.Rule == RulePrepend || v.Rule == RuleAppend || v.Rule == RuleUnion:
				inh, inhRepl = v.Rule, nil
			case v.Rule == RuleOnly || v.Rule == RuleReplace:
				inh = inherited
			}
			for i, el := range v.Elems {
				walk(path+"["+strconv.Itoa(i)+"]", el, inh, inhRepl)
			}
		default:
			repl := v.Replaced
			if len(repl) == 0 && len(inhRepl) > 0 {
				repl = inhRepl
			}
			out = append(out, Leaf{Path: path, Value: v, Rule: rule, Replaced: repl})
		}
	}
	walk("", e.Root, "", nil)
	return out
}

// Lookup finds the effective value at a dotted path (a.b[0].c; keys with dots in ["..."]).
func (e *Effective) Lookup(path []PathStep) *Value {
	if e.Root == nil {
		return nil
	}
	v := e.Root
	for _, st := range path {
		switch {
		case st.IsIndex:
			if v.Kind != jsonc.Array || st.Index < 0 || st.Index >= len(v.Elems) {
				return nil
			}
			v = v.Elems[st.Index]
		default:
			v = v.Get(st.Key)
			if v == nil {
				return nil
			}
		}
	}
	return v
}

// PathStep is one step of a config path.
type PathStep struct {
	Key     string
	Index   int
	IsIndex bool
}

func joinKey(path, key string) string {
	k := key
	for _, r := range key {
		if r == '.' || r == '[' || r == ']' || r == '"' || r == ' ' {
			b, _ := json.Marshal(key)
			k = "[" + string(b) + "]"
			if path == "" {
				return k
			}
			return path + k
		}
	}
	if path == "" {
		return k
	}
	return path + "." + k
}
