package config

import (
	_ "embed"
	"encoding/json"
	"sync"
)

// merge_rules.json is the table of @merge attributes of the schema, by kind and field path
// ("personalExtensions.disabledTools", "servers", "watch.ignore"; "*" stands for any key of a
// map, "[]" for the elements of an array). It is generated from schema/*.cue and a test fails
// when it drifts (UPDATE_GOLDEN=1 go test ./config -run TestMergeRulesFresh), so that merging
// layers at session start needs no CUE evaluation while the schema stays the one source.
//
//go:embed merge_rules.json
var mergeRulesJSON []byte

var (
	mergeRulesOnce sync.Once
	mergeRules     map[Kind]map[string]string
)

// mergeRule returns the declared rule of the field at path in kind k, or "" for the default.
func mergeRule(k Kind, path string) string {
	mergeRulesOnce.Do(func() {
		if err := json.Unmarshal(mergeRulesJSON, &mergeRules); err != nil {
			panic("merge_rules.json: " + err.Error()) // embedded data, tested
		}
	})
	return mergeRules[k][path]
}
