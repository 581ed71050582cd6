package mcpclient

import (
	"errors"
	"regexp"

	"github.com/pigo-agent/pigo/internal/lazy"
	"github.com/pigo-agent/pigo/internal/mcp"
)

// AuthProvider gives OAuth servers their tokens (the credentials in mcp-auth.json).
type AuthProvider interface {
	// For returns the token source of one server; onChallenge receives the server's
	// WWW-Authenticate challenge, which a later sign-in uses (resource metadata, scope).
	For(s *mcp.Server, onChallenge func(*Challenge)) tokenSource
}

// Challenge is a parsed WWW-Authenticate bearer challenge.
type Challenge struct {
	ResourceMetadataURL string
	Scope               string
	Error               string
	ErrorDescription    string
}

// ErrAuthorizationRequired means the user has to sign in (again): no token, a refresh that
// failed, or a server asking for more scope.
var ErrAuthorizationRequired = errors.New("MCP server authorization required")

// needsSignIn reports errors that a sign-in fixes: the OAuth provider gave up, or (for a
// server that signs in with OAuth or with a /login provider's token) the server still
// rejects the request.
func (c *Conn) needsSignIn(err error) bool {
	if errors.Is(err, ErrAuthorizationRequired) {
		return true
	}
	var ae *AuthRequiredError
	if !errors.As(err, &ae) {
		return false
	}
	return (c.Server.UsesOAuth() && c.opts.Auth != nil) || (c.Server.AuthProvider != "" && c.opts.ProviderToken != nil)
}

var challengeScheme = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\S+)`) }}

func challengeField(header, name string) string {
	re := regexp.MustCompile(`(?i)(?:^|[,\s])` + name + `=(?:"([^"]*)"|([^\s,]+))`)
	m := re.FindStringSubmatch(header)
	if m == nil {
		return ""
	}
	if m[1] != "" {
		return m[1]
	}
	return m[2]
}

// ParseChallenge is pi's parseWwwAuthenticate (Bearer and DPoP challenges only).
func ParseChallenge(header string) *Challenge {
	m := challengeScheme.Get().FindStringSubmatch(header)
	if m == nil {
		return &Challenge{}
	}
	switch s := lower(m[1]); s {
	case "bearer", "dpop":
	default:
		return &Challenge{}
	}
	return &Challenge{ResourceMetadataURL: challengeField(header, "resource_metadata"), Scope: challengeField(header, "scope"),
		Error: challengeField(header, "error"), ErrorDescription: challengeField(header, "error_description")}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}
