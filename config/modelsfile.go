package config

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// models.json's providers as the provider clients read them (providerEntry), decoded once per
// configuration and looked up by their exact key.
//
// pi keeps models.json's providers in a Map by their exact key (ModelConfig.getProvider):
// `OpenAI` and `openai` are two providers, and a model resolved to provider `openai` takes the
// entry `openai` only. providerEntry used to decode the whole file with encoding/json at every
// call (the first call ~0.2 ms of reflection caches on the session's start) and take the
// last key equal under case folding in Go's map order: with both spellings present, either
// entry, changing from run to run.

// modelsProviders is models.json's "providers", decoded once for the effective file (nil when
// no layer exists). The merged tree is already parsed and schema-checked: it is read directly
// (readProviders); a document that reader does not take exactly as encoding/json would (a
// null, a key given twice under case folding, a type other than the struct's) is decoded by
// encoding/json as before, so every result and error stays what it was.
func (c *Config) modelsProviders() (map[string]providerEntry, error) {
	eff, err := c.Effective(Models)
	if err != nil || eff.Root == nil {
		return nil, err
	}
	if !eff.providersDone {
		eff.providers, eff.providersErr = decodeProviders(eff)
		eff.providersDone = true
	}
	return eff.providers, eff.providersErr
}

func decodeProviders(eff *Effective) (map[string]providerEntry, error) {
	if ps, ok := readProviders(eff.Root); ok {
		return ps, nil
	}
	return decodeProvidersJSON(eff.JSON())
}

// decodeProvidersJSON is the encoding/json decode (and its error text).
func decodeProvidersJSON(doc []byte) (map[string]providerEntry, error) {
	var file struct {
		Providers map[string]providerEntry `json:"providers"`
	}
	if err := json.Unmarshal(doc, &file); err != nil {
		return nil, fmt.Errorf("models.json: %w", err)
	}
	return file.Providers, nil
}

// fieldIndex is the index in names of key as encoding/json matches a struct field: the exact
// name, else one equal under case folding; -1 for none.
func fieldIndex(names []string, key string) int {
	for i, n := range names {
		if n == key {
			return i
		}
	}
	for i, n := range names {
		if strings.EqualFold(n, key) {
			return i
		}
	}
	return -1
}

// fields maps an object's members to names; ok is false when two members set the same field
// (encoding/json would merge the second into the first: left to it).
func fields(v *Value, names []string, set func(i int, v *Value) bool) bool {
	var seen uint32
	for _, m := range v.Members {
		i := fieldIndex(names, m.Key)
		if i < 0 {
			continue // encoding/json ignores unknown keys, of any type
		}
		if seen&(1<<i) != 0 || !set(i, m.Value) {
			return false
		}
		seen |= 1 << i
	}
	return true
}

func isKind(v *Value, k jsonc.Kind) bool {
	return v != nil && v.Kind == k && (k == jsonc.Object || k == jsonc.Array || v.Node != nil)
}

// readProviders reads root's "providers" into providerEntry values; ok is false for anything
// left to encoding/json.
func readProviders(root *Value) (map[string]providerEntry, bool) {
	if !isKind(root, jsonc.Object) {
		return nil, false
	}
	var out map[string]providerEntry
	ok := fields(root, []string{"providers"}, func(_ int, v *Value) bool {
		if !isKind(v, jsonc.Object) {
			return false
		}
		out = make(map[string]providerEntry, len(v.Members))
		for _, m := range v.Members {
			pe, ok := readProvider(m.Value)
			if !ok || !utf8.ValidString(m.Key) {
				return false
			}
			out[m.Key] = pe
		}
		return true
	})
	return out, ok
}

var providerFields = []string{"baseUrl", "apiKey", "api", "headers", "compat", "authHeader", "models", "modelOverrides"}

