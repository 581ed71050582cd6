package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/mcp"
)

// OAuthProvider gives OAuth servers their tokens from the credential store: it sends the
// stored access token, refreshes it before it expires and after a 401, and never starts a
// browser flow on its own (a server that needs the user fails with ErrAuthorizationRequired;
// SignIn runs the flow). It implements AuthProvider.
type OAuthProvider struct {
	Store *CredentialStore
	// Settings returns a server's oauth settings with its client secret resolved.
	Settings func(s *mcp.Server) (OAuthSettings, error)
	// HTTP sends the requests to the authorization server (nil: pigo's client).
	HTTP HTTPDoer

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

func (p *OAuthProvider) client(s *mcp.Server) (*oauthClient, error) {
	var st OAuthSettings
	if p.Settings != nil {
		var err error
		if st, err = p.Settings(s); err != nil {
			return nil, err
		}
	}
	h := p.HTTP
	if h == nil {
		h = defaultHTTP
	}
	return &oauthClient{server: s, settings: st, store: p.Store, http: h}, nil
}

// serverLock serialises the refreshes of one server in this process.
func (p *OAuthProvider) serverLock(s *mcp.Server) *sync.Mutex {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.locks == nil {
		p.locks = map[string]*sync.Mutex{}
	}
	k, _ := storeKeys(s.Name, s.URL)
	if p.locks[k] == nil {
		p.locks[k] = &sync.Mutex{}
	}
	return p.locks[k]
}

// For is the token source of one server.
func (p *OAuthProvider) For(s *mcp.Server, onChallenge func(*Challenge)) tokenSource {
	return &oauthSource{p: p, s: s, onChallenge: onChallenge}
}

type oauthSource struct {
	p           *OAuthProvider
	s           *mcp.Server
	onChallenge func(*Challenge)
}

func (o *oauthSource) token(ctx context.Context) (string, error) {
	st, err := o.p.Store.load(o.s.Name, o.s.URL)
	if err != nil || st == nil || st.Tokens == nil {
		return "", err
	}
	tok := st.Tokens.AccessToken
	if st.TokensExpireAt != nil && *st.TokensExpireAt-refreshSkew.Milliseconds() <= time.Now().UnixMilli() && st.Tokens.RefreshToken != "" {
		// A failed refresh sends the old token; the server's 401 decides what happens.
		if o.refreshIfStale(ctx, tok) == nil {
			if st, err := o.p.Store.load(o.s.Name, o.s.URL); err == nil && st != nil && st.Tokens != nil {
				tok = st.Tokens.AccessToken
			}
		}
	}
	return tok, nil
}

func (o *oauthSource) unauthorized(ctx context.Context, resp *http.Response, stale string) error {
	ch := ParseChallenge(resp.Header.Get("WWW-Authenticate"))
	if o.onChallenge != nil {
		o.onChallenge(ch)
	}
	if ch.Error == "insufficient_scope" {
		return ErrAuthorizationRequired // a refresh keeps the granted scope: the user signs in again
	}
	return o.refreshIfStale(ctx, stale)
}

// refreshIfStale replaces the stale access token: nothing to do when another request (or
// process, or a sign-in) replaced it already.
func (o *oauthSource) refreshIfStale(ctx context.Context, stale string) error {
	l := o.p.serverLock(o.s)
	l.Lock()
	defer l.Unlock()
	unlock, err := o.p.Store.refreshLock(o.s.Name, o.s.URL)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := o.p.Store.load(o.s.Name, o.s.URL)
	if err != nil {
		return err
	}
	if st != nil && st.Tokens != nil && st.Tokens.AccessToken != stale {
		return nil
	}
	c, err := o.p.client(o.s)
	if err != nil {
		return err
	}
	// The refresh is not cancelled with the request: a rotated refresh token must be saved.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*oauthRequestTimeout)
	defer cancel()
	return c.refresh(rctx, st)
}

// ErrSignInCancelled is a sign-in the user or a timeout gave up on.
var ErrSignInCancelled = errors.New("Sign-in cancelled")

// SignInPrompt is how a sign-in talks to the user.
type SignInPrompt struct {
	// ShowURL shows (and opens) the authorization URL.
	ShowURL func(u string)
	// PastedURL, when set, returns the redirect URL the user pastes from the browser's address
	// bar ("" when they give up); it must return when ctx ends.
	PastedURL func(ctx context.Context) string
}

// SignIn signs in to an OAuth server: a refresh when the stored tokens allow it (not for a
// step-up, where the server asked for more scope), else the authorization code flow with PKCE
// against a loopback callback (or a pasted redirect URL). The tokens land in the store.
func (p *OAuthProvider) SignIn(ctx context.Context, s *mcp.Server, ch *Challenge, prompt SignInPrompt) error {
	c, err := p.client(s)
	if err != nil {
		return err
	}
	stepUp := ch != nil && ch.Error == "insufficient_scope"
	if !stepUp {
		st, err := p.Store.load(s.Name, s.URL)
		if err != nil {
			return err
		}
		if st != nil && st.Tokens != nil && st.Tokens.RefreshToken != "" {
			src := &oauthSource{p: p, s: s}
			if src.refreshIfStale(ctx, st.Tokens.AccessToken) == nil {
				if after, _ := p.Store.load(s.Name, s.URL); after != nil && after.Tokens != nil && after.Tokens.AccessToken != st.Tokens.AccessToken {
					return nil
				}
			}
		}
	}
	cb, redirect, err := listenLoopback(c.settings, p.Store, s)
	if err != nil {
		return err
	}
	defer cb.close()

	st, _ := p.Store.load(s.Name, s.URL)
	granted := ""
	if st != nil && st.Tokens != nil {
		granted = st.Tokens.Scope
	}
	// A registered client that cannot use this redirect URI is dropped with its tokens.
	if err := p.Store.update(s.Name, s.URL, func(x *oauthState) {
		x.OAuthState = ""
		if c.settings.ClientID != "" || len(x.ClientInformation) == 0 {
			return
		}
		if ci, ok := c.client(x); ok && !slices.Contains(ci.RedirectURIs, redirect) {
			x.ClientInformation, x.Tokens, x.TokensExpireAt = nil, nil, nil
		}
	}); err != nil {
		return err
	}
	st, _ = p.Store.load(s.Name, s.URL)
	rmURL := ""
	if ch != nil {
		rmURL = ch.ResourceMetadataURL
	}
	d, m, pr, err := c.discoveryFor(ctx, st, rmURL)
	if err != nil {
		return err
	}
	resource, err := selectResource(s.URL, pr)
	if err != nil {
		return err
	}
	challenged := ""
	if ch != nil {
		challenged = ch.Scope
		if stepUp {
			challenged = mergeScopes(granted, ch.Scope)
		}
	}
	scope := mergeScopes(c.settings.Scope, challenged)
	if scope == "" && pr != nil {
		scope = strings.Join(pr.ScopesSupported, " ")
	}
	ci, ok := c.client(st)
	if !ok {
		raw, err := c.register(ctx, m, d.AuthorizationServerURL, redirect, scope)
		if err != nil {
			return err
		}
		if err := p.Store.update(s.Name, s.URL, func(x *oauthState) { x.ClientInformation = raw }); err != nil {
			return err
		}
		ci, _ = c.client(&oauthState{ClientInformation: raw})
	}
	if m != nil {
		if !slices.Contains(m.ResponseTypesSupported, "code") {
			return errors.New("Authorization server does not support authorization codes")
		}
		if m.CodeChallengeMethodsSupported != nil && !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
			return errors.New("Authorization server does not support PKCE S256")
		}
	}
	endpoint := strings.TrimSuffix(d.AuthorizationServerURL, "/") + "/authorize"
	if m != nil {
		endpoint = m.AuthorizationEndpoint
	}
	au, err := url.Parse(endpoint)
	if err != nil || (au.Scheme != "http" && au.Scheme != "https") {
		return fmt.Errorf("Invalid authorization endpoint %s", endpoint)
	}
	verifier, challenge := pkce()
	state := randomState()
	q := au.Query()
	q.Set("response_type", "code")
	q.Set("client_id", ci.ClientID)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256")
	q.Set("redirect_uri", redirect)
	q.Set("state", state)
	if scope != "" {
		q.Set("scope", scope)
		if slices.Contains(strings.Fields(scope), "offline_access") {
			q.Set("prompt", "consent")
		}
	}
	if resource != "" {
		q.Set("resource", resource)
	}
	au.RawQuery = q.Encode()
	if err := p.Store.update(s.Name, s.URL, func(x *oauthState) {
		x.CodeVerifier, x.OAuthState, x.Discovery = verifier, state, d
	}); err != nil {
		return err
	}
	if prompt.ShowURL != nil {
		prompt.ShowURL(au.String())
	}
	resp, err := cb.wait(ctx, state, redirect, prompt.PastedURL)
	if err != nil {
		return err
	}
	if resp.iss != "" || m != nil && m.AuthorizationResponseIssSupported {
		expected := ""
		if m != nil {
			expected = m.Issuer
		}
		if resp.iss != expected {
			return fmt.Errorf("OAuth issuer mismatch: expected %q, received %q", expected, resp.iss)
		}
	}
	if cur, _ := p.Store.load(s.Name, s.URL); cur == nil || cur.OAuthState != state {
		return errors.New("Another sign-in to this MCP server started since; sign in again")
	}
	t, err := c.tokenRequest(ctx, m, d.AuthorizationServerURL, ci, resource, url.Values{"grant_type": {"authorization_code"},
		"code": {resp.code}, "code_verifier": {verifier}, "redirect_uri": {redirect}})
	if err != nil {
		return err
	}
	return p.Store.update(s.Name, s.URL, func(x *oauthState) {
		saveTokens(x, t, scope)
		x.CodeVerifier, x.OAuthState = "", ""
	})
}

