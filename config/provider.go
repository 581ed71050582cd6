package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/pigo-agent/pigo/internal/auth"
	"github.com/pigo-agent/pigo/internal/llm"
)

// builtinProvider is a built-in provider's wire facts from pi-ai's model catalogue: the api and
// base URL its models use (only the apis pigo speaks).
type builtinProvider struct{ API, BaseURL string }

var builtinProviders = map[string]builtinProvider{
	"anthropic":                  {"anthropic-messages", "https://api.anthropic.com"},
	"openai":                     {"openai-responses", "https://api.openai.com/v1"},
	"openrouter":                 {"openai-completions", "https://openrouter.ai/api/v1"},
	"groq":                       {"openai-completions", "https://api.groq.com/openai/v1"},
	"cerebras":                   {"openai-completions", "https://api.cerebras.ai/v1"},
	"deepseek":                   {"openai-completions", "https://api.deepseek.com"},
	"xai":                        {"openai-responses", "https://api.x.ai/v1"},
	"zai":                        {"openai-completions", "https://api.z.ai/api/coding/paas/v4"},
	"zai-coding-cn":              {"openai-completions", "https://open.bigmodel.cn/api/coding/paas/v4"},
	"moonshotai":                 {"openai-completions", "https://api.moonshot.ai/v1"},
	"moonshotai-cn":              {"openai-completions", "https://api.moonshot.cn/v1"},
	"nvidia":                     {"openai-completions", "https://integrate.api.nvidia.com/v1"},
	"together":                   {"openai-completions", "https://api.together.ai/v1"},
	"huggingface":                {"openai-completions", "https://router.huggingface.co/v1"},
	"baseten":                    {"openai-completions", "https://inference.baseten.co/v1"},
	"ant-ling":                   {"openai-completions", "https://api.ant-ling.com/v1"},
	"kimi-coding":                {"anthropic-messages", "https://api.kimi.com/coding"},
	"minimax":                    {"anthropic-messages", "https://api.minimax.io/anthropic"},
	"minimax-cn":                 {"anthropic-messages", "https://api.minimaxi.com/anthropic"},
	"vercel-ai-gateway":          {"anthropic-messages", "https://ai-gateway.vercel.sh"},
	"xiaomi":                     {"openai-completions", "https://api.xiaomimimo.com/v1"},
	"qwen-token-plan":            {"openai-completions", "https://token-plan.ap-southeast-1.maas.aliyuncs.com/compatible-mode/v1"},
	"qwen-token-plan-cn":         {"openai-completions", "https://token-plan.cn-beijing.maas.aliyuncs.com/compatible-mode/v1"},
	"qwen-token-plan-individual": {"openai-completions", "https://token-plan.ap-southeast-1.maas.aliyuncs.com/compatible-mode/v1"},
}

// ResolveConfigValue resolves a models.json apiKey or header value as pi does (see
// auth.ResolveValue: "!command", $VAR and ${VAR} templates).
func ResolveConfigValue(s string) (value string, ok bool, missing []string) {
	return auth.ResolveValue(s, nil)
}

type costEntry struct {
	Input      *float64 `json:"input"`
	Output     *float64 `json:"output"`
	CacheRead  *float64 `json:"cacheRead"`
	CacheWrite *float64 `json:"cacheWrite"`
}

type modelEntry struct {
	ID               string             `json:"id"`
	Name             string             `json:"name"`
	API              string             `json:"api"`
	BaseURL          string             `json:"baseUrl"`
	ThinkingLevelMap map[string]*string `json:"thinkingLevelMap"`
	Cost             *costEntry         `json:"cost"`
	Headers          map[string]string  `json:"headers"`
	Compat           json.RawMessage    `json:"compat"`
}

type providerEntry struct {
	BaseURL        string                `json:"baseUrl"`
	APIKey         *string               `json:"apiKey"`
	API            string                `json:"api"`
	Headers        map[string]string     `json:"headers"`
	Compat         json.RawMessage       `json:"compat"`
	AuthHeader     bool                  `json:"authHeader"`
	Models         []modelEntry          `json:"models"`
	ModelOverrides map[string]modelEntry `json:"modelOverrides"`
}

// catalogueWire is what the shipped catalogue says about a built-in model beyond
// LookupCatalogue's facts: its display name, compat flags and thinking-level map.
type catalogueWire struct {
	Name             string             `json:"name"`
	Compat           json.RawMessage    `json:"compat"`
	ThinkingLevelMap map[string]*string `json:"thinkingLevelMap"`
	Headers          map[string]string  `json:"headers"`
}

