package openai

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// AzureResponsesAPI is the models.json api value of Azure OpenAI's Responses endpoint (the
// catalogue's azure provider; pi 1.6 keeps the id).
const AzureResponsesAPI = "azure-openai-responses"

// AzureResponses streams azure-openai-responses responses: the Responses wire as pi 1.6 sends it
// through the AzureOpenAI client — the key in an api-key header, the model named by its
// deployment, ?api-version= on the URL, the base URL from the environment or the model.
type AzureResponses struct{}

// azureEnv reads a provider variable: the stored credential's env first, then the process's.
func azureEnv(m *llm.Model, name string) string {
	if v := m.Env[name]; v != "" {
		return v
	}
	return os.Getenv(name)
}

// azureDeployment is pi's resolveDeploymentName: AZURE_OPENAI_DEPLOYMENT_NAME_MAP
// ("model=deployment,…") maps the model id, else the id is the deployment.
func azureDeployment(m *llm.Model) string {
	for _, entry := range strings.Split(azureEnv(m, "AZURE_OPENAI_DEPLOYMENT_NAME_MAP"), ",") {
		id, dep, ok := strings.Cut(strings.TrimSpace(entry), "=")
		if ok && strings.TrimSpace(id) == m.ID && strings.TrimSpace(dep) != "" {
			return strings.TrimSpace(dep)
		}
	}
	return m.ID
}

// azureBaseURL is pi's resolveAzureBaseUrl: AZURE_OPENAI_BASE_URL, else the resource name's
// endpoint, else the model's base URL; an Azure host gets the /openai/v1 path.
func azureBaseURL(m *llm.Model) (string, error) {
	base := strings.TrimSpace(azureEnv(m, "AZURE_OPENAI_BASE_URL"))
	if base == "" {
		if r := azureEnv(m, "AZURE_OPENAI_RESOURCE_NAME"); r != "" {
			base = "https://" + r + ".openai.azure.com/openai/v1"
		}
	}
	if base == "" {
		base = m.BaseURL
	}
	if base == "" {
		return "", fmt.Errorf("Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, or pass azureBaseUrl, azureResourceName, or model.baseUrl.")
	}
	trimmed := strings.TrimRight(strings.TrimSpace(base), "/")
	u, err := url.Parse(trimmed)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("Invalid Azure OpenAI base URL: %s", base)
	}
	h := u.Hostname()
	azure := strings.HasSuffix(h, ".openai.azure.com") || strings.HasSuffix(h, ".cognitiveservices.azure.com") || strings.HasSuffix(h, ".ai.azure.com")
	switch strings.TrimRight(u.Path, "/") {
	case "", "/openai", "/openai/v1/responses":
		if azure {
			u.Path, u.RawPath, u.RawQuery = "/openai/v1", "", ""
		}
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// BuildAzureResponsesBody is the body pi's Azure client sends: the Responses body with the
// deployment as the model and no cache retention.
func BuildAzureResponsesBody(m *llm.Model, c *llm.Context, o *llm.Options) []byte {
	return llm.AppendJSON(nil, azureParams(m, c, o))
}

func azureParams(m *llm.Model, c *llm.Context, o *llm.Options) llm.Obj {
	p := resolveResponsesParams(m, c, o)
	p.retention = "" // Azure sends the session's cache key only
	body := buildResponsesParams(m, c, ResolveResponsesCompat(m), p)
	return body.Set("model", azureDeployment(m))
}

// Stream implements llm.Provider.
func (AzureResponses) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	b := llm.NewBuilder(m, emit).Live(o)
	if m.APIKey == "" {
		return b.Fail(ctx, "No API key for provider: "+m.Provider)
	}
	base, err := azureBaseURL(m)
	if err != nil {
		return b.Fail(ctx, azureErrorPrefix+": "+err.Error())
	}
	version := azureEnv(m, "AZURE_OPENAI_API_VERSION")
	if version == "" {
		version = "v1"
	}
	hs := []llm.Header{{Name: "Content-Type", Value: "application/json"}, {Name: "Accept", Value: "application/json"},
		{Name: "api-key", Value: m.APIKey}}
	for _, h := range ResponsesHeaders(m, c, o, ResponsesCompat{}, "") {
		hs = llm.SetHeader(hs, h.Name, h.Value)
	}
	rc, failed := llm.Open(ctx, b, o, llm.Request{URL: base + "/responses?api-version=" + url.QueryEscape(version), Headers: hs,
		Body:      llm.AppendJSON(nil, azureParams(m, c, o)),
		HTTPError: func(status int, text string) string { return llm.OpenAIHTTPError(status, text, azureErrorPrefix) }})
	if failed != nil {
		return failed
	}
	defer rc.Close()
	return runResponses(ctx, b, m, rc)
}

const azureErrorPrefix = "Azure OpenAI API error"

func init() { llm.Register(AzureResponsesAPI, AzureResponses{}) }
