package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/diag"
)

// openAICostConfig loads a temp agent dir holding openai-cost.json (and models.json when
// given), plus a project openai-cost.json when proj is given.
func openAICostConfig(t *testing.T, file, models, proj string) *Config {
	t.Helper()
	home := t.TempDir()
	agent := filepath.Join(home, "agent")
	project := filepath.Join(home, "proj")
	for dir, files := range map[string]map[string]string{
		agent:                         {"openai-cost.json": file, "models.json": models},
		filepath.Join(project, ".pi"): {"openai-cost.json": proj},
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range files {
			if text == "" {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	yes := true
	c, err := Load(Options{AgentDir: agent, ProjectDir: project, Home: home, Approve: &yes,
		Extensions: []string{"pi-extensions/src/openai-cost/index.ts"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The seed's package leaves openai-cost out of its default extensions: openai-cost.json alone
// registers nothing (check says why), and the provider appears when the extension's entry is
// named by -e (the file, or its folder) or by settings.json's extensions.
func TestOpenAICostOnlyWhenLoaded(t *testing.T) {
	home := t.TempDir()
	agent := filepath.Join(home, "agent")
	folder := filepath.Join(home, "pi-extensions", "src", "openai-cost")
	for _, d := range []string{agent, folder} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, text string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(folder, "index.ts"), "export default function () {}\n")
	write(filepath.Join(agent, "openai-cost.json"), `{"baseUrl":"http://127.0.0.1:9","models":[{"id":"c"}]}`)
	load := func(ext ...string) *Config {
		t.Helper()
		no := false
		c, err := Load(Options{AgentDir: agent, ProjectDir: home, Home: home, Approve: &no, Extensions: ext,
			Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	registered := func(c *Config) bool {
		m, err := c.ProviderModel("openai-cost/c", "")
		return err == nil && m.ReportedCost
	}
	c := load()
	if registered(c) {
		t.Error("openai-cost registered without its extension loaded")
	}
	found := false
	for _, d := range c.Check() {
		if d.Code == notLoadedCode && strings.Contains(d.Message, "openai-cost.json is not used") {
			found = true
		}
	}
	if !found {
		t.Errorf("check does not say why openai-cost.json is unused: %v", c.Check())
	}
	for _, ext := range []string{filepath.Join(folder, "index.ts"), folder} {
		c := load(ext)
		if !registered(c) {
			t.Errorf("-e %s: openai-cost not registered", ext)
		}
		for _, d := range c.Check() {
			if d.Code == "extension-skipped" || strings.Contains(d.Message, "openai-cost.json is not used") {
				t.Errorf("-e %s: %v", ext, d)
			}
		}
	}
	write(filepath.Join(agent, "settings.json"), `{"extensions": ["`+filepath.Join(folder, "index.ts")+`"]}`)
	c = load()
	if !registered(c) {
		t.Error("settings extensions: openai-cost not registered")
	}
	for _, d := range c.Check() {
		if d.Code == notLoadedCode {
			t.Errorf("settings extensions: %v", d)
		}
	}
}

func TestOpenAICostListedModel(t *testing.T) {
	t.Setenv("OPENAI_COST_API_KEY", " sekret")
	c := openAICostConfig(t, `{"baseUrl":" http://127.0.0.1:9/v1// ","models":[
		{"id":"big","name":"Big One","reasoning":true,"input":["text","image"],"contextWindow":200000,"maxTokens":32000},
		{"id":"small","baseUrl":"http://127.0.0.1:8/v2"}]}`, "", "")
	m, err := c.ProviderModel("openai-cost/big", "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Provider != "openai-cost" || m.ID != "big" || m.Name != "Big One" || m.API != "openai-completions" ||
		m.BaseURL != "http://127.0.0.1:9/v1" || m.APIKey != " sekret" || !m.ReportedCost || !m.Reasoning ||
		len(m.Input) != 2 || m.ContextWindow != 200000 || m.MaxTokens != 32000 || m.Cost.Input != 0 || m.Headers != nil {
		t.Errorf("model %+v", m)
	}
	m, err = c.ProviderModel("openai-cost/small:high", "flag-key")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "small" || m.BaseURL != "http://127.0.0.1:8/v2" || m.APIKey != "flag-key" || m.Reasoning ||
		len(m.Input) != 1 || m.Input[0] != "text" || m.ContextWindow != 128000 || m.MaxTokens != 8192 {
		t.Errorf("defaults %+v", m)
	}
	mi, err := c.SessionModel("openai-cost/big")
	if err != nil || mi.Source != "openai-cost.json" || mi.ContextWindow != 200000 {
		t.Errorf("session model %+v %v", mi, err)
	}
}

// A custom id and apiKeyEnv rename the provider and its key; an empty model list means any id
// with the seed's fetched-model defaults (no GET /models at session start).
func TestOpenAICostCustomIDAndNoModels(t *testing.T) {
	t.Setenv("MY_COST_KEY", "k2")
	t.Setenv("OPENAI_COST_API_KEY", "wrong")
	c := openAICostConfig(t, `{"id":"router","name":"Router","baseUrl":"http://127.0.0.1:9/v1","apiKeyEnv":"MY_COST_KEY","models":[]}`, "", "")
	m, err := c.ProviderModel("router/anything-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Provider != "router" || m.Name != "anything-1" || m.APIKey != "k2" || !m.ReportedCost ||
		m.ContextWindow != 128000 || m.MaxTokens != 8192 || m.BaseURL != "http://127.0.0.1:9/v1" {
		t.Errorf("model %+v", m)
	}
	// The default id is no longer the provider's.
	if m, err := c.ProviderModel("openai-cost/anything-1", ""); err == nil {
		t.Errorf("openai-cost/… is not registered under a custom id: %+v", m)
	}
}

// openai-cost.json registers its provider over models.json's entry of the same name.
func TestOpenAICostOverModelsJSON(t *testing.T) {
	c := openAICostConfig(t, `{"baseUrl":"http://127.0.0.1:9/v1","models":[{"id":"c"}]}`,
		`{"providers":{"openai-cost":{"baseUrl":"http://127.0.0.1:7/x","api":"openai-completions","apiKey":"mk",
			"models":[{"id":"c","contextWindow":1000,"cost":{"input":3}}]}}}`, "")
	m, err := c.ProviderModel("openai-cost/c", "")
	if err != nil {
		t.Fatal(err)
	}
	if m.BaseURL != "http://127.0.0.1:9/v1" || m.APIKey != "" || m.ContextWindow != 128000 || m.Cost.Input != 0 || !m.ReportedCost {
		t.Errorf("model %+v", m)
	}
}

// A missing, invalid or project-only file leaves the provider unregistered, as the seed does:
// the model resolves like any other and takes no reported cost.
func TestOpenAICostOff(t *testing.T) {
	for name, tc := range map[string]struct{ file, proj string }{
		"missing":        {},
		"no baseUrl":     {file: `{"models":[{"id":"c"}]}`},
		"not json":       {file: `{"baseUrl":`},
		"bad model":      {file: `{"baseUrl":"http://127.0.0.1:9","models":[{"name":"no id"}]}`},
		"project only":   {proj: `{"baseUrl":"http://127.0.0.1:9"}`},
		"blank baseUrl ": {file: `{"baseUrl":"   "}`},
	} {
		t.Run(name, func(t *testing.T) {
			c := openAICostConfig(t, tc.file, `{"providers":{"openai-cost":{"baseUrl":"http://127.0.0.1:7/x","api":"openai-completions"}}}`, tc.proj)
			if !c.Trusted {
				t.Fatal("the project should be trusted")
			}
			m, err := c.ProviderModel("openai-cost/c", "")
			if err != nil {
				t.Fatal(err)
			}
			if m.ReportedCost || m.BaseURL != "http://127.0.0.1:7/x" {
				t.Errorf("model %+v", m)
			}
		})
	}
}

// Model references to the openai-cost provider are known: a listed id, or any id when the file
// lists no models (the seed fetches them); an unlisted id of a listed provider stays an info.
func TestOpenAICostModelRefs(t *testing.T) {
	cases := []struct{ file, settings, sev string }{
		{`{"baseUrl":"http://127.0.0.1:9","models":[{"id":"c"}]}`, `{"defaultModel":"openai-cost/c"}`, ""},
		{`{"baseUrl":"http://127.0.0.1:9","models":[{"id":"c"}]}`, `{"defaultModel":"openai-cost/d"}`, "info"},
		{`{"baseUrl":"http://127.0.0.1:9","id":"router"}`, `{"defaultProvider":"router","defaultModel":"any"}`, ""},
		{``, `{"defaultModel":"openai-cost/c"}`, "info"},
	}
	for _, tc := range cases {
		home, proj := t.TempDir(), t.TempDir()
		// The extension loaded through settings.json (TestOpenAICostOnlyWhenLoaded).
		settings := `{"extensions":["pi-extensions/src/openai-cost/index.ts"],` + tc.settings[1:]
		write(t, filepath.Join(home, ".pi", "agent", "settings.json"), settings)
		if tc.file != "" {
			write(t, filepath.Join(home, ".pi", "agent", "openai-cost.json"), tc.file)
		}
		c := load(t, home, proj, ptr(false))
		got := ""
		for _, d := range c.checkModelRefs() {
			got = map[diag.Severity]string{diag.Warning: "warning", diag.Info: "info", diag.Error: "error"}[d.Severity]
		}
		if got != tc.sev {
			t.Errorf("%s + %s: %q, want %q", tc.file, tc.settings, got, tc.sev)
		}
	}
}

// A bare id that only openai-cost.json lists is resolved to that provider; one the catalogue
// also lists stays the catalogue's.
func TestOpenAICostBareID(t *testing.T) {
	c := openAICostConfig(t, `{"baseUrl":"http://127.0.0.1:9/v1","models":[{"id":"only-here"},{"id":"claude-sonnet-4-5"}]}`, "", "")
	m, err := c.ProviderModel("only-here", "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Provider != "openai-cost" || !m.ReportedCost || m.BaseURL != "http://127.0.0.1:9/v1" {
		t.Errorf("model %+v", m)
	}
	mi, err := c.SessionModel("claude-sonnet-4-5")
	if err != nil || mi.Source != "catalogue" || mi.Provider == "openai-cost" {
		t.Errorf("catalogue id: %+v %v", mi, err)
	}
}