// catalogueWireFor decodes only the catalogue line of provider/id (the JSON holds one model
// per line, provider and id first): decoding the whole 360 KB list would cost ~20 ms.
func catalogueWireFor(provider, id string) (catalogueWire, bool) {
	var w catalogueWire
	key := llm.AppendJSON(nil, llm.Obj{{K: "provider", V: provider}, {K: "id", V: id}})
	key = key[:len(key)-1] // an open object: {"provider":…,"id":…
	i := bytes.Index(modelsCatalogue, key)
	if i < 0 {
		return w, false
	}
	end := bytes.IndexByte(modelsCatalogue[i:], '\n')
	if end < 0 {
		end = len(modelsCatalogue) - i
	}
	line := bytes.TrimRight(bytes.TrimSpace(modelsCatalogue[i:i+end]), ",")
	if json.Unmarshal(line, &w) != nil {
		return w, false
	}
	return w, true
}

// mergeCompat is pi's mergeCompat: override's keys win; the routing and template objects
// merge one level deeper.
func mergeCompat(base, override json.RawMessage) json.RawMessage {
	if len(override) == 0 || string(override) == "null" {
		return base
	}
	if len(base) == 0 || string(base) == "null" {
		return override
	}
	var b, o map[string]json.RawMessage
	if json.Unmarshal(base, &b) != nil || json.Unmarshal(override, &o) != nil {
		return override
	}
	for k, v := range o {
		if k == "openRouterRouting" || k == "vercelGatewayRouting" || k == "chatTemplateKwargs" || k == "chatTemplateArgs" {
			var bn, on map[string]json.RawMessage
			if json.Unmarshal(b[k], &bn) == nil && json.Unmarshal(v, &on) == nil && bn != nil && on != nil {
				for nk, nv := range on {
					bn[nk] = nv
				}
				v, _ = json.Marshal(bn)
			}
		}
		b[k] = v
	}
	out, _ := json.Marshal(b)
	return out
}

