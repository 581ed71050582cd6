package config

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"cuelang.org/go/cue"

	"github.com/pigo-agent/pigo/internal/cueschema"
)

// generateMergeRules walks every JSON kind's definition and records its @merge attributes.
func generateMergeRules(t *testing.T) []byte {
	s, err := cueschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	out := map[Kind]map[string]string{}
	var walk func(k Kind, v cue.Value, path string, depth int)
	walk = func(k Kind, v cue.Value, path string, depth int) {
		if depth > 8 || !v.Exists() {
			return
		}
		if v.IncompleteKind()&cue.ListKind != 0 {
			walk(k, s.Elem(v), path+"[]", depth+1)
		}
		if v.IncompleteKind()&cue.StructKind == 0 || v.IncompleteKind() == cue.TopKind {
			return
		}
		st := v.Unify(s.Context().CompileString("{}"))
		it, err := st.Fields(cue.Optional(true))
		if err != nil {
			return
		}
		for it.Next() {
			sel := it.Selector()
			if !sel.IsString() {
				continue
			}
			p := sel.Unquoted()
			if path != "" {
				p = path + "." + p
			}
			f := it.Value()
			if r := cueschema.MergeRule(f); r != "" {
				if out[k] == nil {
					out[k] = map[string]string{}
				}
				out[k][p] = r
			}
			walk(k, f, p, depth+1)
		}
		// Map values ([string]: T) are walked as "*".
		if any := st.LookupPath(cue.MakePath(cue.AnyString)); any.Exists() {
			p := "*"
			if path != "" {
				p = path + ".*"
			}
			walk(k, any, p, depth+1)
		}
	}
	for _, ki := range jsonKinds {
		walk(ki.kind, s.Def(ki.def), "", 0)
	}
	walk(WebSearch, s.Def(Definition(WebSearch)), "", 0)
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestMergeRulesFresh(t *testing.T) {
	want := generateMergeRules(t)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile("merge_rules.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(want, mergeRulesJSON) {
		t.Fatalf("merge_rules.json is stale: run UPDATE_GOLDEN=1 go test ./config -run TestMergeRulesFresh\nwant:\n%s", want)
	}
	// The rules D4 names must all be there.
	for _, c := range []struct {
		k          Kind
		path, rule string
	}{
		{Settings, "packages", RulePrepend}, {Settings, "defaultProjectTrust", RuleGlobal}, {Settings, "httpProxy", RuleGlobal},
		{Settings, "personalExtensions.fileIoByModel", RulePrepend}, {Settings, "personalExtensions.disabledTools", RuleAppend},
		{Sandbox, "fs.extraWritablePaths", RuleAppend}, {Sandbox, "approvalRules", RuleAppend},
		{LSP, "servers", RuleEntries}, {LSP, "watch.ignore", RuleUnion},
	} {
		if got := mergeRule(c.k, c.path); got != c.rule {
			t.Errorf("%s %s: rule %q, want %q", c.k, c.path, got, c.rule)
		}
	}
	if strings.Contains(string(mergeRulesJSON), `"[]`) {
		t.Log("note: a rule sits inside an array element")
	}
}

// TestReadMergeRulesAsJSON: readMergeRules reads merge_rules.json, and compact, spaced and
// empty variants of it, as json.Unmarshal does, and refuses what it does not read that way
// (escapes, non-ASCII, other values, duplicate kinds, trailing text, broken syntax).
func TestReadMergeRulesAsJSON(t *testing.T) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, mergeRulesJSON); err != nil {
		t.Fatal(err)
	}
	spaced := strings.NewReplacer(":", " :\r\n\t", ",", " , ", "{", "{ ", "}", " }").Replace(string(mergeRulesJSON))
	for _, in := range []string{string(mergeRulesJSON), compact.String(), spaced, `{}`, ` { } `, `{"lsp": {}}`, `{"a": {"x": ""}}`} {
		got, ok := readMergeRules([]byte(in))
		var want map[Kind]map[string]string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("readMergeRules(%q) = %v, %v; json.Unmarshal: %v", in, got, ok, want)
		}
	}
	for _, in := range []string{`{"a": {"x": "\u0041"}}`, `{"é": {}}`, `{"a": {"x": 1}}`, `{"a": "x"}`, `{"a": {}, "a": {}}`,
		`{"a": {}} x`, `{"a": {"x": "y",}}`, `{"a": {"x" "y"}}`, `{"a": {"x": "y"`, `[]`, ``, `{"a": null}`} {
		if got, ok := readMergeRules([]byte(in)); ok {
			t.Errorf("readMergeRules(%q) = %v, want a refusal", in, got)
		}
	}
}
