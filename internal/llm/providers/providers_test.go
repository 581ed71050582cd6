package providers

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/anthropic"
	"github.com/pigo-agent/pigo/internal/llm/google"
	"github.com/pigo-agent/pigo/internal/llm/mistral"
	"github.com/pigo-agent/pigo/internal/llm/openai"
)

func TestProviderFor(t *testing.T) {
	for api, want := range map[string]llm.Provider{"openai-completions": openai.Completions{}, "anthropic-messages": anthropic.Provider{},
		"openai-responses": openai.Responses{}, "openai-codex-responses": openai.Codex{}, "azure-openai-responses": openai.AzureResponses{},
		"google-generative-ai": google.Provider{API: "google-generative-ai"}, "google-vertex": google.Provider{API: "google-vertex"}, "mistral-conversations": mistral.Provider{}} {
		p, err := llm.ProviderFor(api)
		if err != nil || fmt.Sprintf("%#v", p) != fmt.Sprintf("%#v", llm.Wrapped(want)) {
			t.Errorf("%s: %T %v", api, p, err)
		}
	}
	_, err := llm.ProviderFor("carrier-pigeon")
	if err == nil || err.Error() != `unsupported api "carrier-pigeon" (pigo speaks `+strings.Join(llm.APIs(), ", ")+`)` {
		t.Errorf("unknown api: %v", err)
	}
}

// The official SDKs are test-only oracles (D17): no package of the binary may import them.
var sdks = []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go", "google.golang.org/genai",
	"cloud.google.com/go", "github.com/aws/aws-sdk-go-v2", "github.com/aws/aws-sdk-go/", "github.com/Azure/azure-sdk-for-go"}

func TestSDKsNotLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/pigo-agent/pigo/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		for _, sdk := range sdks {
			if strings.HasPrefix(line, sdk) {
				t.Errorf("a non-test package depends on %s", line)
			}
		}
	}
}