func applyCost(c *llm.Cost, e *costEntry) {
	if e == nil {
		return
	}
	for _, f := range []struct {
		dst *float64
		src *float64
	}{{&c.Input, e.Input}, {&c.Output, e.Output}, {&c.CacheRead, e.CacheRead}, {&c.CacheWrite, e.CacheWrite}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
}

// ProviderModel resolves the session model (as SessionModel does) into everything a provider
// client needs: api, base URL, API key, headers, compat flags, costs and thinking-level map,
// from models.json's provider and model entries (and modelOverrides) or the built-in
// catalogue. The API key is apiKey (--api-key) when given, else models.json's apiKey ($VAR,
// ${VAR}, !command), else the provider's usual environment variable; an empty key is left for
// the provider to report ("No API key for provider: …"). The agent dir's openai-cost.json
// registers the seed's openai-cost provider (see openAICostProvider). It returns nil, nil when
// no model is configured.
func (c *Config) ProviderModel(flag, apiKey string) (*llm.Model, error) {
	mi, err := c.SessionModel(flag)
	if err != nil || mi == nil {
		return nil, err
	}
	m := &llm.Model{Provider: mi.Provider, ID: mi.ID, Name: mi.ID, Reasoning: mi.Reasoning, Input: mi.Input,
		ContextWindow: mi.ContextWindow, MaxTokens: mi.MaxTokens}
	if oc := c.openAICostProvider(); oc != nil && mi.Source == FileName(OpenAICost) {
		// The seed's provider: openai-completions, zero prices (the reported usage.cost is the
		// price), the key from --api-key or the configured environment variable, used as is
		// (pi-ai's envApiKeyAuth; the seed trims it only for its GET /models).
		om := oc.model(mi.ID)
		m.Name, m.API, m.BaseURL, m.ReportedCost = om.Name, "openai-completions", firstNonEmpty(om.BaseURL, oc.BaseURL), true
		m.APIKey = firstNonEmpty(apiKey, os.Getenv(oc.APIKeyEnv))
		return m, nil
	}
	pe, err := c.providerEntry(m.Provider)
	if err != nil {
		return nil, err
	}
	if pe == nil {
		pe = &providerEntry{}
	}
	defaults := builtinProviders[m.Provider]
	var def *modelEntry
	for i := range pe.Models {
		if strings.EqualFold(pe.Models[i].ID, m.ID) {
			def = &pe.Models[i]
		}
	}
	var modelHeaders = map[string]string{}
	// catalogueHeaders are a built-in model's own headers (GitHub Copilot's editor identity),
	// below every configured or credential header.
	var catalogueHeaders map[string]string
	if def != nil {
		m.API = firstNonEmpty(def.API, pe.API, defaults.API)
		if m.API == "" {
			return nil, fmt.Errorf(`Provider %s, model %s: no "api" specified. Set at provider or model level.`, m.Provider, def.ID)
		}
		m.BaseURL = firstNonEmpty(def.BaseURL, pe.BaseURL, defaults.BaseURL)
		if m.BaseURL == "" {
			return nil, fmt.Errorf(`Provider %s: "baseUrl" is required when defining custom models.`, m.Provider)
		}
		m.Name = firstNonEmpty(def.Name, def.ID)
		applyCost(&m.Cost, def.Cost)
		m.Compat = mergeCompat(pe.Compat, def.Compat)
		m.ThinkingLevelMap = def.ThinkingLevelMap
		for k, v := range def.Headers {
			modelHeaders[k] = v
		}
	} else {
		m.API, m.BaseURL = defaults.API, defaults.BaseURL
		if ce, ok := LookupCatalogue(mi.Provider, m.ID); ok {
			m.API = firstNonEmpty(ce.API, m.API)
			m.BaseURL = firstNonEmpty(ce.BaseURL, m.BaseURL)
			m.Cost = llm.Cost{Input: ce.Cost.Input, Output: ce.Cost.Output, CacheRead: ce.Cost.CacheRead, CacheWrite: ce.Cost.CacheWrite}
			if w, ok := catalogueWireFor(ce.Provider, ce.ID); ok {
				m.Name = firstNonEmpty(w.Name, m.Name)
				m.Compat = w.Compat
				m.ThinkingLevelMap = w.ThinkingLevelMap
				catalogueHeaders = w.Headers
			}
		}
		if pe.BaseURL != "" {
			m.BaseURL = pe.BaseURL
		}
		if pe.API != "" && m.API == "" {
			m.API = pe.API
		}
		m.Compat = mergeCompat(m.Compat, pe.Compat)
	}
	for k, ov := range pe.ModelOverrides {
		if !strings.EqualFold(k, m.ID) {
			continue
		}
		m.Name = firstNonEmpty(ov.Name, m.Name)
		applyCost(&m.Cost, ov.Cost)
		m.Compat = mergeCompat(m.Compat, ov.Compat)
		if ov.ThinkingLevelMap != nil {
			merged := map[string]*string{}
			for l, v := range m.ThinkingLevelMap {
				merged[l] = v
			}
			for l, v := range ov.ThinkingLevelMap {
				merged[l] = v
			}
			m.ThinkingLevelMap = merged
		}
		for hk, hv := range ov.Headers {
			if _, set := modelHeaders[hk]; !set {
				modelHeaders[hk] = hv
			}
		}
	}
	if m.API == "" {
		return nil, fmt.Errorf("model %s/%s: no api known (set \"api\" for the provider in models.json)", m.Provider, m.ID)
	}
	res, err := c.credential(m.Provider, apiKey, pe)
	if err != nil {
		return nil, err
	}
	// Headers as pi 1.6 layers them, each later layer replacing a name case-insensitively: the
	// credential's own (ANTHROPIC_AUTH_TOKEN's Authorization), the provider's, authHeader's
	// Authorization, then the model's (modelOverrides, then its models.json entry). Values are
	// resolved like API keys, with the stored credential's env read first.
	var hs []llm.Header
	for _, k := range sortedKeys(catalogueHeaders) {
		hs = llm.SetHeader(hs, k, catalogueHeaders[k])
	}
	for _, k := range sortedKeys(res.Headers) {
		hs = llm.SetHeader(hs, k, res.Headers[k])
	}
	for _, k := range sortedKeys(pe.Headers) {
		v, err := auth.ResolveValueOrError(pe.Headers[k], fmt.Sprintf(`provider "%s" header "%s"`, m.Provider, k), res.Env)
		if err != nil {
			return nil, err
		}
		hs = llm.SetHeader(hs, k, v)
	}
	m.APIKey = res.APIKey
	if pe.AuthHeader {
		if m.APIKey == "" {
			return nil, fmt.Errorf("authHeader requires a resolved API key")
		}
		hs = llm.SetHeader(hs, "Authorization", "Bearer "+m.APIKey)
	}
	for _, k := range sortedKeys(modelHeaders) {
		v, err := auth.ResolveValueOrError(modelHeaders[k], fmt.Sprintf(`model "%s/%s" header "%s"`, m.Provider, m.ID, k), res.Env)
		if err != nil {
			return nil, err
		}
		hs = llm.SetHeader(hs, k, v)
	}
	if len(hs) > 0 {
		m.Headers = map[string]string{}
		for _, h := range hs {
			m.Headers[h.Name] = h.Value
		}
	}
	m.Env = res.Env
	if res.Type == auth.TypeOAuth {
		m.Auth = &auth.Source{Store: auth.NewStore(c.AgentDir), Provider: m.Provider, Flow: auth.FlowFor(m.Provider)}
	}
	return m, nil
}

// credential resolves provider's request credential (see auth.Resolve): --api-key, the agent
// dir's auth.json, models.json's apiKey, the environment. An auth.json that cannot be read or
// is malformed is an error naming it.
func (c *Config) credential(provider, apiKey string, pe *providerEntry) (auth.Resolution, error) {
	file, err := auth.Read(auth.Path(c.AgentDir))
	if err != nil {
		return auth.Resolution{}, err
	}
	var configured *string
	if pe != nil {
		configured = pe.APIKey
	}
	return auth.Resolve(auth.Input{Provider: provider, RuntimeKey: apiKey, File: file, ConfiguredKey: configured})
}

// Credential says how provider's requests would be authenticated (and where the credential
// comes from) without making any request: `pigo check`, `pigo auth check` and the session's
// start use it to say what is missing before the first request.
func (c *Config) Credential(provider, apiKey string) (auth.Resolution, error) {
	pe, err := c.providerEntry(provider)
	if err != nil {
		return auth.Resolution{}, err
	}
	return c.credential(provider, apiKey, pe)
}

// providerEntry is models.json's entry for provider, by its exact key as pi's ModelConfig
// looks it up (nil when none; see modelsProviders).
func (c *Config) providerEntry(provider string) (*providerEntry, error) {
	ps, err := c.modelsProviders()
	if err != nil {
		return nil, err
	}
	if pe, ok := ps[provider]; ok {
		return &pe, nil
	}
	return nil, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

// ProxyURL is the HTTP(S) proxy for provider requests: settings httpProxy, which pi applies
// only when HTTP_PROXY and HTTPS_PROXY are unset (otherwise "" and the environment's proxy
// variables apply, NO_PROXY included).
func (c *Config) ProxyURL() (string, error) {
	eff, err := c.Effective(Settings)
	if err != nil || eff.Root == nil {
		return "", err
	}
	p := strings.TrimSpace(scalarString(eff.Root.Get("httpProxy")))
	if p == "" || os.Getenv("HTTP_PROXY") != "" || os.Getenv("HTTPS_PROXY") != "" {
		return "", nil
	}
	return p, nil
}

// ModelsJSONProviders lists the providers models.json names, sorted.
func (c *Config) ModelsJSONProviders() []string {
	eff, err := c.Effective(Models)
	if err != nil || eff.Root == nil {
		return nil
	}
	var file struct {
		Providers map[string]json.RawMessage `json:"providers"`
	}
	if json.Unmarshal(eff.JSON(), &file) != nil {
		return nil
	}
	out := make([]string, 0, len(file.Providers))
	for k := range file.Providers {
		out = append(out, k)
	}
	return sortedStrings(out)
}

func sortedStrings(ss []string) []string {
	for i := 1; i < len(ss); i++ {
		for j := i; j > 0 && ss[j] < ss[j-1]; j-- {
			ss[j], ss[j-1] = ss[j-1], ss[j]
		}
	}
	return ss
}

// MissingCredential says, before any request, that m's provider has no usable credential
// (pi's "No API key found for …" and what would give it one), or returns nil. A model with a
// per-request credential (OAuth), a key, or an Authorization-style header has one; so has a
// provider whose platform credentials were found (Amazon Bedrock, Google Vertex AI).
func (c *Config) MissingCredential(m *llm.Model, apiKey string) error {
	if m == nil || m.Auth != nil || m.APIKey != "" || m.ReportedCost {
		return nil
	}
	for _, h := range []string{"authorization", "x-api-key", "cf-aig-authorization", "api-key"} {
		if llm.HasHeader(m.Headers, h) {
			return nil
		}
	}
	r, err := c.Credential(m.Provider, apiKey)
	if err != nil {
		return err
	}
	if r.Type != "" {
		return nil
	}
	return fmt.Errorf("No API key found for %s.\n\nTo give it one: %s.", m.Provider, auth.Guidance(m.Provider))
}
