package mcpclient

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/mcp"
)

// oauthRequestTimeout bounds each request to an authorization server (pi's 15 s).
const oauthRequestTimeout = 15 * time.Second

// refreshSkew refreshes access tokens this close to their expiry before sending them.
const refreshSkew = 30 * time.Second

// OAuthError is an error an authorization server answered with.
type OAuthError struct {
	Code, Description string
}

func (e *OAuthError) Error() string {
	if e.Description != "" {
		return e.Description
	}
	return e.Code
}

// oauthClient is one server's OAuth client: its settings, store and HTTP client.
type oauthClient struct {
	server   *mcp.Server
	settings OAuthSettings
	store    *CredentialStore
	http     HTTPDoer
}

// OAuthSettings are a server's oauth settings with the client secret resolved.
type OAuthSettings struct {
	ClientID, ClientSecret string
	CallbackPort           int
	CallbackURL            string
	Scope                  string
	ClientName             string
	Registration           string
	AuthServerMetadataURL  string
}

// asMetadata is what pigo reads of authorization server metadata (RFC 8414).
type asMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	AuthorizationResponseIssSupported bool     `json:"authorization_response_iss_parameter_supported"`
}

// prMetadata is protected resource metadata (RFC 9728).
type prMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

func (o *oauthClient) do(ctx context.Context, req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, oauthRequestTimeout)
	resp, err := o.http.Do(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &stopOnClose{ReadCloser: resp.Body, stop: cancel}
	return resp, nil
}

func (o *oauthClient) getJSON(ctx context.Context, u string, v any) (int, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", ProtocolVersion)
	resp, err := o.do(ctx, req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := json.Unmarshal(b, v); err != nil {
		return resp.StatusCode, fmt.Errorf("invalid JSON from %s", u)
	}
	return resp.StatusCode, nil
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func loopbackHost(h string) bool {
	return h == "localhost" || h == "127.0.0.1" || h == "::1" || h == "[::1]"
}

// secureEndpoint refuses to send credentials to a non-HTTPS endpoint except on loopback.
func secureEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" && !loopbackHost(u.Hostname()) {
		return fmt.Errorf("Refusing to send OAuth credentials to non-HTTPS endpoint %s", s)
	}
	return nil
}

// discoveryMiss: 4xx and 502 mean "not here".
func discoveryMiss(status int) bool { return status >= 400 && status < 500 || status == 502 }

func pathSuffix(p string) string { return strings.TrimSuffix(p, "/") }

// discover finds the authorization server (RFC 9728, then RFC 8414 with the issuer checked), or
// uses the configured metadata document.
func (o *oauthClient) discover(ctx context.Context, resourceMetadataURL string) (*discoveryState, *asMetadata, *prMetadata, error) {
	server, err := url.Parse(o.server.URL)
	if err != nil {
		return nil, nil, nil, err
	}
	var pr *prMetadata
	tryPR := func(u string) (int, error) {
		var m prMetadata
		st, err := o.getJSON(ctx, u, &m)
		if err == nil && st/100 == 2 {
			if !isHTTPURL(m.Resource) {
				return st, errors.New("Invalid OAuth protected resource metadata resource")
			}
			pr = &m
		}
		return st, err
	}
	origin := server.Scheme + "://" + server.Host
	if resourceMetadataURL != "" {
		_, err = tryPR(resourceMetadataURL)
	} else {
		var st int
		st, err = tryPR(origin + "/.well-known/oauth-protected-resource" + pathSuffix(server.Path))
		if err == nil && pr == nil && pathSuffix(server.Path) != "" && discoveryMiss(st) {
			_, err = tryPR(origin + "/.well-known/oauth-protected-resource")
		}
	}
	if err != nil && isNetwork(err) {
		return nil, nil, nil, err
	}
	if o.settings.AuthServerMetadataURL != "" {
		var m asMetadata
		st, err := o.getJSON(ctx, o.settings.AuthServerMetadataURL, &m)
		if err != nil {
			return nil, nil, nil, err
		}
		if st/100 != 2 {
			return nil, nil, nil, fmt.Errorf("HTTP %d loading authorization server metadata from %s", st, o.settings.AuthServerMetadataURL)
		}
		if err := checkASMetadata(&m); err != nil {
			return nil, nil, nil, err
		}
		return &discoveryState{AuthorizationServerURL: m.Issuer, AuthorizationServerMetadata: mustJSON(m), ResourceMetadata: jsonOrNil(pr)}, &m, pr, nil
	}
	asURL := origin + "/"
	if pr != nil && len(pr.AuthorizationServers) > 0 {
		asURL = pr.AuthorizationServers[0]
	}
	m, err := o.asMetadata(ctx, asURL)
	if err != nil {
		return nil, nil, nil, err
	}
	d := &discoveryState{AuthorizationServerURL: asURL, ResourceMetadata: jsonOrNil(pr), ResourceMetadataURL: resourceMetadataURL}
	if m != nil {
		d.AuthorizationServerMetadata = mustJSON(m)
	}
	return d, m, pr, nil
}