// callbackServer is the loopback server the browser returns to.
type callbackServer struct {
	srv  *http.Server
	path string
	ch   chan callbackResult
}

type callbackResult struct {
	code, state, iss string
	err              error
}

// listenLoopback listens where the settings say: callbackUrl or callbackPort, else the port of
// the stored client's redirect URI (so that client stays valid) or a free one, on 127.0.0.1.
func listenLoopback(st OAuthSettings, store *CredentialStore, s *mcp.Server) (*callbackServer, string, error) {
	configured := st.CallbackURL
	if configured == "" {
		configured = "http://127.0.0.1/callback"
	}
	u, err := url.Parse(configured)
	if err != nil {
		return nil, "", err
	}
	host := u.Hostname()
	listenHost := host
	if host == "localhost" {
		listenHost = "127.0.0.1"
	}
	port := 0
	fixed := ""
	switch {
	case u.Port() != "":
		port, _ = strconv.Atoi(u.Port())
		fixed = st.CallbackURL
	case st.CallbackPort != 0:
		port = st.CallbackPort
	}
	preferred := port == 0
	if preferred {
		if old, _ := store.load(s.Name, s.URL); old != nil {
			var ci clientInfo
			if len(old.ClientInformation) > 0 && jsonUnmarshal(old.ClientInformation, &ci) == nil && len(ci.RedirectURIs) > 0 {
				if ru, err := url.Parse(ci.RedirectURIs[0]); err == nil {
					port, _ = strconv.Atoi(ru.Port())
				}
			}
		}
	}
	l, err := net.Listen("tcp", net.JoinHostPort(listenHost, strconv.Itoa(port)))
	if err != nil && preferred && port != 0 {
		l, err = net.Listen("tcp", net.JoinHostPort(listenHost, "0"))
	}
	if err != nil {
		return nil, "", fmt.Errorf("the OAuth callback server could not listen: %v", err)
	}
	path := u.Path
	if path == "" {
		path = "/"
	}
	redirect := fixed
	if redirect == "" {
		r := *u
		hp := host
		if strings.Contains(hp, ":") {
			hp = "[" + hp + "]"
		}
		r.Host = hp + ":" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		redirect = r.String()
	}
	cb := &callbackServer{path: path, ch: make(chan callbackResult, 1)}
	cb.srv = &http.Server{Handler: http.HandlerFunc(cb.handle), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = cb.srv.Serve(l) }()
	return cb, redirect, nil
}

