package auth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Input is everything a provider's request credential is chosen from.
type Input struct {
	Provider string
	// RuntimeKey is --api-key ("" when not given).
	RuntimeKey string
	// File is auth.json (nil: none).
	File *File
	// ConfiguredKey is models.json's apiKey for the provider (nil: none).
	ConfiguredKey *string
}

// Resolution is the credential a provider's requests use and where it came from. An empty
// Type means the provider has no usable credential.
type Resolution struct {
	Type    string // TypeAPIKey, TypeOAuth or ""
	APIKey  string
	Headers map[string]string
	// Env is the stored credential's environment, read before the process environment for
	// this provider (its header templates, its account or endpoint variables).
	Env map[string]string
	// Source says where the credential came from, for `pigo auth check` and messages; never
	// the secret itself.
	Source string
	// OAuth is the stored OAuth credential (Type oauth).
	OAuth *Credential
}

// Resolve picks a provider's credential in pi 1.6's order: --api-key; else the provider's
// auth.json entry, which owns the provider when present (an OAuth entry needs a provider that
// signs in; an api_key entry whose key resolves to nothing falls back to the provider's
// environment variables, as pi's key reader does); else models.json's apiKey; else the
// environment. An unresolvable models.json apiKey is an error with pi's text.
func Resolve(in Input) (Resolution, error) {
	info, builtin := Provider(in.Provider)
	if in.RuntimeKey != "" {
		if builtin && info.KeyName == "" && in.ConfiguredKey == nil {
			// An account-only provider has no key method; pi leaves it unconfigured.
			return Resolution{}, nil
		}
		return Resolution{Type: TypeAPIKey, APIKey: in.RuntimeKey, Source: "--api-key"}, nil
	}
	if in.File != nil {
		if c := in.File.Get(in.Provider); c != nil {
			return fromStored(in, info, builtin, c), nil
		}
	}
	if in.ConfiguredKey != nil {
		key, err := ResolveValueOrError(*in.ConfiguredKey, fmt.Sprintf(`API key for provider "%s"`, in.Provider), nil)
		if err != nil {
			return Resolution{}, err
		}
		return Resolution{Type: TypeAPIKey, APIKey: key, Source: "models.json apiKey"}, nil
	}
	if builtin {
		if r, special := ambient(info.ID, nil); special {
			return r, nil
		}
		return fromEnv(info, nil), nil
	}
	return Resolution{}, nil
}

// ambient resolves the providers pi lets use their platform's credentials: Amazon Bedrock (a
// bearer token, or the AWS credential chain: a profile, access keys, an ECS task role, a web
// identity) and Google Vertex AI (an API key, or application default credentials with a
// project and a location). Their clients read the chain themselves, so the resolution may
// carry no key. special is false for every other provider.
func ambient(provider string, c *Credential) (Resolution, bool) {
	var env map[string]string
	stored := ""
	if c != nil {
		env = c.Env
		if c.KeySet {
			stored, _, _ = ResolveValue(c.Key, c.Env)
		}
	}
	src := func(fromStore bool, s string) string {
		if fromStore {
			return "auth.json"
		}
		return s
	}
	switch provider {
	case "amazon-bedrock":
		switch {
		case stored != "":
			return Resolution{Type: TypeAPIKey, APIKey: stored, Env: env, Source: "auth.json"}, true
		case Lookup("AWS_BEARER_TOKEN_BEDROCK", nil) != "":
			return Resolution{Type: TypeAPIKey, Env: env, Source: "AWS_BEARER_TOKEN_BEDROCK"}, true
		case env["AWS_PROFILE"] != "" || Lookup("AWS_PROFILE", nil) != "":
			return Resolution{Type: TypeAPIKey, Env: env, Source: src(env["AWS_PROFILE"] != "", "AWS_PROFILE")}, true
		case Lookup("AWS_ACCESS_KEY_ID", nil) != "" && Lookup("AWS_SECRET_ACCESS_KEY", nil) != "":
			return Resolution{Type: TypeAPIKey, Env: env, Source: "AWS access keys"}, true
		case Lookup("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", nil) != "" || Lookup("AWS_CONTAINER_CREDENTIALS_FULL_URI", nil) != "":
			return Resolution{Type: TypeAPIKey, Env: env, Source: "ECS task role"}, true
		case Lookup("AWS_WEB_IDENTITY_TOKEN_FILE", nil) != "":
			return Resolution{Type: TypeAPIKey, Env: env, Source: "web identity token"}, true
		}
		return Resolution{}, true
	case "google-vertex":
		if stored != "" {
			return Resolution{Type: TypeAPIKey, APIKey: stored, Env: env, Source: "auth.json"}, true
		}
		if k := Lookup("GOOGLE_CLOUD_API_KEY", nil); k != "" {
			return Resolution{Type: TypeAPIKey, APIKey: k, Env: env, Source: "GOOGLE_CLOUD_API_KEY"}, true
		}
		if ADCFile(env) != "" && VertexProject(env) != "" && Lookup("GOOGLE_CLOUD_LOCATION", env) != "" {
			return Resolution{Type: TypeAPIKey, Env: env, Source: src(c != nil, "gcloud application default credentials")}, true
		}
		return Resolution{}, true
	}
	return Resolution{}, false
}

