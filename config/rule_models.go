package config

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// checkModelsRules applies pi's rules for models.json providers (pi-coding-agent's
// provider-composer): a model needs an api and a baseUrl, from the model, its provider or, for
// one of pi's built-in providers, the built-in model it replaces (else the provider's first
// built-in model); a provider entry must configure something. The messages are pi's.
func (c *Config) checkModelsRules(f *File) {
	ps := f.Root.Get("providers")
	if ps == nil || ps.Kind != jsonc.Object {
		return
	}
	has := func(n *jsonc.Node, k string) bool {
		m := n.Member(k)
		return m != nil && m.Value.Kind != jsonc.Null
	}
	for _, pm := range ps.Members {
		p := pm.Value
		if p.Kind != jsonc.Object {
			continue
		}
		id := pm.Key
		at := diag.At(f.Src, pm.KeyStart, pm.KeyEnd)
		path := "providers." + id
		if has(p, "oauth") && !has(p, "baseUrl") {
			f.Diags.Add(at, diag.Error, "schema", path, fmt.Sprintf(`Provider %s: "baseUrl" is required when "oauth" is set.`, id))
		}
		ms := p.Get("models")
		overrides := p.Get("modelOverrides")
		hasModels := ms != nil && ms.Kind == jsonc.Array && len(ms.Elems) > 0
		hasOverrides := overrides != nil && overrides.Kind == jsonc.Object && len(overrides.Members) > 0
		if !has(p, "models") && !hasOverrides && !has(p, "baseUrl") && !has(p, "headers") && !has(p, "compat") &&
			!has(p, "apiKey") && !has(p, "oauth") && !has(p, "authHeader") {
			f.Diags.Add(at, diag.Error, "schema", path,
				fmt.Sprintf(`Provider %s: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".`, id))
		}
		if !hasModels {
			// An entry that defines no models configures the provider of its exact name (pi's
			// ModelConfig looks it up so): one spelled as a built-in but for case applies to
			// no model, and its key or headers are silently unused.
			if b := builtinCaseTwin(id); b != "" {
				d := f.Diags.Add(at, diag.Warning, "unknown-model", path,
					fmt.Sprintf("%s: no provider is named %q; providers are looked up by their exact name, so this entry applies to no model", path, id))
				d.Hint = fmt.Sprintf("did you mean %q?", b)
			}
			continue
		}
		for i, m := range ms.Elems {
			if m.Kind != jsonc.Object || m.Get("id") == nil {
				continue // a missing id is the schema's error
			}
			mid := ""
			if n := m.Get("id"); n != nil && n.Kind == jsonc.String {
				mid = n.Str
			}
			def, builtin := builtinDefaults(id, mid)
			if !has(m, "api") && !has(p, "api") && (!builtin || def.API == "") {
				f.Diags.Add(diag.At(f.Src, m.Start, m.Start+1), diag.Error, "schema", fmt.Sprintf("%s.models[%d]", path, i),
					fmt.Sprintf(`Provider %s, model %s: no "api" specified. Set at provider or model level.`, id, mid))
			}
			if !has(m, "baseUrl") && !has(p, "baseUrl") && (!builtin || def.BaseURL == "") {
				f.Diags.Add(diag.At(f.Src, m.Start, m.Start+1), diag.Error, "schema", fmt.Sprintf("%s.models[%d]", path, i),
					fmt.Sprintf(`Provider %s: "baseUrl" is required when defining custom models.`, id))
			}
		}
	}
}

// builtinCaseTwin is the built-in provider whose name equals id but for case ("" when id is
// a built-in provider's exact name or matches none).
func builtinCaseTwin(id string) string {
	for _, p := range BuiltinProviders() {
		if p == id {
			return ""
		}
	}
	for _, p := range BuiltinProviders() {
		if strings.EqualFold(p, id) {
			return p
		}
	}
	return ""
}

// builtinDefaults returns what a models.json model inherits from pi's built-in provider of the
// same name: the built-in model with its id, else the provider's first model. builtin is false
// for a provider pi does not ship.
func builtinDefaults(provider, id string) (catalogueModel, bool) {
	var first *catalogueRow
	cat := builtinModels()
	for i := range cat {
		m := &cat[i]
		if int(m.provider.n) != len(provider) || m.provider.str() != provider { // pi looks providers up by their exact name
			continue
		}
		if first == nil {
			first = m
		}
		if m.id.str() == id {
			return m.model(), true
		}
	}
	if first == nil {
		return catalogueModel{}, false
	}
	return first.model(), true
}

// checkProxyRules checks proxy.json's proxy URL as the seed does, with its messages: the URL
// must parse and be http:// or https://.
func (c *Config) checkProxyRules(f *File) {
	n := f.Root.Get("proxy")
	if n == nil || n.Kind != jsonc.String || n.Str == "" {
		return
	}
	at := diag.At(f.Src, n.Start, n.End)
	u, err := url.Parse(strings.TrimSpace(n.Str))
	switch {
	case err != nil || u.Scheme == "":
		f.Diags.Add(at, diag.Error, "schema", "proxy", "invalid proxy URL: "+n.Str)
	case u.Scheme != "http" && u.Scheme != "https":
		d := f.Diags.Add(at, diag.Error, "schema", "proxy", fmt.Sprintf("unsupported proxy protocol: %s: (expected http:// or https://)", u.Scheme))
		if u.Host == "" && u.Opaque != "" {
			d.Hint = fmt.Sprintf("a host and port need a scheme: \"http://%s\"", n.Str)
		}
	case u.Host == "":
		f.Diags.Add(at, diag.Error, "schema", "proxy", "invalid proxy URL: "+n.Str)
	}
}
