package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	cuejs "cuelang.org/go/encoding/jsonschema"
	"github.com/google/go-cmp/cmp"

	"github.com/pigo-agent/pigo/internal/cueschema"
)

// definitions maps each kind to its CUE definition.
var definitions = map[string]string{
	"settings": "#Settings", "sandbox": "#Sandbox", "lsp": "#LSP", "models": "#Models",
	"spawn-agent": "#SpawnAgent", "proxy": "#Proxy", "openai-cost": "#OpenAICost",
	"web-search": "#WebSearch", "trust": "#Trust", "mcp": "#MCP", "agent": "#AgentFrontmatter",
	"prompt": "#PromptFrontmatter", "skill": "#SkillFrontmatter", "extension": "#Extension",
	// toolsets/*.cue and commands/*.cue are validated as extensions (check_test: one schema).
	"toolset": "#Extension", "command": "#Extension",
}

// generate builds the JSON Schema of one kind from the CUE schema and post-processes what the
// generator leaves awkward: it adds "$schema" and a title, and drops the always-true
// `prefixItems: [true]` that a non-empty list constraint ([_, ...]) turns into.
func generate(t *testing.T, kind string) []byte {
	t.Helper()
	s, err := cueschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	expr, err := cuejs.Generate(s.Def(definitions[kind]), nil)
	if err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	raw, err := json.Marshal(s.Context().BuildExpr(expr))
	if err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	v["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	v["title"] = fmt.Sprintf("pigo %s (%s)", kind, definitions[kind])
	simplify(v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// simplify removes allOf branches that accept everything ({"prefixItems": [true]}, true, {})
// and unwraps an allOf left with one branch.
func simplify(v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			simplify(x)
		}
		all, ok := v["allOf"].([]any)
		if !ok {
			return
		}
		var kept []any
		for _, b := range all {
			if trivial(b) {
				continue
			}
			kept = append(kept, b)
		}
		delete(v, "allOf")
		if len(kept) == 1 {
			if m, ok := kept[0].(map[string]any); ok {
				clash := false
				for k := range m {
					if _, has := v[k]; has {
						clash = true
					}
				}
				if !clash {
					for k, x := range m {
						v[k] = x
					}
					return
				}
			}
		}
		if len(kept) > 0 {
			v["allOf"] = kept
		}
	case []any:
		for _, x := range v {
			simplify(x)
		}
	}
}

func trivial(b any) bool {
	switch b := b.(type) {
	case bool:
		return b
	case map[string]any:
		if len(b) == 0 {
			return true
		}
		if p, ok := b["prefixItems"].([]any); ok && len(b) == 1 {
			for _, x := range p {
				if x != true {
					return false
				}
			}
			return true
		}
	}
	return false
}

// TestGeneratedUpToDate fails when schema/jsonschema/<kind>.json drifts from the CUE source.
// UPDATE_GOLDEN=1 regenerates the files.
func TestGeneratedUpToDate(t *testing.T) {
	if diff := cmp.Diff(slices.Sorted(mapsKeys(definitions)), slices.Sorted(slices.Values(Kinds))); diff != "" {
		t.Fatalf("kinds (-definitions +Kinds):\n%s", diff)
	}
	for _, kind := range Kinds {
		got := generate(t, kind)
		path := kind + ".json"
		if os.Getenv("UPDATE_GOLDEN") == "1" {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, ok := Get(kind)
		if !ok {
			t.Fatalf("%s missing", path)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s is out of date with the CUE schema; run UPDATE_GOLDEN=1 go test ./schema/jsonschema\n%s", path, cmp.Diff(string(want), string(got)))
		}
	}
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestShape checks what matters to an editor: a closed root object with "$schema" allowed,
// every "$ref" resolvable, and no subschema collapsed into "accept anything" except where the
// CUE schema says any value ({[string]: _}).
func TestShape(t *testing.T) {
	for _, kind := range Kinds {
		b, _ := Get(kind)
		var root map[string]any
		if err := json.Unmarshal(b, &root); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" || root["type"] != "object" || root["additionalProperties"] != false {
			t.Errorf("%s: root is not a closed draft 2020-12 object", kind)
		}
		if props, _ := root["properties"].(map[string]any); kind != "trust" && props["$schema"] == nil && kind != "agent" && kind != "prompt" && kind != "skill" {
			t.Errorf("%s: \"$schema\" is not allowed at the top", kind)
		}
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch v := v.(type) {
			case map[string]any:
				if r, ok := v["$ref"].(string); ok {
					name := strings.TrimPrefix(r, "#/$defs/")
					if defs, _ := root["$defs"].(map[string]any); defs[name] == nil {
						t.Errorf("%s: %s: dangling $ref %s", kind, path, r)
					}
				}
				if c, ok := v["const"]; ok {
					if m, ok := c.(map[string]any); ok && len(m) == 0 {
						t.Errorf("%s: %s: const {} (an open struct the generator mishandles)", kind, path)
					}
				}
				for k, x := range v {
					walk(path+"/"+k, x)
				}
			case []any:
				for i, x := range v {
					walk(fmt.Sprintf("%s/%d", path, i), x)
				}
			case bool:
				if v && !strings.HasSuffix(path, "/additionalProperties") {
					t.Errorf("%s: %s: a subschema accepts anything", kind, path)
				}
			}
		}
		walk("", root)
	}
}

// sample is one file of schema/testdata/{valid,invalid}: KIND.CATEGORY-NAME.json.
type sample struct {
	path, kind, category string
	doc                  any
}

func samples(t *testing.T, dir string) []sample {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no samples in %s", dir)
	}
	var out []sample
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		kind, rest, _ := strings.Cut(base, ".")
		if _, ok := definitions[kind]; !ok {
			continue // legacy-bwrap: not a kind with an editor schema
		}
		cat, _, _ := strings.Cut(rest, "-")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(stripComments(data), &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, sample{f, kind, cat, doc})
	}
	return out
}

