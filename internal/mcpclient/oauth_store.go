package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/mcp"
)

// CredentialStore is the agent dir's mcp-auth.json, read and written as pi 1.6 does: one
// state per server under the key "mcp__<namespace>|<url>" (client registration, tokens and
// their expiry, a pending sign-in's PKCE verifier and state, the discovered authorization
// server), the file 0600 and changed only under pi's lock (a "<file>.lock" directory), so pi
// and pigo can share it.
type CredentialStore struct {
	// Path is mcp-auth.json; LockDir holds the per-server refresh locks.
	Path    string
	LockDir string
}

// NewCredentialStore is the store of an agent dir.
func NewCredentialStore(agentDir string) *CredentialStore {
	return &CredentialStore{Path: filepath.Join(agentDir, "mcp-auth.json"), LockDir: agentDir}
}

// oauthState is one server's entry (pi's field names).
type oauthState struct {
	ServerURL         string          `json:"serverUrl"`
	ClientInformation json.RawMessage `json:"clientInformation,omitempty"`
	Tokens            *oauthTokens    `json:"tokens,omitempty"`
	TokensExpireAt    *int64          `json:"tokensExpireAt,omitempty"`
	CodeVerifier      string          `json:"codeVerifier,omitempty"`
	Discovery         *discoveryState `json:"discovery,omitempty"`
	OAuthState        string          `json:"oauthState,omitempty"`
}

type oauthTokens struct {
	AccessToken  string   `json:"access_token"`
	TokenType    string   `json:"token_type"`
	ExpiresIn    *float64 `json:"expires_in,omitempty"`
	Scope        string   `json:"scope,omitempty"`
	RefreshToken string   `json:"refresh_token,omitempty"`
	IDToken      string   `json:"id_token,omitempty"`
}

type discoveryState struct {
	AuthorizationServerURL      string          `json:"authorizationServerUrl"`
	AuthorizationServerMetadata json.RawMessage `json:"authorizationServerMetadata,omitempty"`
	ResourceMetadata            json.RawMessage `json:"resourceMetadata,omitempty"`
	ResourceMetadataURL         string          `json:"resourceMetadataUrl,omitempty"`
}

// clientInfo is what pigo reads of a stored client registration.
type clientInfo struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret,omitempty"`
	RedirectURIs            []string `json:"redirect_uris,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
}

// normalURL is JavaScript's String(new URL(u)): scheme and host lower case, the default port
// dropped, an empty path "/".
func normalURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	p.Scheme = strings.ToLower(p.Scheme)
	host := strings.ToLower(p.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := p.Port(); port != "" && !(p.Scheme == "http" && port == "80" || p.Scheme == "https" && port == "443") {
		host += ":" + port
	}
	p.Host = host
	if p.Path == "" {
		p.Path = "/"
	}
	p.Fragment = ""
	return p.String()
}

// storeKeys are a server's key and pi's older key (by URL alone).
func storeKeys(name, serverURL string) (key, legacy string) {
	legacy = normalURL(serverURL)
	return mcp.Namespace(name) + "|" + legacy, legacy
}

// fileLockStale is when a lock directory left by a killed process is taken over
// (proper-lockfile's default).
const fileLockStale = 10 * time.Second

// lockDir takes a proper-lockfile style lock: the directory path+".lock".
func lockDir(path string, wait, stale time.Duration) (func(), error) {
	lock := path + ".lock"
	deadline := time.Now().Add(wait)
	for {
		err := os.Mkdir(lock, 0o700)
		if err == nil {
			return func() { _ = os.Remove(lock) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if fi, serr := os.Stat(lock); serr == nil && time.Since(fi.ModTime()) > stale {
			_ = os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is locked by another process", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// withFile runs fn on the file's states under the file lock; fn returns whether to write.
func (s *CredentialStore) withFile(fn func(states map[string]json.RawMessage) bool) error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return err
	}
	unlock, err := lockDir(s.Path, 2*time.Second, fileLockStale)
	if err != nil {
		return err
	}
	defer unlock()
	states := map[string]json.RawMessage{}
	b, err := os.ReadFile(s.Path)
	switch {
	case err == nil && strings.TrimSpace(string(b)) != "":
		if json.Unmarshal(b, &states) != nil {
			return fmt.Errorf("%s is not valid JSON; fix or remove it", s.Path)
		}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return err
	}
	if !fn(states) {
		return nil
	}
	out, err := json.MarshalIndent(states, "", "  ")
	if err != nil {
		return err
	}
	tmp := s.Path + ".tmp-" + fmt.Sprint(os.Getpid())
	if err := os.WriteFile(tmp, append(out, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.Path)
}

// load returns a server's state (a legacy entry is taken over, as pi does); nil when none or
// stored for another URL.
func (s *CredentialStore) load(name, serverURL string) (*oauthState, error) {
	key, legacy := storeKeys(name, serverURL)
	var st *oauthState
	err := s.withFile(func(states map[string]json.RawMessage) bool {
		raw, ok := states[key]
		moved := false
		if !ok {
			if raw, ok = states[legacy]; ok {
				states[key] = raw
				delete(states, legacy)
				moved = true
			}
		}
		if ok {
			var v oauthState
			if json.Unmarshal(raw, &v) == nil && v.ServerURL == normalURL(serverURL) {
				st = &v
			}
		}
		return moved
	})
	return st, err
}

// update changes a server's state under the lock.
func (s *CredentialStore) update(name, serverURL string, fn func(st *oauthState)) error {
	key, _ := storeKeys(name, serverURL)
	return s.withFile(func(states map[string]json.RawMessage) bool {
		var st oauthState
		if raw, ok := states[key]; ok {
			_ = json.Unmarshal(raw, &st)
		}
		if st.ServerURL != normalURL(serverURL) {
			st = oauthState{ServerURL: normalURL(serverURL)}
		}
		fn(&st)
		b, _ := json.Marshal(st)
		states[key] = b
		return true
	})
}

// Remove deletes a server's credentials; false when there were none.
func (s *CredentialStore) Remove(name, serverURL string) (bool, error) {
	key, legacy := storeKeys(name, serverURL)
	removed := false
	err := s.withFile(func(states map[string]json.RawMessage) bool {
		for _, k := range []string{key, legacy} {
			if _, ok := states[k]; ok {
				delete(states, k)
				removed = true
				return true
			}
		}
		return false
	})
	return removed, err
}

// AccessToken is the stored access token ("" when none): a running session notices a sign-in
// made by another process when it changes.
func (s *CredentialStore) AccessToken(name, serverURL string) string {
	st, err := s.load(name, serverURL)
	if err != nil || st == nil || st.Tokens == nil {
		return ""
	}
	return st.Tokens.AccessToken
}

// refreshLock serialises token refreshes of one server across processes (pi's
// mcp-auth-refresh-<hash> lock): many servers rotate refresh tokens, and two refreshes with the
// same one lose the grant.
func (s *CredentialStore) refreshLock(name, serverURL string) (func(), error) {
	key, _ := storeKeys(name, serverURL)
	sum := sha256.Sum256([]byte(key))
	if err := os.MkdirAll(s.LockDir, 0o700); err != nil {
		return nil, err
	}
	return lockDir(filepath.Join(s.LockDir, "mcp-auth-refresh-"+hex.EncodeToString(sum[:])[:16]), 25*time.Second, 20*time.Second)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