func jsonOrNil(v *prMetadata) json.RawMessage {
	if v == nil {
		return nil
	}
	return mustJSON(v)
}

func isNetwork(err error) bool { return networkError(err) }

func checkASMetadata(m *asMetadata) error {
	switch {
	case !isHTTPURL(m.Issuer):
		return errors.New("Invalid authorization server issuer")
	case !isHTTPURL(m.AuthorizationEndpoint):
		return errors.New("Invalid authorization endpoint")
	case !isHTTPURL(m.TokenEndpoint):
		return errors.New("Invalid token endpoint")
	case m.ResponseTypesSupported == nil:
		return errors.New("Invalid response_types_supported")
	}
	return nil
}

// asMetadata tries the RFC 8414 and OpenID locations of an issuer and checks the issuer.
func (o *oauthClient) asMetadata(ctx context.Context, issuer string) (*asMetadata, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil, err
	}
	origin, path := u.Scheme+"://"+u.Host, pathSuffix(u.Path)
	candidates := []string{origin + "/.well-known/oauth-authorization-server" + path, origin + "/.well-known/openid-configuration" + path}
	if path != "" {
		candidates = append(candidates, origin+path+"/.well-known/openid-configuration")
	}
	for _, c := range candidates {
		var m asMetadata
		st, err := o.getJSON(ctx, c, &m)
		if err != nil {
			return nil, err
		}
		if st/100 != 2 {
			if discoveryMiss(st) {
				continue
			}
			return nil, fmt.Errorf("HTTP %d loading authorization server metadata from %s", st, c)
		}
		if err := checkASMetadata(&m); err != nil {
			return nil, err
		}
		if strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("OAuth issuer mismatch: expected %q, received %q", issuer, m.Issuer)
		}
		return &m, nil
	}
	return nil, nil
}

// selectResource is the resource parameter: the metadata's resource, which must contain the
// server URL.
func selectResource(serverURL string, pr *prMetadata) (string, error) {
	if pr == nil {
		return "", nil
	}
	req, err1 := url.Parse(serverURL)
	conf, err2 := url.Parse(pr.Resource)
	if err1 != nil || err2 != nil || req.Scheme+req.Host != conf.Scheme+conf.Host ||
		!strings.HasPrefix(strings.TrimSuffix(req.Path, "/")+"/", strings.TrimSuffix(conf.Path, "/")+"/") {
		return "", fmt.Errorf("Protected resource %s does not match MCP server %s", pr.Resource, serverURL)
	}
	return pr.Resource, nil
}

