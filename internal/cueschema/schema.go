// Package cueschema evaluates pigo's CUE schema with the CUE library, for the three things that
// need CUE itself:
//
//   - Generate compiles the schema into the tables internal/validate walks (pigo does not link
//     CUE; its package initialisation alone cost every process milliseconds);
//   - the reference walker (Check): the walk of the CUE values that internal/validate's
//     compiled walk is tested against, file by file and value by value;
//   - Evaluate: a user's CUE extension file, evaluated against #Extension in the pigo-cue
//     helper process (see internal/cuehelper).
//
// The walker walks the document and the schema together: object keys are looked up in the
// schema (so an unknown key is found at any depth, with a "did you mean"), required fields are
// checked on their own (CUE hides them while other errors exist), and each scalar is unified
// with its field's constraint. All of CUE's error quirks are handled in translate.go.
package cueschema

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"cuelang.org/go/cue"

	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"

	"github.com/pigo-agent/pigo/schema"
)

// Schema is the compiled CUE schema. It is safe for use by one goroutine at a time.
type Schema struct {
	ctx  *cue.Context
	root cue.Value
	defs map[string]cue.Value
	// fields caches the field table of each struct seen, keyed by the schema value's position.
	fields map[cue.Value]*structInfo
	// owned holds the field-name signatures of the structs marked @pigo(owned).
	owned                  map[string]bool
	emptyStruct, emptyList cue.Value
	// Caches of the walk, keyed by schema values. Every value the walker steps to comes from
	// these caches, so the same schema place is the same cue.Value each time and the caches
	// hit: a fresh Unify per object made 10k declared tools take seconds and gigabytes.
	structs map[structKey]cue.Value
	lookups map[lookupKey]cue.Value
	allowed map[lookupKey]bool
	lists   map[cue.Value]listInfo
	kinds   map[cue.Value]cue.Kind
	plain   map[cue.Value]cue.Kind
	bare    map[cue.Kind]cue.Value
}

type structKey struct {
	sch cue.Value
	// keys is the signature of the object's keys when sch is a disjunction of structs (the
	// branch chosen depends on them), else "".
	keys string
}

type lookupKey struct {
	sch cue.Value
	key string
}

type listInfo struct {
	list, elem cue.Value
}

var (
	loadOnce sync.Once
	loaded   *Schema
	loadErr  error
)

// Load compiles the embedded schema once per process and returns it.
func Load() (*Schema, error) {
	loadOnce.Do(func() { loaded, loadErr = Compile(schema.FS) })
	return loaded, loadErr
}

// Compile compiles every *.cue file of fsys (one package) into a Schema.
func Compile(fsys fs.FS) (*Schema, error) {
	ctx := cuecontext.New()
	names, err := fs.Glob(fsys, "*.cue")
	if err != nil {
		return nil, err
	}
	inst := build.NewContext().NewInstance("schema", nil)
	for _, name := range names {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile("schema/"+name, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("schema: %v", err)
		}
		if err := inst.AddSyntax(f); err != nil {
			return nil, fmt.Errorf("schema: %v", err)
		}
	}
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("schema: %v", err)
	}
	s := &Schema{ctx: ctx, root: v, defs: map[string]cue.Value{}, fields: map[cue.Value]*structInfo{}, owned: map[string]bool{},
		emptyStruct: ctx.CompileString("{}"), emptyList: ctx.CompileString("[...]"),
		structs: map[structKey]cue.Value{}, lookups: map[lookupKey]cue.Value{}, allowed: map[lookupKey]bool{}, lists: map[cue.Value]listInfo{}, kinds: map[cue.Value]cue.Kind{}, plain: map[cue.Value]cue.Kind{}}
	s.collectOwned()
	return s, nil
}

// collectOwned records every definition that carries @pigo(owned) by the set of its field names:
// CUE keeps declaration attributes on a definition but not on the values that reference it.
func (s *Schema) collectOwned() {
	it, err := s.root.Fields(cue.Definitions(true))
	if err != nil {
		return
	}
	for it.Next() {
		if !it.Selector().IsDefinition() {
			continue
		}
		v := it.Value()
		for _, a := range v.Attributes(cue.DeclAttr) {
			if a.Name() == "pigo" && a.Contents() == "owned" {
				s.owned[signature(fieldNames(v))] = true
			}
		}
	}
}

func fieldNames(v cue.Value) []string {
	var names []string
	if it, err := v.Fields(cue.Optional(true)); err == nil {
		for it.Next() {
			if it.Selector().IsString() {
				names = append(names, it.Selector().Unquoted())
			}
		}
	}
	return names
}

func signature(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	return strings.Join(s, "\x00")
}

// Context returns the CUE context the schema was compiled in.
func (s *Schema) Context() *cue.Context { return s.ctx }

// Def returns the definition named name (with its leading '#'), or an error value.
func (s *Schema) Def(name string) cue.Value {
	if v, ok := s.defs[name]; ok {
		return v
	}
	v := s.root.LookupPath(cue.ParsePath(name))
	s.defs[name] = v
	return v
}

// Root returns the whole schema value.
func (s *Schema) Root() cue.Value { return s.root }

// structInfo is what the walker needs to know about one struct of the schema.
type structInfo struct {
	names    []string // declared regular fields, in schema order
	required []string
	owned    bool // @pigo(owned): a section only pigo reads
}

func (s *Schema) structInfo(v cue.Value) *structInfo {
	if si, ok := s.fields[v]; ok {
		return si
	}
	si := &structInfo{}
	for _, a := range v.Attributes(cue.DeclAttr) {
		if a.Name() == "pigo" && a.Contents() == "owned" {
			si.owned = true
		}
	}
	defer func() { si.owned = si.owned || s.owned[signature(si.names)] }()
	if it, err := v.Fields(cue.Optional(true)); err == nil {
		for it.Next() {
			sel := it.Selector()
			if !sel.IsString() {
				continue
			}
			name := sel.Unquoted()
			si.names = append(si.names, name)
			if sel.ConstraintType() == cue.RequiredConstraint {
				si.required = append(si.required, name)
			}
		}
	}
	s.fields[v] = si
	return si
}

// Attr returns the contents of the field attribute @key(...) of v, if present.
func Attr(v cue.Value, key string) (string, bool) {
	a := v.Attribute(key)
	if a.Err() != nil {
		return "", false
	}
	return a.Contents(), true
}

// DocOf returns the doc comment text of a schema value.
func DocOf(v cue.Value) string {
	var out string
	for _, cg := range v.Doc() {
		out += cg.Text()
	}
	return out
}
