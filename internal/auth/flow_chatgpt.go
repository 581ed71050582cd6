package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Sign in with ChatGPT on the openai provider (pi 1.6): the ChatGPT subscription's token is
// sent to api.openai.com as an API key. Every sign-in registers a new public client: the
// authorize request names the dynamic client and this installation (its device id as a URN),
// OpenAI sends the issued client id back with the code, and the tokens are asked for (and
// later refreshed) with that client id, PKCE and the API as the resource. The callback is
// 127.0.0.1:1455 (the Codex CLI's port: when it is taken the sign-in stops and says so);
// the final redirect URL can be pasted instead.
const (
	chatgptDynamicClient = "dynamic_agent_client"
	chatgptAgentName     = "pigo"
	chatgptAuthorizeURL  = "https://auth.openai.com/api/accounts/authorize"
	chatgptTokenURL      = "https://auth.openai.com/api/accounts/oauth/token"
	chatgptResource      = "https://api.openai.com/v1"
	chatgptPort          = 1455
	chatgptPath          = "/auth/callback"
	chatgptRedirectURI   = "http://127.0.0.1:1455/auth/callback"
	chatgptDirectScope   = "chatgpt.tokens.use.direct"
	chatgptScope         = "openid profile email offline_access resource.invoke " + chatgptDirectScope
	// chatgptMargin: the stored expiry is three minutes early, as pi stores it.
	chatgptMargin = 3 * time.Minute
)

type chatgptFlow struct{}

func randomB64(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (chatgptFlow) Login(ctx context.Context, ui Interaction) (*Credential, error) {
	id, err := deviceID(ctx)
	if err != nil {
		return nil, fmt.Errorf("Sign in with ChatGPT needs this installation's device id: %v", err)
	}
	if !uuidPattern.Get().MatchString(id) {
		return nil, errors.New("Sign in with ChatGPT requires a device ID (UUID) for this installation")
	}
	verifier, challenge := pkce()
	state, nonce := randomB64(32), randomB64(32)
	complete := func(ctx context.Context, q url.Values, _ string) (*Credential, error) {
		clientID, err := chatgptClientID(q)
		if err != nil {
			return nil, err
		}
		return chatgptExchange(ctx, q.Get("code"), verifier, clientID)
	}
	cb, err := startCallback(ctx, "ChatGPT", callbackHost(), chatgptPort, chatgptPath, "127.0.0.1", state, complete)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("Port %d is in use, probably by an unfinished sign-in of another pigo or pi session or by the Codex CLI. Cancel that sign-in and try again.", chatgptPort)
		}
		return nil, err
	}
	defer cb.close()
	// The query in pi's order.
	q := []string{
		"client_id=" + url.QueryEscape(chatgptDynamicClient),
		"agent_name_hint=" + url.QueryEscape(chatgptAgentName),
		"ext_agent_host_id=" + url.QueryEscape("urn:uuid:"+strings.ToLower(id)),
		"response_type=code",
		"redirect_uri=" + url.QueryEscape(chatgptRedirectURI),
		"resource=" + url.QueryEscape(chatgptResource),
		"scope=" + url.QueryEscape(chatgptScope),
		"state=" + url.QueryEscape(state),
		"code_challenge=" + url.QueryEscape(challenge),
		"code_challenge_method=S256",
		"nonce=" + url.QueryEscape(nonce),
	}
	ui.Notify(Notice{Kind: NoticeAuthURL, URL: Endpoint(chatgptAuthorizeURL) + "?" + strings.Join(q, "&"),
		Instructions: "Complete sign-in in your browser. If the callback does not complete, paste the final redirect URL here."})
	cred, input, err := waitCodeOrInput(ctx, ui, cb, Prompt{Kind: PromptManualCode,
		Message: "Complete login in your browser, or paste the final redirect URL here:", Placeholder: chatgptRedirectURI})
	if err != nil || cred != nil {
		return cred, err
	}
	code, clientID, err := chatgptPasted(input, state)
	if err != nil {
		return nil, err
	}
	ui.Notify(Notice{Kind: NoticeProgress, Message: "Exchanging authorization code for tokens..."})
	return chatgptExchange(ctx, code, verifier, clientID)
}

// chatgptClientID is the client id OpenAI issued for this sign-in, sent back with the code.
func chatgptClientID(q url.Values) (string, error) {
	id := strings.TrimSpace(q.Get("client_id"))
	if id == "" {
		return "", errors.New("OpenAI OAuth registration callback did not contain an issued client ID")
	}
	return id, nil
}

