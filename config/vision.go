package config

import (
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// VisionModel is the seed's vision-agent model: settings.visionConfig, resolved through
// models.json and the catalogue.
type VisionModel struct {
	// Configured is false when the settings name no vision model.
	Configured bool
	// Provider is the provider as the tool's texts show it (visionConfig.provider, else
	// defaultProvider, else "default"); ID the model id.
	Provider, ID string
	// Model is the resolved model, nil when the registry does not know it; Proxy the HTTP
	// proxy its requests use.
	Model *llm.Model
	Proxy string
}

// VisionModel reads settings.visionConfig (the provider falling back to defaultProvider) and
// resolves it. A session resolves it once and hands describe_image the value.
func (c *Config) VisionModel() (VisionModel, error) {
	var t VisionModel
	eff, err := c.Effective(Settings)
	if err != nil || eff.Root == nil {
		return t, err
	}
	vc := eff.Root.Get("visionConfig")
	if vc == nil {
		return t, nil
	}
	str := func(v *Value) string {
		if v == nil || v.Node == nil {
			return ""
		}
		return strings.TrimSpace(v.Node.Str)
	}
	t.ID = str(vc.Get("model"))
	if t.ID == "" {
		return t, nil
	}
	t.Configured = true
	t.Provider = str(vc.Get("provider"))
	if t.Provider == "" {
		t.Provider = str(eff.Root.Get("defaultProvider"))
	}
	if t.Provider == "" {
		t.Provider = "default"
	}
	info, err := c.SessionModel(t.Provider + "/" + t.ID)
	if err != nil || info == nil || info.Source == "defaults" {
		return t, nil
	}
	if t.Model, err = c.ProviderModel(t.Provider+"/"+t.ID, ""); err != nil {
		return t, err
	}
	t.Proxy, _ = c.ProxyURL()
	return t, nil
}
