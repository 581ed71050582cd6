// Package catalog turns declaration documents (#Extension: the shipped toolsets/*.cue and
// commands/*.cue, and users' extension files) into the compact records the resolver needs, and
// serves the shipped ones without evaluating CUE at run time: catalog_gen.go (a static table)
// and schemas.tsv are generated from the CUE sources (go generate, or UPDATE_GOLDEN=1 go test
// ./internal/catalog) and a test fails when they drift from them. `pigo check` still validates
// the CUE sources fully.
package catalog

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/commands"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/toolsets"
)

//go:generate env UPDATE_GOLDEN=1 go test -run TestCatalogFresh .

// schemasTSV holds the shipped tools' schemas, one line per tool:
// FILE \t TOOL \t PARAMETERS \t OUTPUT (compact JSON has no tabs or newlines).
//
//go:embed schemas.tsv
var schemasTSV []byte

// Ext is one declaration file: an extension with its tools and commands.
type Ext struct {
	// File is the path shown to users (toolsets/NAME.cue for shipped ones).
	File string `json:"file"`
	// Kind is "toolset" or "command" for shipped files, "extension" for users' files.
	Kind              string    `json:"kind"`
	Name              string    `json:"name"`
	Builtin           bool      `json:"builtin,omitempty"`
	FileIO            string    `json:"fileIo,omitempty"`
	OverridesBuiltins bool      `json:"overridesBuiltins,omitempty"`
	Tools             []Tool    `json:"tools,omitempty"`
	Commands          []Command `json:"commands,omitempty"`
	// Src is the source text the offsets point into (not serialized).
	Src []byte `json:"-"`
}

// Tool is one declared tool. Offsets are byte offsets of the values in the source (-1: none).
type Tool struct {
	Name             string   `json:"name"`
	Label            string   `json:"label,omitempty"`
	Description      string   `json:"description,omitempty"`
	PromptSnippet    string   `json:"promptSnippet,omitempty"`
	PromptGuidelines []string `json:"promptGuidelines,omitempty"`
	Structured       bool     `json:"structured,omitempty"`
	CodemodeOnly     bool     `json:"codemodeOnly,omitempty"`
	Unit             string   `json:"unit,omitempty"`
	When             string   `json:"when,omitempty"`
	Exec             []string `json:"exec,omitempty"`
	// Parameters and Output are the declared JSON Schemas, as compact JSON (Output only when
	// the tool declares a structured output). The shipped ones live in schemas.tsv, beside
	// catalog.json, so that loading the catalogue decodes no schema JSON.
	Parameters json.RawMessage `json:"-"`
	Output     json.RawMessage `json:"-"`
	NameOff    int             `json:"nameOff"`
	NameEnd    int             `json:"nameEnd"`
	WhenOff    int             `json:"whenOff"`
	WhenEnd    int             `json:"whenEnd"`
}

// Command is one declared slash command.
type Command struct {
	Name         string   `json:"name"`
	Description  string   `json:"description,omitempty"`
	ArgumentHint string   `json:"argumentHint,omitempty"`
	When         string   `json:"when,omitempty"`
	Match        string   `json:"match,omitempty"`
	Hidden       bool     `json:"hidden,omitempty"`
	Prompt       string   `json:"prompt,omitempty"`
	Run          []string `json:"run,omitempty"`
	NameOff      int      `json:"nameOff"`
	NameEnd      int      `json:"nameEnd"`
	WhenOff      int      `json:"whenOff"`
	WhenEnd      int      `json:"whenEnd"`
}

// Decode reads an #Extension document. It is lenient: a document that failed validation still
// yields what it can (the caller decides whether to use it).
func Decode(root *jsonc.Node, file, kind string) Ext {
	e := Ext{File: file, Kind: kind}
	if root == nil || root.Kind != jsonc.Object {
		return e
	}
	e.Name = str(root.Get("name"))
	if e.Name == "" {
		base := file[strings.LastIndex(file, "/")+1:]
		if i := strings.Index(base, "."); i > 0 {
			base = base[:i]
		}
		e.Name = base
	}
	e.Builtin = boolean(root.Get("builtin"))
	e.FileIO = str(root.Get("fileIo"))
	e.OverridesBuiltins = boolean(root.Get("overridesBuiltins"))
	if ts := root.Get("tools"); ts != nil {
		for _, t := range ts.Elems {
			if t.Kind != jsonc.Object {
				continue
			}
			tool := Tool{Name: str(t.Get("name")), Label: str(t.Get("label")), Description: str(t.Get("description")),
				PromptSnippet: str(t.Get("promptSnippet")), PromptGuidelines: strs(t.Get("promptGuidelines")),
				Structured: t.Get("output") != nil, CodemodeOnly: boolean(t.Get("codemodeOnly")), Unit: str(t.Get("unit")),
				When: str(t.Get("when")), Exec: strs(t.Get("exec"))}
			if p := t.Get("parameters"); p != nil {
				tool.Parameters = compact(p.JSON())
			}
			if o := t.Get("output"); o != nil {
				tool.Output = compact(o.JSON())
			}
			tool.NameOff, tool.NameEnd = span(t.Get("name"), t)
			tool.WhenOff, tool.WhenEnd = span(t.Get("when"), nil)
			e.Tools = append(e.Tools, tool)
		}
	}
	if cs := root.Get("commands"); cs != nil {
		for _, c := range cs.Elems {
			if c.Kind != jsonc.Object {
				continue
			}
			cmd := Command{Name: str(c.Get("name")), Description: str(c.Get("description")), ArgumentHint: str(c.Get("argumentHint")),
				When: str(c.Get("when")), Match: str(c.Get("match")), Hidden: boolean(c.Get("hidden")),
				Prompt: str(c.Get("prompt")), Run: strs(c.Get("run"))}
			cmd.NameOff, cmd.NameEnd = span(c.Get("name"), c)
			cmd.WhenOff, cmd.WhenEnd = span(c.Get("when"), nil)
			e.Commands = append(e.Commands, cmd)
		}
	}
	return e
}

func compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// SchemasTSV renders the schemas of es in the schemas.tsv format.
func SchemasTSV(es []Ext) []byte {
	var b bytes.Buffer
	for _, e := range es {
		for _, t := range e.Tools {
			if len(t.Parameters) == 0 && len(t.Output) == 0 {
				continue
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", e.File, t.Name, t.Parameters, t.Output)
		}
	}
	return b.Bytes()
}

// attachSchemas fills the shipped tools' schemas from schemas.tsv by slicing (no decoding).
func attachSchemas(es []Ext, tsv []byte) error {
	// schemas.tsv is generated in the catalogue's order, so each line's tool is found by
	// walking on from the last one (no index map, no split copies: the map and bytes.Split
	// were 1% of pigo tools' samples); a line out of that order is looked for from the start.
	i, j := 0, 0 // the next tool to look at: es[i].Tools[j]
	find := func(file, tool []byte) *Tool {
		for pass := 0; pass < 2; pass++ {
			for ; i < len(es); i, j = i+1, 0 {
				if es[i].File != string(file) {
					continue
				}
				for ; j < len(es[i].Tools); j++ {
					if es[i].Tools[j].Name == string(tool) {
						t := &es[i].Tools[j]
						j++
						return t
					}
				}
			}
			i, j = 0, 0
		}
		return nil
	}
	rest := tsv
	for n := 1; len(rest) > 0; n++ {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if len(line) == 0 {
			continue
		}
		var f [4][]byte
		k := 0
		for ; k < 3; k++ {
			var ok bool
			if f[k], line, ok = bytes.Cut(line, []byte("\t")); !ok {
				break
			}
		}
		if k < 3 || bytes.IndexByte(line, '\t') >= 0 {
			return fmt.Errorf("catalog: schemas.tsv:%d: want 4 fields, got %d", n, k+1+bytes.Count(line, []byte("\t")))
		}
		f[3] = line
		t := find(f[0], f[1])
		if t == nil {
			return fmt.Errorf("catalog: schemas.tsv:%d: no tool %s in %s", n, f[1], f[0])
		}
		if len(f[2]) > 0 {
			t.Parameters = f[2]
		}
		if len(f[3]) > 0 {
			t.Output = f[3]
		}
	}
	return nil
}

func span(n, fallback *jsonc.Node) (int, int) {
	if n == nil {
		n = fallback
	}
	if n == nil {
		return -1, -1
	}
	return n.Start, n.End
}

func str(n *jsonc.Node) string {
	if n == nil || n.Kind != jsonc.String {
		return ""
	}
	return n.Str
}

func boolean(n *jsonc.Node) bool { return n != nil && n.Kind == jsonc.Bool && n.Bool }

func strs(n *jsonc.Node) []string {
	if n == nil || n.Kind != jsonc.Array {
		return nil
	}
	var out []string
	for _, e := range n.Elems {
		if e.Kind == jsonc.String {
			out = append(out, e.Str)
		}
	}
	return out
}

var (
	once    sync.Once
	entries []Ext
	loadErr error
)

// Shipped returns the shipped declarations in load order: toolsets (toolsets.Order), then
// commands (commands.Order). The slice is shared: do not modify it.
func Shipped() ([]Ext, error) {
	once.Do(func() {
		entries = shipped
		if err := attachSchemas(entries, schemasTSV); err != nil {
			loadErr = err
			return
		}
		for i := range entries {
			e := &entries[i]
			var err error
			// The sources as embedded, without a copy (toolsets.Source); FS.ReadFile only
			// for a file without its var, which TestSourceIsFS rules out.
			if name, ok := strings.CutPrefix(e.File, "toolsets/"); ok {
				if e.Src = toolsets.Source(name); e.Src == nil {
					e.Src, err = toolsets.FS.ReadFile(name)
				}
			} else {
				name := strings.TrimPrefix(e.File, "commands/")
				if e.Src = commands.Source(name); e.Src == nil {
					e.Src, err = commands.FS.ReadFile(name)
				}
			}
			if err != nil {
				loadErr = fmt.Errorf("catalog: %v", err)
			}
		}
	})
	return entries, loadErr
}