func (cb *callbackServer) handle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Path != cb.path {
		http.Error(w, "Not found", http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	res := callbackResult{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss")}
	switch {
	case q.Get("error") != "":
		desc := q.Get("error_description")
		if desc == "" {
			desc = q.Get("error")
		}
		res.err = errors.New(desc)
		fmt.Fprintf(w, "Authorization failed. You may close this window.\n\n%s\n", desc)
	case res.code == "":
		http.Error(w, "Missing authorization code", http.StatusBadRequest)
		return
	default:
		fmt.Fprintln(w, "Authorization complete. You may close this window.")
	}
	select {
	case cb.ch <- res:
	default:
	}
}

// wait returns the authorization response from the browser or a pasted redirect URL.
func (cb *callbackServer) wait(ctx context.Context, state, redirect string, pasted func(context.Context) string) (callbackResult, error) {
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	fromUser := make(chan callbackResult, 1)
	if pasted != nil {
		go func() {
			in := pasted(pctx)
			if strings.TrimSpace(in) == "" {
				return
			}
			fromUser <- fromRedirectURL(in, redirect)
		}()
	}
	for {
		var r callbackResult
		select {
		case r = <-cb.ch:
		case r = <-fromUser:
		case <-ctx.Done():
			return callbackResult{}, ErrSignInCancelled
		}
		if r.err != nil {
			return r, r.err
		}
		if r.state != state {
			return r, errors.New("The authorization response belongs to a different sign-in")
		}
		return r, nil
	}
}

// fromRedirectURL reads the authorization response of a pasted redirect URL.
func fromRedirectURL(in, redirect string) callbackResult {
	u, err := url.Parse(strings.TrimSpace(in))
	if err != nil || u.Scheme == "" {
		return callbackResult{err: errors.New("Expected the full redirect URL from the browser address bar")}
	}
	want, _ := url.Parse(redirect)
	if u.Scheme+"://"+u.Host != want.Scheme+"://"+want.Host || u.Path != want.Path {
		return callbackResult{err: errors.New("The redirect URL does not match this sign-in's redirect URI")}
	}
	q := u.Query()
	if e := q.Get("error"); e != "" {
		if d := q.Get("error_description"); d != "" {
			e = d
		}
		return callbackResult{err: errors.New(e)}
	}
	if q.Get("code") == "" {
		return callbackResult{err: errors.New("The redirect URL does not contain an authorization code")}
	}
	return callbackResult{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss")}
}

func (cb *callbackServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = cb.srv.Shutdown(ctx)
	_ = cb.srv.Close()
}

// Challenge returns the last WWW-Authenticate challenge of the server (nil before any).
func (c *Conn) Challenge() *Challenge {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.challenge
}

// Login is `pigo mcp login SERVER`: a connection first says whether a sign-in is needed (and
// records the server's challenge); then the browser sign-in through prompt within timeout
// seconds, and a reconnection with the new token. What it did is told on out; an error's text
// is the one to print.
func Login(s *mcp.Server, opts *Options, auth *OAuthProvider, timeout float64, prompt SignInPrompt, out io.Writer) error {
	conn := NewConn(s, opts, nil, nil)
	defer conn.Close()
	ctx := context.Background()
	if err := conn.Open(ctx); err == nil {
		fmt.Fprintf(out, "Already signed in to MCP server %q (%s).\n", s.Name, toolCount(len(conn.Tools())))
		return nil
	} else if st, msg := conn.State(); st != StateNeedsAuth {
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("MCP server %q failed to connect: %s", s.Name, msg)
	}
	sctx, cancel := context.WithTimeout(ctx, time.Duration(timeout*float64(time.Second)))
	defer cancel()
	if err := auth.SignIn(sctx, s, conn.Challenge(), prompt); err != nil {
		if errors.Is(err, ErrSignInCancelled) || sctx.Err() != nil {
			return fmt.Errorf("Sign-in to MCP server %q was cancelled or not completed within %s seconds.", s.Name, strconv.FormatFloat(timeout, 'f', -1, 64))
		}
		return fmt.Errorf("Sign-in to MCP server %q failed: %v", s.Name, err)
	}
	if err := conn.Reconnect(ctx); err != nil {
		return fmt.Errorf("Signed in, but %v", err)
	}
	fmt.Fprintf(out, "Signed in to MCP server %q (%s).\n", s.Name, toolCount(len(conn.Tools())))
	return nil
}
