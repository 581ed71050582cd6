package config

import (
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/pattern"
	"github.com/pigo-agent/pigo/internal/validate"
)

// Model references (defaultProvider/defaultModel, visionConfig, sessionName, enabledModels, an
// agent's model, --model) are checked against models.json and the catalogue, matched
// case-insensitively as pi does. A near miss of a known provider is a warning with a
// did-you-mean (pi refuses an unknown provider); any other unknown name is an info, with a
// did-you-mean when there is one: pi accepts a provider defined in a models.json elsewhere and
// uses an unknown id of a known provider as a custom model id, so real setups stay clean.

// knownModel is one model pigo knows of.
type knownModel struct{ provider, id string }

// thinkingLevels are pi's (cli/args.js VALID_THINKING_LEVELS), the suffixes of `id:level`.
var thinkingLevels = map[string]bool{"off": true, "minimal": true, "low": true, "medium": true, "high": true, "xhigh": true, "max": true}

// stripLevel removes a `:level` suffix naming one of pi's thinking levels.
func stripLevel(ref string) string {
	ref = strings.TrimSpace(ref)
	if i := strings.LastIndex(ref, ":"); i >= 0 && thinkingLevels[ref[i+1:]] {
		return ref[:i]
	}
	return ref
}

// modelIndex lists the providers and models of the effective models.json and the catalogue.
type modelIndex struct {
	providers []string // distinct, in order: models.json first
	// models are those of models.json and openai-cost.json; all adds the catalogue's, read in
	// place (a static table of ~900 models: a copy was 64 KB of every start that checks a
	// model reference, `pigo tools --model` among them).
	models []knownModel
	// anyID is the openai-cost provider when its file lists no models: the seed fetches them
	// from the server, so every id may exist.
	anyID string
}

func (c *Config) modelIndex() *modelIndex {
	if c.models != nil {
		return c.models
	}
	builtin := builtinModels()
	ix := &modelIndex{}
	seen := map[string]bool{}
	last := "\x00"
	addProvider := func(p string) {
		if p == last { // the catalogue lists each provider's models together
			return
		}
		last = p
		if lp := strings.ToLower(p); !seen[lp] {
			seen[lp] = true
			ix.providers = append(ix.providers, p)
		}
	}
	// Every readable models.json counts, applied or not (an untrusted project's too): a
	// provider defined there is not a typo.
	for _, f := range c.FilesOf(Models) {
		if f.Root == nil || f.Root.Kind != jsonc.Object {
			continue
		}
		if ps := f.Root.Get("providers"); ps != nil && ps.Kind == jsonc.Object {
			for _, pm := range ps.Members {
				addProvider(pm.Key)
				if ms := pm.Value.Get("models"); ms != nil && ms.Kind == jsonc.Array {
					for _, m := range ms.Elems {
						if id := m.Get("id"); id != nil && id.Kind == jsonc.String && id.Str != "" {
							ix.models = append(ix.models, knownModel{pm.Key, id.Str})
						}
					}
				}
			}
		}
	}
	// The provider the seed's openai-cost extension registers from openai-cost.json.
	if oc := c.openAICostProvider(); oc != nil {
		addProvider(oc.ID)
		for _, m := range oc.Models {
			ix.models = append(ix.models, knownModel{oc.ID, m.ID})
		}
		if len(oc.Models) == 0 {
			ix.anyID = oc.ID
		}
	}
	// The catalogue's rows of one provider are together and share the provider's string in
	// catalogueText: a row whose string is the last row's adds nothing (addProvider compares
	// the text anyway), and the 2,020 rows cost an integer compare each.
	prev := catalogueStr{off: ^uint32(0)}
	for i := range builtin {
		if p := builtin[i].provider; p != prev {
			prev = p
			addProvider(p.str())
		}
	}
	c.models = ix
	return ix
}

// all yields the known models: those of models.json and openai-cost.json, then the catalogue's.
func (ix *modelIndex) all(yield func(knownModel) bool) {
	for _, m := range ix.models {
		if !yield(m) {
			return
		}
	}
	builtin := builtinModels()
	for i := range builtin {
		if !yield(knownModel{builtin[i].provider.str(), builtin[i].id.str()}) {
			return
		}
	}
}

// splitRef parses `provider/id:level` (either part optional): the level is split off only when
// it is one of pi's thinking levels, and the provider only when the text before the first "/"
// is a known provider or one is given separately.
func (ix *modelIndex) splitRef(provider, ref string) (string, string) {
	ref = stripLevel(ref)
	if p, id, ok := strings.Cut(ref, "/"); ok && p != "" && id != "" {
		if provider == "" || strings.EqualFold(p, provider) {
			if provider != "" || ix.hasProvider(p) || !ix.hasID(ref) {
				return p, id
			}
		}
	}
	return provider, ref
}

