package codemode

//go:generate env UPDATE_GOLDEN=1 go test -run TestShippedTypesFresh .

import (
	_ "embed"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/lazy"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Decl is what a callable tool contributes to the declarations: its name, description and
// the parameter and structured-output JSON Schemas.
type Decl struct {
	Name, Description  string
	Parameters, Output []byte
}

// Declarations renders the script-side TypeScript the seed puts in the tool description: one
// `call` overload per callable tool (parameters and result typed from the schemas), the
// fallback overload, then ALL_TOOLS, fs, CallFailedError, text, image, exit, store and sleep.
func Declarations(tools []Decl) string { return declarations(tools, false) }

// declarations adds, with discover, the discovery functions after ALL_TOOLS (discover.go).
func declarations(tools []Decl, discover bool) string {
	var lines []string
	for _, t := range tools {
		doc := ""
		if summary := strings.TrimSpace(strings.SplitN(t.Description, "\n", 2)[0]); summary != "" {
			doc = "/** " + summary + " */\n"
		}
		lines = append(lines, doc+declaration(t))
	}
	lines = append(lines,
		"declare function call(name: string, args?: unknown): Promise<unknown>;",
		"declare const ALL_TOOLS: Array<{ name: string; description?: string }>;")
	if discover {
		lines = append(lines, discoveryDecls...)
	}
	lines = append(lines,
		"declare const fs: {\n  read(path: string): Promise<string>;\n  write(path: string, content: string): Promise<void>;\n};",
		`declare class CallFailedError extends Error { readonly name: "CallFailedError"; }`,
		"declare function text(value: unknown): void;",
		"declare function image(value: unknown): void;",
		"declare function exit(): void;",
		"declare const store: { set(key: string, value: unknown): void; get(key: string): unknown; list(): string[] };",
		"declare function sleep(seconds: number): Promise<void>;",
	)
	return strings.Join(lines, "\n")
}

// Describe is the codemode tool description: the declared preamble, then the declarations
// in a ```ts block.
func Describe(preamble string, tools []Decl) string { return describe(preamble, tools, false) }

func describe(preamble string, tools []Decl, discover bool) string {
	return preamble + "\n\n```ts\n" + declarations(tools, discover) + "\n```"
}

// declaration is a tool's call() overload.
func declaration(t Decl) string {
	return "declare function call(name: " + jsString(t.Name) + ", args: " + schemaType(t.Parameters) + "): Promise<" + schemaType(t.Output) + ">;"
}

// schemaType is tsType of a raw schema: from the table generated for the shipped toolsets'
// schemas (shippedTypes) when raw is one of them, rendered otherwise. A session with codemode
// rendered the ~19 callable tools' schemas again at every start (each parsed, ~0.09 ms of
// toolrun.New); the rendering is a pure function of the bytes, so the table's answer is the
// same for any equal schema, whoever declares it.
func schemaType(raw []byte) string {
	if s, ok := shippedType(raw); ok {
		return s
	}
	return renderType(raw)
}

// renderType renders raw's TypeScript type.
func renderType(raw []byte) string { return tsType(schemaOf(raw), "") }

// typesTSV is every shipped parameters and output schema with its TypeScript type, sorted
// by schema: a line SCHEMA \t N, then the type's N lines (compact JSON has no tabs or
// newlines; a type spans lines). Generated from the catalogue at `go generate` time;
// TestShippedTypesFresh renders it again and compares. One embedded string: the lookups touch
// a few contiguous pages, and the types are substrings of it.
//
//go:embed types.tsv
var typesTSV string

// typeEntry is one schema of typesTSV and its TypeScript type.
type typeEntry struct{ schema, ts string }

// shippedTypes indexes typesTSV (built on first use: one pass over ~60 KB).
var shippedTypes = lazy.Value[[]typeEntry]{New: func() []typeEntry {
	var out []typeEntry
	for rest := typesTSV; len(rest) > 0; {
		var head string
		head, rest, _ = strings.Cut(rest, "\n")
		schema, count, _ := strings.Cut(head, "\t")
		n, err := strconv.Atoi(count)
		if err != nil {
			panic("codemode: types.tsv: " + err.Error())
		}
		end := 0
		for range n {
			k := strings.IndexByte(rest[end:], '\n')
			end += k + 1
		}
		out = append(out, typeEntry{schema, rest[:max(end-1, 0)]})
		rest = rest[end:]
	}
	return out
}}

// shippedType looks raw up in shippedTypes.
func shippedType(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	ts := shippedTypes.Get()
	i := sort.Search(len(ts), func(i int) bool { return ts[i].schema >= string(raw) })
	if i == len(ts) || ts[i].schema != string(raw) {
		return "", false
	}
	return ts[i].ts, true
}

func schemaOf(raw []byte) *toolrun.Value {
	if len(raw) == 0 {
		return nil
	}
	v, err := toolrun.ParseValue(raw)
	if err != nil {
		return nil
	}
	return v
}

var identRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) }}