// chatgptPasted reads the pasted final redirect URL: it must be the callback's, carry the
// state sent, a code and the issued client id.
func chatgptPasted(input, state string) (code, clientID string, err error) {
	u, perr := url.Parse(strings.TrimSpace(input))
	if perr != nil || u.Scheme == "" || u.Host == "" {
		return "", "", errors.New("Paste the full callback URL from the browser")
	}
	if u.Scheme+"://"+u.Host != "http://127.0.0.1:1455" || u.Path != chatgptPath {
		return "", "", errors.New("The pasted callback URL must start with " + chatgptRedirectURI)
	}
	q := u.Query()
	if e := q.Get("error"); e != "" {
		return "", "", errors.New("ChatGPT authorization failed: " + e)
	}
	if code = q.Get("code"); code == "" {
		return "", "", errors.New("Missing authorization code")
	}
	switch q.Get("state") {
	case "":
		return "", "", errors.New("Missing OAuth state")
	case state:
	default:
		return "", "", errors.New("OAuth state mismatch")
	}
	clientID, err = chatgptClientID(q)
	return code, clientID, err
}

func chatgptExchange(ctx context.Context, code, verifier, clientID string) (*Credential, error) {
	v, err := chatgptToken(ctx, url.Values{"grant_type": {"authorization_code"}, "client_id": {clientID}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {chatgptRedirectURI}, "resource": {chatgptResource}})
	if err != nil {
		return nil, err
	}
	if s, _ := v["id_token"].(string); strings.TrimSpace(s) == "" {
		return nil, errors.New("OpenAI OAuth token response did not contain an ID token")
	}
	return chatgptCredential(v, clientID)
}

func chatgptToken(ctx context.Context, form url.Values) (map[string]any, error) {
	r, err := send(ctx, "POST", chatgptTokenURL, form, map[string]string{"Accept": "application/json"})
	if err != nil {
		return nil, err
	}
	if !r.ok() {
		body := strings.TrimSpace(string(r.body))
		if body == "" {
			body = http.StatusText(r.status)
		}
		return nil, fmt.Errorf("OpenAI OAuth token request failed (%d): %s", r.status, truncate(body, 400))
	}
	v := decodeObject(r.body)
	if v == nil {
		return nil, errors.New("OpenAI OAuth token response must be an object")
	}
	return v, nil
}

// chatgptCredential is the auth.json entry pi writes: the tokens, the expiry three minutes
// early, the issued client id and the granted scopes (which must include direct token use).
func chatgptCredential(v map[string]any, clientID string) (*Credential, error) {
	field := func(k string) (string, error) {
		s, _ := v[k].(string)
		if strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("OpenAI OAuth token response has invalid %s", k)
		}
		return s, nil
	}
	access, err := field("access_token")
	if err != nil {
		return nil, err
	}
	refresh, err := field("refresh_token")
	if err != nil {
		return nil, err
	}
	scope, err := field("scope")
	if err != nil {
		return nil, err
	}
	n, isNum := v["expires_in"].(json.Number)
	exp, ferr := n.Float64()
	if !isNum || ferr != nil || exp <= 0 {
		return nil, errors.New("OpenAI OAuth token response has invalid expires_in")
	}
	scopes := strings.Fields(scope)
	if !slices.Contains(scopes, chatgptDirectScope) {
		return nil, fmt.Errorf("OpenAI OAuth grant did not include %s", chatgptDirectScope)
	}
	expires := time.Now().UnixMilli() + int64(exp*1000) - chatgptMargin.Milliseconds()
	list := make([]any, len(scopes))
	for i, s := range scopes {
		list[i] = s
	}
	return &Credential{Type: TypeOAuth, Access: access, Refresh: refresh, Expires: expires,
		Fields: llm.Obj{{K: "type", V: TypeOAuth}, {K: "access", V: access}, {K: "refresh", V: refresh}, {K: "expires", V: expires},
			{K: "clientId", V: clientID}, {K: "scopes", V: list}}}, nil
}

func (chatgptFlow) Refresh(ctx context.Context, c *Credential) (*Credential, error) {
	clientID := strings.TrimSpace(c.Get("clientId"))
	if clientID == "" {
		return nil, errors.New("Stored OpenAI OAuth credential does not contain an issued client ID; reconnect ChatGPT")
	}
	v, err := chatgptToken(ctx, url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID},
		"refresh_token": {c.Refresh}, "resource": {chatgptResource}})
	if err != nil {
		return nil, err
	}
	return chatgptCredential(v, clientID)
}

// ToAuth: the access token is the request's API key (a bearer token to api.openai.com).
func (chatgptFlow) ToAuth(c *Credential) llm.RequestAuth { return llm.RequestAuth{APIKey: c.Access} }