func (ix *modelIndex) hasProvider(p string) bool {
	for _, x := range ix.providers {
		if strings.EqualFold(x, p) {
			return true
		}
	}
	return false
}

func (ix *modelIndex) hasID(id string) bool {
	for _, m := range ix.models {
		if strings.EqualFold(m.id, id) {
			return true
		}
	}
	builtin, k := builtinModels(), newFoldKey(id)
	for i := range builtin {
		if k.may(builtin[i].id) && k.fold(builtin[i].id) {
			return true
		}
	}
	return false
}

// problem says what is wrong with a model reference, or returns ok. near reports a likely
// typo (a warning); otherwise the finding is an info.
func (ix *modelIndex) problem(provider, id string) (msg, hint string, near, ok bool) {
	if provider != "" && !ix.hasProvider(provider) {
		if s := validate.Suggest(provider, ix.providers); s != "" {
			// "openrouter2" or "zai-coding" extend a name on purpose; a typo changes it.
			lp, ls := strings.ToLower(provider), strings.ToLower(s)
			// Provider names come in families (zai-coding, kimi-coding): only a change of one
			// or two letters is taken for a typo.
			near := !strings.HasPrefix(lp, ls) && !strings.HasPrefix(ls, lp) && validate.Distance(lp, ls) <= 2
			return fmt.Sprintf("unknown provider %q", provider), fmt.Sprintf("did you mean %q?", s), near, false
		}
		return fmt.Sprintf("provider %q is neither one of pi's built-in providers nor defined in models.json", provider), "", false, false
	}
	if id == "" || (provider != "" && ix.anyID != "" && strings.EqualFold(provider, ix.anyID)) {
		return "", "", false, true
	}
	var ids []string
	for m := range ix.all {
		if provider != "" && !strings.EqualFold(m.provider, provider) {
			continue
		}
		if strings.EqualFold(m.id, id) {
			return "", "", false, true
		}
		ids = append(ids, m.id)
	}
	where := "models.json or the catalogue"
	if provider != "" {
		where = fmt.Sprintf("the models of provider %q (models.json and the catalogue)", provider)
	}
	// An unknown id is an info even when it is close to a known one: real files name models
	// newer than the catalogue ("gpt-6.1-sol" is not a typo of "gpt-5.6-sol").
	if s := validate.Suggest(id, ids); s != "" {
		hint = fmt.Sprintf("did you mean %q?", s)
	}
	msg = fmt.Sprintf("model %q is not in %s", id, where)
	if provider != "" {
		msg += "; pi uses it as a custom model id"
	}
	return msg, hint, false, false
}

// matchesAny reports whether an enabledModels pattern selects some known model: a glob against
// the id and provider/id, else (as pi) an exact reference or a part of an id.
func (ix *modelIndex) matchesAny(pat string) bool {
	pat = stripLevel(pat)
	if strings.ContainsAny(pat, "*?[") {
		p, err := pattern.Compile(pat)
		if err != nil {
			return true // bad-glob is reported elsewhere
		}
		for m := range ix.all {
			if p.Match(m.id) || p.Match(m.provider+"/"+m.id) {
				return true
			}
		}
		return false
	}
	lp := strings.ToLower(pat)
	for m := range ix.all {
		if strings.Contains(strings.ToLower(m.id), lp) || strings.ToLower(m.provider+"/"+m.id) == lp {
			return true
		}
	}
	return false
}

// modelDiag adds the finding about one reference at the value n.
func (ix *modelIndex) modelDiag(out *diag.List, src *diag.Source, n *jsonc.Node, path, provider, ref string) {
	p, id := ix.splitRef(provider, ref)
	msg, hint, near, ok := ix.problem(p, id)
	if ok {
		return
	}
	sev := diag.Info
	if near {
		sev = diag.Warning
	}
	d := out.Add(diag.At(src, n.Start, n.End), sev, "unknown-model", path, path+": "+msg)
	d.Hint = hint
}

