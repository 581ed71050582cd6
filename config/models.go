package config

import (
	_ "embed"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// The facts pi assumes for a model nobody describes (host-behaviour §5.2).
const (
	defaultContextWindow = 128000
	defaultMaxTokens     = 16384
)

// catalogueModel is one model of pi-ai's generated list (scripts/gen-models-catalogue.mjs).
type catalogueModel struct {
	Provider      string        `json:"provider"`
	ID            string        `json:"id"`
	API           string        `json:"api"`
	BaseURL       string        `json:"baseUrl"`
	Reasoning     bool          `json:"reasoning"`
	Input         []string      `json:"input"`
	ContextWindow int           `json:"contextWindow"`
	MaxTokens     int           `json:"maxTokens"`
	Cost          CatalogueCost `json:"cost"`
}

// CatalogueCost is a catalogue model's price in dollars per million tokens, as pi-ai lists it.
type CatalogueCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// CatalogueEntry is one model of the built-in catalogue with the facts a provider needs to
// call it: its API dialect, base URL and price.
type CatalogueEntry struct {
	Provider, ID, API, BaseURL string
	Reasoning                  bool
	Input                      []string
	ContextWindow, MaxTokens   int
	Cost                       CatalogueCost
}

// LookupCatalogue finds provider/id in the built-in catalogue (case-insensitive, as pi matches).
func LookupCatalogue(provider, id string) (CatalogueEntry, bool) {
	cat := builtinModels()
	kp, kid := newFoldKey(provider), newFoldKey(id)
	for i := range cat {
		if kid.may(cat[i].id) && kid.fold(cat[i].id) && kp.eq(cat[i].provider) {
			m := cat[i].model()
			return CatalogueEntry{Provider: m.Provider, ID: m.ID, API: m.API, BaseURL: m.BaseURL, Reasoning: m.Reasoning,
				Input: append([]string(nil), m.Input...), ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens, Cost: m.Cost}, true
		}
	}
	return CatalogueEntry{}, false
}

// BuiltinProviders returns pi's built-in provider names (those of pi-ai's model list), in
// catalogue order.
func BuiltinProviders() []string {
	var out []string
	cat := builtinModels()
	for i := range cat {
		if p := cat[i].provider.str(); len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

// isBuiltinProvider reports whether name is one of pi's built-in providers (case-insensitive).
func isBuiltinProvider(name string) bool {
	for _, p := range BuiltinProviders() {
		if strings.EqualFold(p, name) {
			return true
		}
	}
	return false
}

// modelsCatalogue is pi-ai's model list as generated (with name, compat and thinkingLevelMap,
// which the providers read); the catalogue table below is generated from it.
//
//go:embed models_catalogue.json
var modelsCatalogue []byte

// builtinModels returns the catalogue: models_catalogue_gen.go, a static table generated from
// models_catalogue.json (pi-ai's list), so that no start-up time goes into decoding it.
func builtinModels() []catalogueRow { return catalogueRows[:] }

// catalogueRow is one model of the catalogue as the generated table holds it: without
// pointers, its strings as offsets into catalogueText and its input kinds as an index into
// catalogueInputs. A table of catalogueModel values (strings and slices: pointers) was 290 KB
// of the binary's .data, with 2,020 input lists beside it, whose pointer bitmap the runtime
// builds from the linker's GC program at every start (runGCProg: 483 K instructions of every
// pigo process, 128 K without them) and which each scan of the catalogue read at 144 bytes a
// model; this table is data without pointers (.noptrdata), 80 bytes a model
// (docs/decisions/25-speed.md, D25.29).
type catalogueRow struct {
	provider, id, api, baseURL catalogueStr
	input                      uint8 // catalogueInputs[input]
	reasoning                  bool
	contextWindow, maxTokens   int32
	cost                       CatalogueCost
}

// catalogueStr is a string of catalogueText.
type catalogueStr struct {
	off uint32
	n   uint16
}

func (s catalogueStr) str() string { return catalogueText[s.off : s.off+uint32(s.n)] }

// foldKey is a text that catalogue strings are compared with as strings.EqualFold compares
// them, most of them by their length alone. The catalogue's strings are ASCII
// (TestCatalogueASCII), and an ASCII string equals under simple folding only a string of as
// many runes, each an ASCII letter or 'K' (U+212A) or 'ſ' (U+017F): as long as an ASCII text,
// and no shorter than any other. A scan of the 2,020 models called EqualFold on each (the
// `--model` check scanned them twice: 0.3 M instructions of pigo tools).
type foldKey struct {
	s string
	// lo and hi bound the length of a catalogue string that can be equal: len(s) for an ASCII
	// text, 0 to len(s) for another.
	lo, hi int
}

func newFoldKey(s string) foldKey {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return foldKey{s, 0, len(s)}
		}
	}
	return foldKey{s, len(s), len(s)}
}

// eq reports strings.EqualFold(c.str(), k.s): may, then fold. Loops over the catalogue call
// may first (inlined: most rows end there).
func (k foldKey) eq(c catalogueStr) bool { return k.may(c) && k.fold(c) }

// may reports whether c has a length at which it can be equal.
func (k foldKey) may(c catalogueStr) bool { return int(c.n) >= k.lo && int(c.n) <= k.hi }

func (k foldKey) fold(c catalogueStr) bool { return strings.EqualFold(c.str(), k.s) }

// model is the row with its strings and input kinds (shared: read-only, as the table was).
func (r *catalogueRow) model() catalogueModel {
	return catalogueModel{Provider: r.provider.str(), ID: r.id.str(), API: r.api.str(), BaseURL: r.baseURL.str(),
		Reasoning: r.reasoning, Input: catalogueInputs[r.input], ContextWindow: int(r.contextWindow),
		MaxTokens: int(r.maxTokens), Cost: r.cost}
}

// ModelInfo is the session model with its facts and where they came from.
type ModelInfo struct {
	engine.Model
	// Source is "models.json", "openai-cost.json", "catalogue" or "defaults".
	Source string
}

// SessionModel resolves the session model: the --model value (PROVIDER/ID, or a bare id), else
// settings defaultProvider + defaultModel, else none (nil). Facts come from models.json when the
// model is there, else from the built-in catalogue, else pi's defaults.
func (c *Config) SessionModel(flag string) (*ModelInfo, error) {
	settings, err := c.Effective(Settings)
	if err != nil {
		return nil, err
	}
	models, err := c.Effective(Models)
	if err != nil {
		return nil, err
	}
	provider, id := "", ""
	switch {
	case flag != "":
		provider, id, _ = strings.Cut(flag, "/")
		if id == "" {
			provider, id = "", flag
		}
	default:
		if settings.Root != nil {
			provider = scalarString(settings.Root.Get("defaultProvider"))
			id = scalarString(settings.Root.Get("defaultModel"))
			if p, rest, ok := strings.Cut(id, "/"); ok && provider == "" {
				provider, id = p, rest
			}
		}
		if id == "" {
			return nil, nil
		}
	}
	id = stripLevel(id) // `provider/id:level`: facts and patterns use the bare id
	if id == "" {
		return nil, fmt.Errorf("--model %q: expected PROVIDER/ID", flag)
	}
	// The seed's openai-cost extension registers its provider over models.json's entry of the
	// same name.
	if oc := c.openAICostProvider(); oc != nil && provider != "" && strings.EqualFold(provider, oc.ID) {
		return oc.info(id), nil
	}
	if m := lookupModelsJSON(models.Root, provider, id); m != nil {
		return m, nil
	}
	var found []*catalogueRow
	cat := builtinModels()
	kp, kid := newFoldKey(provider), newFoldKey(id)
	for i := range cat {
		if m := &cat[i]; kid.may(m.id) && kid.fold(m.id) && (provider == "" || kp.eq(m.provider)) {
			found = append(found, m)
		}
	}
	if oc := c.openAICostProvider(); oc != nil && provider == "" && len(found) == 0 {
		// A bare id that only openai-cost.json lists is that provider's model.
		for _, m := range oc.Models {
			if strings.EqualFold(m.ID, id) {
				return oc.info(id), nil
			}
		}
	}
	if len(found) > 0 {
		// A bare id listed by several providers stays without a provider (pi calls it
		// ambiguous); the facts of the first listing still describe the model.
		m := found[0].model()
		if provider != "" || len(found) == 1 {
			provider, id = m.Provider, m.ID // pi's spelling, as pi canonicalizes a match
		}
		return &ModelInfo{Model: engine.Model{Provider: provider, ID: id, Reasoning: m.Reasoning, Input: m.Input,
			ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens}, Source: "catalogue"}, nil
	}
	return &ModelInfo{Model: engine.Model{Provider: provider, ID: id, Input: []string{"text"},
		ContextWindow: defaultContextWindow, MaxTokens: defaultMaxTokens}, Source: "defaults"}, nil
}

func scalarString(v *Value) string {
	if v == nil || v.Node == nil || v.Node.Kind != jsonc.String {
		return ""
	}
	return v.Node.Str
}

// lookupModelsJSON finds provider/id in the effective models.json: custom models first, then
// modelOverrides of built-in models. A bare id (no provider) must be unique.
func lookupModelsJSON(root *Value, provider, id string) *ModelInfo {
	if root == nil {
		return nil
	}
	providers := root.Get("providers")
	if providers == nil {
		return nil
	}
	var hits []*ModelInfo
	for _, pm := range providers.Members {
		if provider != "" && !strings.EqualFold(pm.Key, provider) {
			continue
		}
		ms := pm.Value.Get("models")
		if ms != nil {
			for _, mv := range ms.Elems {
				if strings.EqualFold(scalarString(mv.Get("id")), id) {
					hits = append(hits, modelFacts(pm.Key, id, mv))
				}
			}
		}
		if ov := pm.Value.Get("modelOverrides"); ov != nil {
			for _, o := range ov.Members {
				if strings.EqualFold(o.Key, id) {
					base := &ModelInfo{Model: engine.Model{Provider: pm.Key, ID: id}}
					cat := builtinModels()
					kid := newFoldKey(id)
					for i := range cat {
						if kid.may(cat[i].id) && kid.fold(cat[i].id) {
							m := cat[i].model()
							base.Model = engine.Model{Provider: pm.Key, ID: id, Reasoning: m.Reasoning, Input: m.Input, ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens}
						}
					}
					hits = append(hits, overlayFacts(base, o.Value))
				}
			}
		}
	}
	if len(hits) == 0 || (provider == "" && len(hits) > 1) {
		return nil
	}
	return hits[0]
}

func modelFacts(provider, id string, v *Value) *ModelInfo {
	m := &ModelInfo{Model: engine.Model{Provider: provider, ID: id, Input: []string{"text"},
		ContextWindow: defaultContextWindow, MaxTokens: defaultMaxTokens}}
	return overlayFacts(m, v)
}

func overlayFacts(m *ModelInfo, v *Value) *ModelInfo {
	m.Source = "models.json"
	if r := v.Get("reasoning"); r != nil && r.Node.Kind == jsonc.Bool {
		m.Reasoning = r.Node.Bool
	}
	if in := v.Get("input"); in != nil && in.Kind == jsonc.Array {
		m.Input = nil
		for _, e := range in.Elems {
			if s := scalarString(e); s != "" {
				m.Input = append(m.Input, s)
			}
		}
	}
	if n := intOf(v.Get("contextWindow")); n > 0 {
		m.ContextWindow = n
	}
	if n := intOf(v.Get("maxTokens")); n > 0 {
		m.MaxTokens = n
	}
	if m.Input == nil {
		m.Input = []string{"text"}
	}
	if m.ContextWindow == 0 {
		m.ContextWindow = defaultContextWindow
	}
	if m.MaxTokens == 0 {
		m.MaxTokens = defaultMaxTokens
	}
	return m
}

func intOf(v *Value) int {
	if v == nil || v.Node == nil || v.Node.Kind != jsonc.Number {
		return 0
	}
	var n int
	_, _ = fmt.Sscan(v.Node.Num, &n)
	return n
}
