package config

import (
	"bytes"
	"encoding/json"
	"os"
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