func readProvider(v *Value) (pe providerEntry, ok bool) {
	if !isKind(v, jsonc.Object) {
		return pe, false
	}
	ok = fields(v, providerFields, func(i int, f *Value) bool {
		switch i {
		case 0:
			return readString(f, &pe.BaseURL)
		case 1:
			var s string
			pe.APIKey = &s
			return readString(f, &s)
		case 2:
			return readString(f, &pe.API)
		case 3:
			return readStrings(f, &pe.Headers)
		case 4:
			pe.Compat = f.JSON()
			return true
		case 5:
			if !isKind(f, jsonc.Bool) {
				return false
			}
			pe.AuthHeader = f.Node.Bool
			return true
		case 6:
			if !isKind(f, jsonc.Array) {
				return false
			}
			pe.Models = make([]modelEntry, 0, len(f.Elems))
			for _, e := range f.Elems {
				me, ok := readModel(e)
				if !ok {
					return false
				}
				pe.Models = append(pe.Models, me)
			}
			return true
		case 7:
			if !isKind(f, jsonc.Object) {
				return false
			}
			pe.ModelOverrides = make(map[string]modelEntry, len(f.Members))
			for _, m := range f.Members {
				me, ok := readModel(m.Value)
				if !ok || !utf8.ValidString(m.Key) {
					return false
				}
				pe.ModelOverrides[m.Key] = me
			}
			return true
		}
		return false
	})
	return pe, ok
}

var modelFields = []string{"id", "name", "api", "baseUrl", "thinkingLevelMap", "cost", "headers", "compat"}

func readModel(v *Value) (me modelEntry, ok bool) {
	if !isKind(v, jsonc.Object) {
		return me, false
	}
	ok = fields(v, modelFields, func(i int, f *Value) bool {
		switch i {
		case 0:
			return readString(f, &me.ID)
		case 1:
			return readString(f, &me.Name)
		case 2:
			return readString(f, &me.API)
		case 3:
			return readString(f, &me.BaseURL)
		case 4:
			if !isKind(f, jsonc.Object) {
				return false
			}
			me.ThinkingLevelMap = make(map[string]*string, len(f.Members))
			for _, m := range f.Members {
				switch {
				case isKind(m.Value, jsonc.Null):
					me.ThinkingLevelMap[m.Key] = nil // a level the model does not support
				case !utf8.ValidString(m.Key):
					return false
				case isKind(m.Value, jsonc.String) && utf8.ValidString(m.Value.Node.Str):
					s := m.Value.Node.Str
					me.ThinkingLevelMap[m.Key] = &s
				default:
					return false
				}
			}
			return true
		case 5:
			var ce costEntry
			me.Cost = &ce
			return readCost(f, &ce)
		case 6:
			return readStrings(f, &me.Headers)
		case 7:
			me.Compat = f.JSON()
			return true
		}
		return false
	})
	return me, ok
}

var costFields = []string{"input", "output", "cacheRead", "cacheWrite"}

func readCost(v *Value, ce *costEntry) bool {
	if !isKind(v, jsonc.Object) {
		return false
	}
	return fields(v, costFields, func(i int, f *Value) bool {
		if !isKind(f, jsonc.Number) {
			return false
		}
		x, err := strconv.ParseFloat(f.Node.Num, 64)
		if err != nil {
			return false
		}
		switch i {
		case 0:
			ce.Input = &x
		case 1:
			ce.Output = &x
		case 2:
			ce.CacheRead = &x
		case 3:
			ce.CacheWrite = &x
		}
		return true
	})
}

func readString(v *Value, dst *string) bool {
	if !isKind(v, jsonc.String) || !utf8.ValidString(v.Node.Str) {
		return false
	}
	*dst = v.Node.Str
	return true
}

func readStrings(v *Value, dst *map[string]string) bool {
	if !isKind(v, jsonc.Object) {
		return false
	}
	m := make(map[string]string, len(v.Members))
	for _, e := range v.Members {
		if !isKind(e.Value, jsonc.String) || !utf8.ValidString(e.Value.Node.Str) || !utf8.ValidString(e.Key) {
			return false
		}
		m[e.Key] = e.Value.Node.Str
	}
	*dst = m
	return true
}
