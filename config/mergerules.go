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
		var ok bool
		if mergeRules, ok = readMergeRules(mergeRulesJSON); ok {
			return
		}
		if err := json.Unmarshal(mergeRulesJSON, &mergeRules); err != nil {
			panic("merge_rules.json: " + err.Error()) // embedded data, tested
		}
	})
	return mergeRules[k][path]
}

// readMergeRules reads merge_rules.json as json.Unmarshal does into a map of maps, for the file
// as generated: objects of objects of strings without escapes. It says false for anything
// else (json.Unmarshal then reads it). encoding/json built its decoders for the maps by
// reflection in every settings check: 0.11 M instructions of pigo tools.
func readMergeRules(b []byte) (map[Kind]map[string]string, bool) {
	i := 0
	skip := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
			i++
		}
	}
	next := func(c byte) bool {
		skip()
		if i < len(b) && b[i] == c {
			i++
			return true
		}
		return false
	}
	str := func() (string, bool) {
		if !next('"') {
			return "", false
		}
		start := i
		for i < len(b) && b[i] != '"' {
			if b[i] == '\\' || b[i] < 0x20 || b[i] >= 0x80 {
				return "", false // escapes and non-ASCII: json.Unmarshal's
			}
			i++
		}
		if i == len(b) {
			return "", false
		}
		i++
		return string(b[start : i-1]), true
	}
	// object reads `{}` or `{ "k": v, ... }`, v read by value.
	object := func(value func(string) bool) bool {
		if !next('{') {
			return false
		}
		if next('}') {
			return true
		}
		for {
			k, ok := str()
			if !ok || !next(':') || !value(k) {
				return false
			}
			if next('}') {
				return true
			}
			if !next(',') {
				return false
			}
		}
	}
	out := map[Kind]map[string]string{}
	ok := object(func(kind string) bool {
		rules := map[string]string{}
		if _, dup := out[Kind(kind)]; dup {
			return false // json.Unmarshal merges into the first: not for this reader
		}
		out[Kind(kind)] = rules
		return object(func(path string) bool {
			r, ok := str()
			rules[path] = r
			return ok
		})
	})
	skip()
	return out, ok && i == len(b)
}