// tsType is the seed's JSON Schema → TypeScript rendering: const, enum, anyOf, the simple
// types, arrays and objects; anything else is `unknown` rather than a wrong type.
func tsType(s *toolrun.Value, indent string) string {
	if s == nil || s.Kind != toolrun.Object {
		return "unknown"
	}
	if c := member(s, "const"); c != nil {
		return literal(c)
	}
	if e := s.Get("enum"); e != nil && e.Kind == toolrun.Array && len(e.Arr) > 0 {
		parts := make([]string, len(e.Arr))
		for i, x := range e.Arr {
			parts[i] = literal(x)
		}
		return strings.Join(parts, " | ")
	}
	if a := s.Get("anyOf"); a != nil && a.Kind == toolrun.Array && len(a.Arr) > 0 {
		parts := make([]string, len(a.Arr))
		for i, x := range a.Arr {
			parts[i] = tsType(x, indent)
		}
		return strings.Join(parts, " | ")
	}
	t := s.Get("type")
	if t != nil && t.Kind == toolrun.Array && len(t.Arr) > 0 {
		// A type list is what TypeBox writes as anyOf: render it as that union.
		parts := make([]string, len(t.Arr))
		for i, x := range t.Arr {
			c := s.Clone()
			c.Set("type", x)
			parts[i] = tsType(c, indent)
		}
		return strings.Join(parts, " | ")
	}
	if t == nil || t.Kind != toolrun.String {
		return "unknown"
	}
	switch t.Str {
	case "string":
		return "string"
	case "number", "integer":
		return "number"
	case "boolean":
		return "boolean"
	case "null":
		return "null"
	case "array":
		return "Array<" + tsType(s.Get("items"), indent) + ">"
	case "object":
		props := s.Get("properties")
		if props == nil || props.Kind != toolrun.Object || len(props.Obj) == 0 {
			return "Record<string, unknown>"
		}
		required := map[string]bool{}
		if r := s.Get("required"); r != nil && r.Kind == toolrun.Array {
			for _, x := range r.Arr {
				if x.Kind == toolrun.String {
					required[x.Str] = true
				}
			}
		}
		lines := make([]string, 0, len(props.Obj))
		for _, m := range props.Obj {
			opt := "?"
			if required[m.Key] {
				opt = ""
			}
			name := m.Key
			if !identRe.Get().MatchString(name) {
				name = jsString(name)
			}
			lines = append(lines, indent+"  "+name+opt+": "+tsType(m.Value, indent+"  ")+";")
		}
		return "{\n" + strings.Join(lines, "\n") + "\n" + indent + "}"
	}
	return "unknown"
}

// member returns key's value when the object has the key (even when the value is null).
func member(v *toolrun.Value, key string) *toolrun.Value {
	for _, m := range v.Obj {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// literal is the seed's literal(): JSON for strings, String(value) for the rest.
func literal(v *toolrun.Value) string {
	switch v.Kind {
	case toolrun.String:
		return jsString(v.Str)
	case toolrun.Number:
		return toolrun.FormatNumber(v.Num)
	case toolrun.Bool:
		if v.Bool {
			return "true"
		}
		return "false"
	case toolrun.Null:
		return "null"
	case toolrun.Array:
		parts := make([]string, len(v.Arr))
		for i, x := range v.Arr {
			if x.Kind != toolrun.Null {
				parts[i] = literal(x)
			}
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}