// checkModelRefs checks the model references of the settings layers and the agent files.
func (c *Config) checkModelRefs() diag.List {
	var out diag.List
	ix := c.modelIndex()
	str := func(n *jsonc.Node) (string, bool) {
		if n == nil || n.Kind != jsonc.String || strings.TrimSpace(n.Str) == "" {
			return "", false
		}
		return n.Str, true
	}
	for _, f := range c.Files {
		if f.Root == nil || f.Root.Kind != jsonc.Object || f.Broken || f.Dialect != "" {
			continue
		}
		switch f.Kind {
		case Settings:
			prov, _ := str(f.Root.Get("defaultProvider"))
			if m := f.Root.Get("defaultModel"); m != nil {
				if ref, ok := str(m); ok {
					ix.modelDiag(&out, f.Src, m, "defaultModel", prov, ref)
				}
			} else if pn := f.Root.Get("defaultProvider"); pn != nil && prov != "" {
				ix.modelDiag(&out, f.Src, pn, "defaultProvider", prov, "")
			}
			for _, sect := range []string{"visionConfig", "sessionName"} {
				v := f.Root.Get(sect)
				if v == nil || v.Kind != jsonc.Object {
					continue
				}
				p, _ := str(v.Get("provider"))
				if p == "" {
					p = prov
				}
				if m := v.Get("model"); m != nil {
					if ref, ok := str(m); ok {
						ix.modelDiag(&out, f.Src, m, sect+".model", p, ref)
					}
				}
			}
			if em := f.Root.Get("enabledModels"); em != nil && em.Kind == jsonc.Array {
				for i, e := range em.Elems {
					if ref, ok := str(e); ok && !ix.matchesAny(ref) {
						path := fmt.Sprintf("enabledModels[%d]", i)
						if strings.ContainsAny(ref, "*?[") {
							out.Add(diag.At(f.Src, e.Start, e.End), diag.Info, "unknown-model", path,
								fmt.Sprintf("%s: pattern %q matches no model of models.json or the catalogue", path, ref))
							continue
						}
						ix.modelDiag(&out, f.Src, e, path, "", ref)
					}
				}
			}
		case Agent:
			prov, _ := str(f.Root.Get("provider"))
			if m := f.Root.Get("model"); m != nil {
				if ref, ok := str(m); ok {
					ix.modelDiag(&out, f.Src, m, "model", prov, ref)
				}
			}
		}
	}
	return out
}

// ModelRefDiags checks a --model value (file names the flag in the diagnostic).
func (c *Config) ModelRefDiags(flag, ref string) diag.List {
	if c.knownRef(ref) {
		// The usual --model: one that models.json or the catalogue lists under the provider
		// it names, which the index below would find too; found without building the index
		// (~0.05 ms of a session's start).
		return nil
	}
	return c.modelRefDiags(flag, ref)
}

// modelRefDiags is ModelRefDiags through the index.
func (c *Config) modelRefDiags(flag, ref string) diag.List {
	var out diag.List
	ix := c.modelIndex()
	p, id := ix.splitRef("", ref)
	msg, hint, near, ok := ix.problem(p, id)
	if ok {
		return nil
	}
	sev := diag.Info
	if near {
		sev = diag.Warning
	}
	d := out.Add(diag.FileSpan(diag.NewSource(flag, nil)), sev, "unknown-model", "", msg+"; its facts are pi's defaults")
	d.Hint = hint
	return out
}

// knownRef reports whether ref is `provider/id[:level]` of a model that a readable models.json
// (applied or not, as modelIndex reads them) or the catalogue lists under that provider,
// compared as the index compares (strings.EqualFold). For such a reference the index's
// problem is always ok: the provider is one of its providers and the model one of its models.
func (c *Config) knownRef(ref string) bool {
	p, id, ok := strings.Cut(stripLevel(ref), "/")
	if !ok || p == "" || id == "" {
		return false
	}
	for _, f := range c.FilesOf(Models) {
		if f.Root == nil || f.Root.Kind != jsonc.Object {
			continue
		}
		ps := f.Root.Get("providers")
		if ps == nil || ps.Kind != jsonc.Object {
			continue
		}
		for _, pm := range ps.Members {
			if !strings.EqualFold(pm.Key, p) {
				continue
			}
			if ms := pm.Value.Get("models"); ms != nil && ms.Kind == jsonc.Array {
				for _, m := range ms.Elems {
					if mid := m.Get("id"); mid != nil && mid.Kind == jsonc.String && mid.Str != "" && strings.EqualFold(mid.Str, id) {
						return true
					}
				}
			}
		}
	}
	builtin, k := builtinModels(), newFoldKey(id)
	prev, here := catalogueStr{off: ^uint32(0)}, false
	for i := range builtin {
		if pr := builtin[i].provider; pr != prev {
			prev, here = pr, strings.EqualFold(pr.str(), p)
		}
		if here && k.may(builtin[i].id) && k.fold(builtin[i].id) {
			return true
		}
	}
	return false
}