var lineComment = regexp.MustCompile(`(?m)^\s*//.*$`)

func stripComments(b []byte) []byte { return lineComment.ReplaceAll(b, nil) }

// TestValidSamples: every valid sample satisfies its kind's JSON Schema.
func TestValidSamples(t *testing.T) {
	n := 0
	for _, s := range samples(t, "valid") {
		b, _ := Get(s.kind)
		var sch map[string]any
		json.Unmarshal(b, &sch)
		if errs := (&checker{root: sch}).check("", sch, s.doc); len(errs) > 0 {
			t.Errorf("%s: rejected by the JSON Schema:\n  %s", s.path, strings.Join(errs, "\n  "))
		}
		n++
	}
	t.Logf("%d valid samples accepted", n)
}

// TestInvalidSamples: every invalid sample whose error a JSON Schema can express (type, enum,
// required, unknown field, range, empty) is rejected.
func TestInvalidSamples(t *testing.T) {
	n := 0
	for _, s := range samples(t, "invalid") {
		switch s.category {
		case "type", "enum", "required", "unknown", "range", "empty":
		default:
			continue // foreign-dialect, legacy-flat: decided by the Go loader, not the schema
		}
		b, _ := Get(s.kind)
		var sch map[string]any
		json.Unmarshal(b, &sch)
		if errs := (&checker{root: sch}).check("", sch, s.doc); len(errs) == 0 {
			t.Errorf("%s: accepted by the JSON Schema", s.path)
		}
		n++
	}
	t.Logf("%d invalid samples rejected", n)
}

// checker is a small JSON Schema (draft 2020-12) subset validator, enough for the keywords the
// generator emits: type, enum, const, properties, required, additionalProperties,
// patternProperties, items, prefixItems, min/maxItems, minimum/maximum (also exclusive),
// min/maxLength, pattern, allOf, anyOf, oneOf, not and local $ref.
type checker struct{ root map[string]any }

func (c *checker) check(path string, schema any, v any) []string {
	switch s := schema.(type) {
	case bool:
		if !s {
			return []string{path + ": no value is allowed here"}
		}
		return nil
	case map[string]any:
		return c.object(path, s, v)
	}
	return []string{path + ": bad schema"}
}