// ADCFile is the application default credentials file Google's libraries read
// (GOOGLE_APPLICATION_CREDENTIALS, else gcloud's well-known file), "" when it does not exist.
func ADCFile(env map[string]string) string {
	p := Lookup("GOOGLE_APPLICATION_CREDENTIALS", env)
	if p == "" {
		home, _ := os.UserHomeDir()
		p = filepath.Join(home, ".config", "gcloud", "application_default_credentials.json")
	} else if strings.HasPrefix(p, "~/") {
		home, _ := os.UserHomeDir()
		p = filepath.Join(home, p[2:])
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// VertexProject is the Google Cloud project (GOOGLE_CLOUD_PROJECT, else GCLOUD_PROJECT).
func VertexProject(env map[string]string) string {
	if p := Lookup("GOOGLE_CLOUD_PROJECT", env); p != "" {
		return p
	}
	return Lookup("GCLOUD_PROJECT", env)
}

func fromStored(in Input, info ProviderInfo, builtin bool, c *Credential) Resolution {
	switch c.Type {
	case TypeOAuth:
		if !builtin || info.OAuthName == "" {
			return Resolution{}
		}
		return Resolution{Type: TypeOAuth, APIKey: c.Access, Env: nil, Source: "auth.json (signed in)", OAuth: c}
	case TypeAPIKey:
		if builtin && info.KeyName == "" && in.ConfiguredKey == nil {
			return Resolution{}
		}
		if r, special := ambient(info.ID, c); special {
			return r
		}
		key := ""
		if c.KeySet && c.Key != "" {
			key, _, _ = ResolveValue(c.Key, c.Env)
		}
		if key != "" {
			return Resolution{Type: TypeAPIKey, APIKey: key, Env: c.Env, Source: "auth.json"}
		}
		if !builtin {
			return Resolution{}
		}
		r := fromEnv(info, nil)
		if r.Type != "" {
			r.Env = c.Env
		}
		return r
	}
	return Resolution{}
}

// fromEnv is the provider's key from its environment variables; for anthropic,
// ANTHROPIC_AUTH_TOKEN is a bearer token sent as Authorization and wins over the keys.
func fromEnv(info ProviderInfo, env map[string]string) Resolution {
	for _, name := range info.EnvVars {
		v := Lookup(name, env)
		if v == "" {
			continue
		}
		if name == "ANTHROPIC_AUTH_TOKEN" {
			return Resolution{Type: TypeAPIKey, Headers: map[string]string{"Authorization": "Bearer " + v}, Source: name}
		}
		return Resolution{Type: TypeAPIKey, APIKey: v, Source: name}
	}
	return Resolution{}
}

// Guidance says how to give provider a credential: its variables, and `pigo auth login` for a
// provider pigo can sign in to or save a key for.
func Guidance(provider string) string {
	info, builtin := Provider(provider)
	var ways []string
	switch provider {
	case "amazon-bedrock":
		ways = append(ways, "set AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), AWS_PROFILE (a profile of ~/.aws/config), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	if builtin && len(info.EnvVars) > 0 {
		names := info.EnvVars
		if provider == "anthropic" {
			names = []string{"ANTHROPIC_API_KEY"}
		}
		ways = append(ways, "set "+strings.Join(names, " or "))
	}
	if builtin && (info.KeyName != "" || info.OAuthName != "") {
		ways = append(ways, fmt.Sprintf("run `pigo auth login %s`", info.ID))
	}
	if !builtin {
		ways = append(ways, fmt.Sprintf(`set "apiKey" for provider %q in models.json`, provider))
	}
	return strings.Join(ways, ", or ")
}