// register is dynamic client registration (RFC 7591) as pi's client registers.
func (o *oauthClient) register(ctx context.Context, m *asMetadata, asURL, redirect, scope string) (json.RawMessage, error) {
	endpoint := asURL
	if m != nil {
		if m.RegistrationEndpoint == "" {
			return nil, errors.New("Authorization server does not support dynamic client registration")
		}
		endpoint = m.RegistrationEndpoint
	} else {
		u, _ := url.Parse(asURL)
		endpoint = u.Scheme + "://" + u.Host + "/register"
	}
	name := o.settings.ClientName
	if name == "" {
		name = "pigo"
	}
	method := "none"
	if o.settings.ClientSecret != "" {
		method = "client_secret_post"
	}
	body := map[string]any{"client_name": name, "redirect_uris": []string{redirect}, "grant_types": []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"}, "token_endpoint_auth_method": method, "application_type": "native"}
	if scope != "" {
		body["scope"] = scope
	}
	req, _ := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(mustJSON(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := o.do(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("OAuth dynamic client registration failed with status %d: %s", resp.StatusCode, b)
	}
	var ci clientInfo
	if json.Unmarshal(b, &ci) != nil || ci.ClientID == "" {
		return nil, errors.New("Invalid client_id")
	}
	return b, nil
}

// tokenRequest posts to the token endpoint with the client's authentication.
func (o *oauthClient) tokenRequest(ctx context.Context, m *asMetadata, asURL string, ci clientInfo, resource string, form url.Values) (*oauthTokens, error) {
	endpoint := ""
	if m != nil {
		endpoint = m.TokenEndpoint
	} else {
		u, _ := url.Parse(asURL)
		endpoint = u.Scheme + "://" + u.Host + "/token"
	}
	if err := secureEndpoint(endpoint); err != nil {
		return nil, err
	}
	if resource != "" {
		form.Set("resource", resource)
	}
	req, _ := http.NewRequest(http.MethodPost, endpoint, nil)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	var supported []string
	if m != nil {
		supported = m.TokenEndpointAuthMethodsSupported
	}
	switch clientAuthMethod(ci, supported) {
	case "client_secret_basic":
		req.SetBasicAuth(url.QueryEscape(ci.ClientID), url.QueryEscape(ci.ClientSecret))
	case "client_secret_post":
		form.Set("client_id", ci.ClientID)
		form.Set("client_secret", ci.ClientSecret)
	default:
		form.Set("client_id", ci.ClientID)
	}
	req.Body = io.NopCloser(strings.NewReader(form.Encode()))
	req.ContentLength = int64(len(form.Encode()))
	resp, err := o.do(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return nil, &OAuthError{Code: e.Error, Description: e.Description}
	}
	if resp.StatusCode/100 != 2 {
		return nil, &OAuthError{Code: "server_error", Description: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, b)}
	}
	var t oauthTokens
	if json.Unmarshal(b, &t) != nil || t.AccessToken == "" || t.TokenType == "" {
		return nil, errors.New("Invalid OAuth token response")
	}
	return &t, nil
}

// clientAuthMethod is pi's selectClientAuthMethod.
func clientAuthMethod(ci clientInfo, supported []string) string {
	h := ci.TokenEndpointAuthMethod
	if (h == "client_secret_basic" || h == "client_secret_post" || h == "none") && (len(supported) == 0 || slices.Contains(supported, h)) {
		return h
	}
	switch {
	case len(supported) == 0 && ci.ClientSecret != "":
		return "client_secret_basic"
	case len(supported) == 0:
		return "none"
	case ci.ClientSecret != "" && slices.Contains(supported, "client_secret_basic"):
		return "client_secret_basic"
	case ci.ClientSecret != "" && slices.Contains(supported, "client_secret_post"):
		return "client_secret_post"
	case slices.Contains(supported, "none"):
		return "none"
	case ci.ClientSecret != "":
		return "client_secret_post"
	}
	return "none"
}

// saveTokens stores tokens with their expiry; a response without scope grants the requested one.
func saveTokens(st *oauthState, t *oauthTokens, scope string) {
	if t.Scope == "" && scope != "" {
		t.Scope = scope
	}
	st.Tokens = t
	st.TokensExpireAt = nil
	if t.ExpiresIn != nil {
		at := time.Now().UnixMilli() + int64(*t.ExpiresIn*1000)
		st.TokensExpireAt = &at
	}
}

// client returns the client to use: the configured one, else the stored registration.
func (o *oauthClient) client(st *oauthState) (clientInfo, bool) {
	if o.settings.ClientID != "" {
		return clientInfo{ClientID: o.settings.ClientID, ClientSecret: o.settings.ClientSecret}, true
	}
	if st != nil && len(st.ClientInformation) > 0 {
		var ci clientInfo
		if json.Unmarshal(st.ClientInformation, &ci) == nil && ci.ClientID != "" {
			return ci, true
		}
	}
	return clientInfo{}, false
}

// refresh exchanges the stored refresh token; ErrAuthorizationRequired when it cannot.
// Call it holding the refresh lock.
func (o *oauthClient) refresh(ctx context.Context, st *oauthState) error {
	if st == nil || st.Tokens == nil || st.Tokens.RefreshToken == "" {
		return ErrAuthorizationRequired
	}
	ci, ok := o.client(st)
	if !ok {
		return ErrAuthorizationRequired
	}
	d, m, pr, err := o.discoveryFor(ctx, st, "")
	if err != nil {
		return err
	}
	resource, err := selectResource(o.server.URL, pr)
	if err != nil {
		return err
	}
	t, err := o.tokenRequest(ctx, m, d.AuthorizationServerURL, ci, resource, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {st.Tokens.RefreshToken}})
	if err != nil {
		var oe *OAuthError
		if errors.As(err, &oe) && (oe.Code == "invalid_grant" || oe.Code == "invalid_client" || oe.Code == "unauthorized_client") {
			_ = o.store.update(o.server.Name, o.server.URL, func(s *oauthState) {
				s.Tokens, s.TokensExpireAt = nil, nil
				if oe.Code != "invalid_grant" {
					s.ClientInformation, s.Discovery = nil, nil
				}
			})
			return ErrAuthorizationRequired
		}
		return err
	}
	if t.RefreshToken == "" {
		t.RefreshToken = st.Tokens.RefreshToken // a refresh keeps the grant's refresh token
	}
	scope := st.Tokens.Scope
	return o.store.update(o.server.Name, o.server.URL, func(s *oauthState) {
		saveTokens(s, t, scope)
		s.Discovery = d
	})
}

// discoveryFor uses the stored discovery, or discovers.
func (o *oauthClient) discoveryFor(ctx context.Context, st *oauthState, resourceMetadataURL string) (*discoveryState, *asMetadata, *prMetadata, error) {
	if o.settings.AuthServerMetadataURL == "" && st != nil && st.Discovery != nil && st.Discovery.AuthorizationServerURL != "" && resourceMetadataURL == "" {
		d := st.Discovery
		var m *asMetadata
		if len(d.AuthorizationServerMetadata) > 0 {
			var x asMetadata
			if json.Unmarshal(d.AuthorizationServerMetadata, &x) == nil {
				m = &x
			}
		}
		var pr *prMetadata
		if len(d.ResourceMetadata) > 0 {
			var x prMetadata
			if json.Unmarshal(d.ResourceMetadata, &x) == nil {
				pr = &x
			}
		}
		return d, m, pr, nil
	}
	return o.discover(ctx, resourceMetadataURL)
}

// pkce returns a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	verifier = base64.RawURLEncoding.EncodeToString(b[:])
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomState() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// mergeScopes joins scope lists, each scope once.
func mergeScopes(lists ...string) string {
	var out []string
	for _, l := range lists {
		for _, s := range strings.Fields(l) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, " ")
}

// SettingsOf are a server's oauth settings with the client secret resolved by resolve (an
// mcp.json value: ${VAR} or !command; what names it in the error).
func SettingsOf(s *mcp.Server, resolve func(v, what string) (string, error)) (OAuthSettings, error) {
	o := s.OAuth
	if o == nil {
		return OAuthSettings{}, nil
	}
	st := OAuthSettings{ClientID: o.ClientID, CallbackPort: o.CallbackPort, CallbackURL: o.CallbackURL, Scope: o.Scope,
		ClientName: o.ClientName, Registration: o.ClientRegistration, AuthServerMetadataURL: o.AuthServerMetadataURL}
	if o.ClientSecret != "" {
		v, err := resolve(o.ClientSecret, fmt.Sprintf("MCP server %q oauth.clientSecret", s.Name))
		if err != nil {
			return st, err
		}
		st.ClientSecret = v
	}
	return st, nil
}
