package auth

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// LoginMethod picks how `pigo auth login` (and /login) signs in to provider, as pi does: the
// account sign-in unless apiKey asks for a key (or the provider has none); a provider only
// reachable with ambient credentials is refused with what configures it. custom marks a
// models.json provider (signed in to with a key).
func LoginMethod(provider string, apiKey, custom bool) (string, error) {
	if custom {
		return TypeAPIKey, nil
	}
	info, ok := Provider(provider)
	if !ok {
		return "", fmt.Errorf("Unknown provider %q.", provider)
	}
	if !apiKey && info.OAuthName != "" {
		if FlowFor(info.ID) == nil {
			return "", fmt.Errorf("pigo cannot sign in to %s with an account yet (pi can); use an API key (`pigo auth login %s --api-key`) or sign in with pi, whose auth.json pigo reads", info.Name, info.ID)
		}
		return TypeOAuth, nil
	}
	if info.KeyName != "" {
		return TypeAPIKey, nil
	}
	if apiKey && info.OAuthName != "" {
		return "", fmt.Errorf("%s has no API key login. Omit --api-key to sign in.", info.Name)
	}
	return "", fmt.Errorf("%s is configured outside pigo (ambient credentials).", info.Name)
}

// LoginProviders lists the providers one can sign in to or save a key for: the built-in ones
// and models.json's custom providers, sorted.
func LoginProviders(custom []string) []string {
	set := map[string]bool{}
	for _, p := range providers {
		if p.KeyName != "" || p.OAuthName != "" {
			set[p.ID] = true
		}
	}
	for _, p := range custom {
		set[p] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Login signs in to provider with method (TypeOAuth: the provider's account flow; TypeAPIKey:
// the key and the values the provider needs, asked through ui) and stores the credential in
// auth.json under the lock, replacing what was there.
func Login(ctx context.Context, store *Store, provider, method string, ui Interaction) (*Credential, error) {
	var c *Credential
	var err error
	switch method {
	case TypeOAuth:
		f := FlowFor(provider)
		if f == nil {
			return nil, fmt.Errorf("pigo has no sign-in for %s", provider)
		}
		c, err = f.Login(withAgentDir(ctx, filepath.Dir(store.Path)), ui)
	case TypeAPIKey:
		c, err = keyLogin(ctx, provider, ui)
	default:
		return nil, fmt.Errorf("unknown sign-in method %q", method)
	}
	if err != nil {
		return nil, err
	}
	c.Type = method
	if ctx.Err() != nil {
		return nil, errors.New("Login cancelled")
	}
	return store.Modify(context.WithoutCancel(ctx), provider, func(*Credential) (*Credential, error) { return c, nil })
}

// Logout removes provider's stored credential and reports whether there was one.
func Logout(ctx context.Context, store *Store, provider string) (bool, error) {
	return store.Delete(ctx, provider)
}

func apiKeyEntry(key string, env map[string]string) *Credential {
	c := &Credential{Type: TypeAPIKey, Fields: llm.Obj{{K: "type", V: TypeAPIKey}}}
	if key != "" {
		c.Key, c.KeySet = key, true
	}
	if len(env) > 0 {
		c.Env = env
	}
	return c
}

func ask(ctx context.Context, ui Interaction, kind, msg string) (string, error) {
	s, err := ui.Prompt(ctx, Prompt{Kind: kind, Message: msg})
	return strings.TrimSpace(s), err
}

// keyLogin asks for what a provider's key method stores, with pi's prompts.
func keyLogin(ctx context.Context, provider string, ui Interaction) (*Credential, error) {
	info, builtin := Provider(provider)
	switch info.ID {
	case "cloudflare-workers-ai", "cloudflare-ai-gateway":
		key, err := ask(ctx, ui, PromptSecret, "Enter Cloudflare API key")
		if err != nil {
			return nil, err
		}
		account, err := ask(ctx, ui, PromptText, "Enter Cloudflare account ID")
		if err != nil {
			return nil, err
		}
		env := map[string]string{"CLOUDFLARE_ACCOUNT_ID": account}
		if info.ID == "cloudflare-ai-gateway" {
			gw, err := ask(ctx, ui, PromptText, "Enter Cloudflare AI Gateway ID")
			if err != nil {
				return nil, err
			}
			env["CLOUDFLARE_GATEWAY_ID"] = gw
		}
		return apiKeyEntry(key, env), nil
	case "google-vertex":
		m, err := ui.Prompt(ctx, Prompt{Kind: PromptSelect, Message: "Select Google Vertex AI authentication method:",
			Options: []Option{{"api-key", "Google Cloud API key"}, {"adc", "Application Default Credentials"}, {"service-account", "Service account credentials file"}}})
		if err != nil {
			return nil, err
		}
		if m == "api-key" {
			key, err := ask(ctx, ui, PromptSecret, "Enter Google Cloud API key")
			return apiKeyEntry(key, nil), err
		}
		if m != "adc" && m != "service-account" {
			return nil, fmt.Errorf("Unknown Google Vertex AI auth method: %s", m)
		}
		if m == "adc" {
			ui.Notify(Notice{Message: "Run `gcloud auth application-default login`, then provide the project and location."})
		} else {
			ui.Notify(Notice{Message: "Provide a service account credentials file, project, and location."})
		}
		project, err := ask(ctx, ui, PromptText, "Enter Google Cloud project ID")
		if err != nil {
			return nil, err
		}
		location, err := ask(ctx, ui, PromptText, "Enter Google Cloud location")
		if err != nil {
			return nil, err
		}
		env := map[string]string{"GOOGLE_CLOUD_PROJECT": project, "GOOGLE_CLOUD_LOCATION": location}
		if m == "service-account" {
			p, err := ask(ctx, ui, PromptText, "Enter service account credentials file path")
			if err != nil {
				return nil, err
			}
			env["GOOGLE_APPLICATION_CREDENTIALS"] = p
		}
		return apiKeyEntry("", env), nil
	case "amazon-bedrock":
		m, err := ui.Prompt(ctx, Prompt{Kind: PromptSelect, Message: "Select Amazon Bedrock authentication method:",
			Options: []Option{{"bearer-token", "Bearer token"}, {"aws-profile", "AWS profile"}, {"credential-chain", "Existing AWS credential chain"}}})
		if err != nil {
			return nil, err
		}
		switch m {
		case "bearer-token":
			key, err := ask(ctx, ui, PromptSecret, "Enter Amazon Bedrock bearer token")
			return apiKeyEntry(key, nil), err
		case "aws-profile":
			ui.Notify(Notice{Message: "Amazon Bedrock supports AWS profiles, IAM credentials, and role-based credentials."})
			p, err := ask(ctx, ui, PromptText, "Enter AWS profile name")
			return apiKeyEntry("", map[string]string{"AWS_PROFILE": p}), err
		case "credential-chain":
			ui.Notify(Notice{Message: "Amazon Bedrock supports AWS profiles, IAM credentials, and role-based credentials."})
			_, err := ask(ctx, ui, PromptText, "Configure AWS credentials, then press Enter to continue")
			return apiKeyEntry("", nil), err
		}
		return nil, fmt.Errorf("Unknown Amazon Bedrock auth method: %s", m)
	}
	msg := "Enter API key"
	if builtin && info.KeyName != "" {
		msg = "Enter " + info.KeyName
	}
	key, err := ask(ctx, ui, PromptSecret, msg)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, errors.New("no API key given")
	}
	return apiKeyEntry(key, nil), nil
}