func (c *checker) object(path string, s map[string]any, v any) []string {
	var errs []string
	fail := func(format string, a ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, a...)) }
	if r, ok := s["$ref"].(string); ok {
		defs, _ := c.root["$defs"].(map[string]any)
		errs = append(errs, c.check(path, defs[strings.TrimPrefix(r, "#/$defs/")], v)...)
	}
	if t, ok := s["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				types = append(types, x.(string))
			}
		}
		if !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
			fail("expected %s, got %s", strings.Join(types, " or "), typeOf(v))
		}
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return cmp.Equal(x, v) }) {
		fail("%v is not one of %v", v, e)
	}
	if cv, ok := s["const"]; ok && !cmp.Equal(cv, v) {
		fail("expected %v", cv)
	}
	if obj, ok := v.(map[string]any); ok {
		props, _ := s["properties"].(map[string]any)
		pats, _ := s["patternProperties"].(map[string]any)
		for _, r := range asList(s["required"]) {
			if _, ok := obj[r.(string)]; !ok {
				fail("missing required field %q", r)
			}
		}
		for _, k := range slices.Sorted(mapsKeysAny(obj)) {
			matched := false
			if ps, ok := props[k]; ok {
				matched = true
				errs = append(errs, c.check(path+"."+k, ps, obj[k])...)
			}
			for _, p := range slices.Sorted(mapsKeysAny(pats)) {
				if regexp.MustCompile(p).MatchString(k) {
					matched = true
					errs = append(errs, c.check(path+"."+k, pats[p], obj[k])...)
				}
			}
			if ap, ok := s["additionalProperties"]; ok && !matched {
				if ap == false {
					fail("unknown field %q", k)
				} else {
					errs = append(errs, c.check(path+"."+k, ap, obj[k])...)
				}
			}
		}
	}
	if arr, ok := v.([]any); ok {
		pre := asList(s["prefixItems"])
		for i, x := range arr {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i < len(pre):
				errs = append(errs, c.check(p, pre[i], x)...)
			case s["items"] != nil:
				errs = append(errs, c.check(p, s["items"], x)...)
			}
		}
		if m, ok := s["minItems"].(float64); ok && float64(len(arr)) < m {
			fail("expected at least %v items", m)
		}
		if m, ok := s["maxItems"].(float64); ok && float64(len(arr)) > m {
			fail("expected at most %v items", m)
		}
	}
	if n, ok := v.(float64); ok {
		if m, ok := s["minimum"].(float64); ok && n < m {
			fail("%v < minimum %v", n, m)
		}
		if m, ok := s["maximum"].(float64); ok && n > m {
			fail("%v > maximum %v", n, m)
		}
		if m, ok := s["exclusiveMinimum"].(float64); ok && n <= m {
			fail("%v <= exclusiveMinimum %v", n, m)
		}
		if m, ok := s["exclusiveMaximum"].(float64); ok && n >= m {
			fail("%v >= exclusiveMaximum %v", n, m)
		}
	}
	if str, ok := v.(string); ok {
		n := float64(len([]rune(str)))
		if m, ok := s["minLength"].(float64); ok && n < m {
			fail("shorter than %v", m)
		}
		if m, ok := s["maxLength"].(float64); ok && n > m {
			fail("longer than %v", m)
		}
		if p, ok := s["pattern"].(string); ok {
			if re, err := regexp.Compile(p); err == nil && !re.MatchString(str) {
				fail("%q does not match %s", str, p)
			}
		}
	}
	for _, b := range asList(s["allOf"]) {
		errs = append(errs, c.check(path, b, v)...)
	}
	if alts := asList(s["anyOf"]); len(alts) > 0 && !slices.ContainsFunc(alts, func(b any) bool { return len(c.check(path, b, v)) == 0 }) {
		fail("matches none of anyOf")
	}
	if one := asList(s["oneOf"]); len(one) > 0 {
		n := 0
		for _, b := range one {
			if len(c.check(path, b, v)) == 0 {
				n++
			}
		}
		if n != 1 {
			fail("matches %d of oneOf", n)
		}
	}
	if not, ok := s["not"]; ok && len(c.check(path, not, v)) == 0 {
		fail("matches a forbidden schema")
	}
	return errs
}

func asList(v any) []any { l, _ := v.([]any); return l }

func mapsKeysAny(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func hasType(v any, t string) bool {
	switch t {
	case "integer":
		n, ok := v.(float64)
		return ok && n == math.Trunc(n)
	case "number":
		_, ok := v.(float64)
		return ok
	}
	return typeOf(v) == t
}

func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}
