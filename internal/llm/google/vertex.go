package google

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// vertexRequest is where a Vertex request goes and how it is authenticated.
type vertexRequest struct {
	url     string
	headers []llm.Header
}

var placeholderKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<[^>]+>$`) })

func env(m *llm.Model, name string) string {
	if v := m.Env[name]; v != "" {
		return v
	}
	return os.Getenv(name)
}

// vertexTarget is pi 1.6's choice (through @google/genai): an API key goes to the express
// endpoint with x-goog-api-key; otherwise application default credentials with the project
// and location, as a bearer token, to the regional endpoint. A models.json baseUrl without
// "{location}" replaces the endpoint (the path after it is kept).
func vertexTarget(ctx context.Context, m *llm.Model, o *llm.Options) (vertexRequest, error) {
	key := strings.TrimSpace(m.APIKey)
	if key == "gcp-vertex-credentials" || placeholderKey().MatchString(key) {
		key = ""
	}
	custom := strings.TrimSpace(m.BaseURL)
	if strings.Contains(custom, "{location}") {
		custom = ""
	}
	version := "/v1"
	if custom != "" && versionInPath().MatchString(custom) {
		version = ""
	}
	model := "/publishers/google/models/" + m.ID + ":streamGenerateContent?alt=sse"
	if key != "" {
		base := "https://aiplatform.googleapis.com"
		if custom != "" {
			base = strings.TrimRight(custom, "/")
		}
		return vertexRequest{url: base + version + model, headers: []llm.Header{{Name: "x-goog-api-key", Value: key}}}, nil
	}
	project := env(m, "GOOGLE_CLOUD_PROJECT")
	if project == "" {
		project = env(m, "GCLOUD_PROJECT")
	}
	if project == "" {
		return vertexRequest{}, errors.New("Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT or pass project in options.")
	}
	location := env(m, "GOOGLE_CLOUD_LOCATION")
	if location == "" {
		return vertexRequest{}, errors.New("Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location in options.")
	}
	token, err := adcToken(ctx, m, o)
	if err != nil {
		return vertexRequest{}, err
	}
	var url string
	switch {
	case custom != "":
		url = strings.TrimRight(custom, "/") + version + model
	case location == "global":
		url = "https://aiplatform.googleapis.com/v1/projects/" + project + "/locations/global" + model
	default:
		url = "https://" + location + "-aiplatform.googleapis.com/v1/projects/" + project + "/locations/" + location + model
	}
	return vertexRequest{url: url, headers: []llm.Header{{Name: "Authorization", Value: "Bearer " + token}}}, nil
}

var versionInPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|/)v\d+(?:beta\d*)?(?:/|$)`) })

// adcFile is Google's application default credentials file: GOOGLE_APPLICATION_CREDENTIALS,
// else gcloud's well-known one.
func adcFile(m *llm.Model) string {
	if p := env(m, "GOOGLE_APPLICATION_CREDENTIALS"); p != "" {
		if strings.HasPrefix(p, "~/") {
			home, _ := os.UserHomeDir()
			p = filepath.Join(home, p[2:])
		}
		return p
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config", "gcloud", "application_default_credentials.json")
}

type adcCreds struct {
	Type         string `json:"type"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	RefreshToken string `json:"refresh_token"`
	ClientEmail  string `json:"client_email"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
	TokenURI     string `json:"token_uri"`
}

type cachedToken struct {
	token   string
	expires time.Time
}

var (
	tokensMu sync.Mutex
	tokens   = map[string]cachedToken{}
)

// adcToken trades the credentials file for an access token (an authorized user's refresh
// token, or a service account's signed assertion), cached until a minute before it expires.
func adcToken(ctx context.Context, m *llm.Model, o *llm.Options) (string, error) {
	path := adcFile(m)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("Vertex AI: no application default credentials (%s): run `gcloud auth application-default login`, or set GOOGLE_CLOUD_API_KEY", path)
	}
	tokensMu.Lock()
	if t, ok := tokens[path]; ok && time.Until(t.expires) > time.Minute {
		tokensMu.Unlock()
		return t.token, nil
	}
	tokensMu.Unlock()
	var c adcCreds
	if err := json.Unmarshal(data, &c); err != nil {
		return "", fmt.Errorf("Vertex AI: %s: not a credentials file: %v", path, err)
	}
	tokenURI := c.TokenURI
	if tokenURI == "" {
		tokenURI = "https://oauth2.googleapis.com/token"
	}
	form := url.Values{}
	switch c.Type {
	case "authorized_user":
		form.Set("grant_type", "refresh_token")
		form.Set("client_id", c.ClientID)
		form.Set("client_secret", c.ClientSecret)
		form.Set("refresh_token", c.RefreshToken)
	case "service_account":
		assertion, err := signedAssertion(&c, tokenURI)
		if err != nil {
			return "", fmt.Errorf("Vertex AI: %s: %v", path, err)
		}
		form.Set("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
		form.Set("assertion", assertion)
	default:
		return "", fmt.Errorf("Vertex AI: %s: credentials of type %q are not supported (authorized_user and service_account are)", path, c.Type)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURI, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := llm.Client(o).Do(req)
	if err != nil {
		return "", fmt.Errorf("Vertex AI: getting an access token failed: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var tr struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(body, &tr)
	if resp.StatusCode != 200 || tr.AccessToken == "" {
		why := tr.Description
		if why == "" {
			why = tr.Error
		}
		return "", fmt.Errorf("Vertex AI: getting an access token failed (HTTP %d): %s; run `gcloud auth application-default login` again", resp.StatusCode, why)
	}
	if tr.ExpiresIn <= 0 {
		tr.ExpiresIn = 3600
	}
	tokensMu.Lock()
	tokens[path] = cachedToken{tr.AccessToken, time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)}
	tokensMu.Unlock()
	return tr.AccessToken, nil
}

// signedAssertion is a service account's RS256 JWT for the cloud-platform scope.
func signedAssertion(c *adcCreds, aud string) (string, error) {
	block, _ := pem.Decode([]byte(c.PrivateKey))
	if block == nil {
		return "", errors.New("the private key is not PEM")
	}
	keyAny, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		if k, err1 := x509.ParsePKCS1PrivateKey(block.Bytes); err1 == nil {
			keyAny = k
		} else {
			return "", fmt.Errorf("the private key does not parse: %v", err)
		}
	}
	key, ok := keyAny.(*rsa.PrivateKey)
	if !ok {
		return "", errors.New("the private key is not an RSA key")
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now().Unix()
	header := map[string]string{"alg": "RS256", "typ": "JWT"}
	if c.PrivateKeyID != "" {
		header["kid"] = c.PrivateKeyID
	}
	signing := enc(header) + "." + enc(map[string]any{"iss": c.ClientEmail, "scope": "https://www.googleapis.com/auth/cloud-platform",
		"aud": aud, "iat": now, "exp": now + 3600})
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		return "", err
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}
