package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pkce returns a PKCE verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// callbackHost is the address the loopback callback listens on: 127.0.0.1, or
// PI_OAUTH_CALLBACK_HOST as pi reads it (to forward the port into a container).
func callbackHost() string {
	if h := os.Getenv("PI_OAUTH_CALLBACK_HOST"); h != "" {
		return h
	}
	return "127.0.0.1"
}

// callback is a loopback HTTP server that receives the authorization code of a browser
// sign-in: it checks the path and the state, trades the code for the credential (complete)
// while the browser waits, and only then answers with a page that says whether the sign-in
// worked. One callback is handled; later ones are told so.
type callback struct {
	srv         *http.Server
	ln          net.Listener
	redirectURI string
	results     chan callbackResult

	mu       sync.Mutex
	claimed  bool // a callback's exchange has started
	settled  bool // a result was handed over, or the callback was cancelled
	complete completeFunc
}

// completeFunc trades the callback's query (its code, and what else the provider sends back)
// for the credential; redirectURI is the callback's own.
type completeFunc func(ctx context.Context, q url.Values, redirectURI string) (*Credential, error)

type callbackResult struct {
	cred *Credential
	err  error
}

// startCallback listens on host:port (0: any free port) for path; redirectHost is the host
// named in the redirect URI (the provider may register "localhost"). complete runs when the
// browser arrives with a code (under ctx), before the browser is answered: a failed exchange
// shows a failure page.
func startCallback(ctx context.Context, provider, host string, port int, path, redirectHost, state string, complete completeFunc) (*callback, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	cb := &callback{ln: ln, results: make(chan callbackResult, 1), complete: complete}
	p := ln.Addr().(*net.TCPAddr).Port
	if strings.Contains(redirectHost, ":") {
		redirectHost = "[" + redirectHost + "]"
	}
	cb.redirectURI = fmt.Sprintf("http://%s:%d%s", redirectHost, p, path)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case r.Method != http.MethodGet || r.URL.Path != path:
			page(w, 404, "Callback route not found.", "")
			return
		case state != "" && q.Get("state") != state:
			page(w, 400, "State mismatch.", "")
			return
		}
		if !cb.claim() {
			page(w, 409, "This sign-in has already been handled.", "")
			return
		}
		switch {
		case q.Get("error") != "":
			desc := q.Get("error_description")
			if desc == "" {
				desc = q.Get("error")
			}
			page(w, 400, provider+" authorization failed.", desc)
			cb.finish(callbackResult{err: fmt.Errorf("%s authorization failed: %s", provider, desc)})
		case q.Get("code") == "":
			cb.unclaim()
			page(w, 400, "Missing authorization code.", "")
		default:
			c, err := cb.complete(ctx, q, cb.redirectURI)
			if err != nil {
				page(w, 502, provider+" sign-in failed.", err.Error())
				cb.finish(callbackResult{err: err})
				return
			}
			page(w, 200, "Signed in to "+provider+". You may now close this page.", "")
			cb.finish(callbackResult{cred: c})
		}
	})
	cb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = cb.srv.Serve(ln) }()
	return cb, nil
}

// claim marks the callback as being handled; false when one already was (or it was cancelled).
func (cb *callback) claim() bool {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.claimed || cb.settled {
		return false
	}
	cb.claimed = true
	return true
}

func (cb *callback) unclaim() {
	cb.mu.Lock()
	cb.claimed = false
	cb.mu.Unlock()
}

func (cb *callback) finish(r callbackResult) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if !cb.settled {
		cb.settled = true
		cb.results <- r
	}
}

// cancel stops the callback from handling a browser that arrives later (the code was pasted);
// false when an exchange is already under way, whose result is then awaited.
func (cb *callback) cancel() bool {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.claimed {
		return false
	}
	cb.settled = true
	return true
}

func (cb *callback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = cb.srv.Shutdown(ctx)
}

func page(w http.ResponseWriter, status int, title, detail string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	body := "<!doctype html><meta charset=utf-8><title>pigo</title><h1>" + html.EscapeString(title) + "</h1>"
	if detail != "" {
		body += "<p>" + html.EscapeString(detail) + "</p>"
	}
	fmt.Fprint(w, body)
}

// waitCodeOrInput waits for the browser to reach the callback (which has then traded the code
// for the credential), or for the person to paste the redirect URL or the code (a browser on
// another machine cannot reach the loopback server). Without a callback only the pasted answer
// counts. It returns the callback's credential, or the pasted input.
func waitCodeOrInput(ctx context.Context, ui Interaction, cb *callback, p Prompt) (cred *Credential, input string, err error) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		s   string
		err error
	}
	pasted := make(chan answer, 1)
	go func() {
		s, err := ui.Prompt(pctx, p)
		pasted <- answer{s, err}
	}()
	var results chan callbackResult
	if cb != nil {
		results = cb.results
	}
	select {
	case <-ctx.Done():
		return nil, "", errors.New("Login cancelled")
	case r := <-results:
		cancel()
		return r.cred, "", r.err
	case a := <-pasted:
		if cb != nil && !cb.cancel() {
			// The browser got there first and its exchange is under way: its result counts.
			select {
			case r := <-results:
				return r.cred, "", r.err
			case <-ctx.Done():
				return nil, "", errors.New("Login cancelled")
			}
		}
		if a.err != nil {
			return nil, "", a.err
		}
		return nil, a.s, nil
	}
}

// parseAuthorizationInput reads what a person pasted: the redirect URL, "code#state", a query
// string with code= and state=, or the bare code.
func parseAuthorizationInput(input string) (code, state string) {
	v := strings.TrimSpace(input)
	if v == "" {
		return "", ""
	}
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" {
		return u.Query().Get("code"), u.Query().Get("state")
	}
	if c, s, ok := strings.Cut(v, "#"); ok {
		return c, s
	}
	if strings.Contains(v, "code=") {
		q, _ := url.ParseQuery(v)
		return q.Get("code"), q.Get("state")
	}
	return v, ""
}
