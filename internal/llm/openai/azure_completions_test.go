package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

type captureDoer struct{ req *http.Request }

func (c *captureDoer) Do(r *http.Request) (*http.Response, error) {
	c.req = r
	return nil, errors.New("captured")
}

// Azure AI Foundry's chat completions (the catalogue's azure models on openai-completions, with
// no base URL of their own): the endpoint from AZURE_OPENAI_RESOURCE_NAME with /openai/v1, the
// deployment from the map as the model, the key as a bearer token; without an endpoint, pi's
// error.
func TestAzureFoundryCompletions(t *testing.T) {
	t.Setenv("AZURE_OPENAI_BASE_URL", "")
	t.Setenv("AZURE_OPENAI_RESOURCE_NAME", "")
	m := &llm.Model{Provider: "azure", ID: "deepseek-v4-pro", API: "openai-completions", APIKey: "azure-key", MaxTokens: 1000, ContextWindow: 100000,
		Env: map[string]string{"AZURE_OPENAI_RESOURCE_NAME": "contoso", "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "deepseek-v4-pro=ds-prod"}}
	c := &llm.Context{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("hi")}}}}
	d := &captureDoer{}
	Completions{}.Stream(context.Background(), m, c, &llm.Options{HTTPClient: d}, nil)
	if d.req == nil {
		t.Fatal("no request")
	}
	body, _ := io.ReadAll(d.req.Body)
	if got := d.req.URL.String(); got != "https://contoso.openai.azure.com/openai/v1/chat/completions" {
		t.Errorf("url %s", got)
	}
	if !strings.HasPrefix(string(body), `{"model":"ds-prod",`) || d.req.Header.Get("Authorization") != "Bearer azure-key" || d.req.Header.Get("api-key") != "" {
		t.Errorf("body %s headers %v", body, d.req.Header)
	}
	m.Env = nil
	msg := Completions{}.Stream(context.Background(), m, c, &llm.Options{HTTPClient: d}, nil)
	if !strings.HasPrefix(msg.ErrorMessage, "Azure OpenAI base URL is required.") {
		t.Errorf("%q", msg.ErrorMessage)
	}
}
