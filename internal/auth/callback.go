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
// sign-in: it checks the path and the state, answers the browser with a small page, and hands
// the code over once.
type callback struct {
	srv         *http.Server
	ln          net.Listener
	redirectURI string
	codes       chan callbackResult
	once        sync.Once
}

type callbackResult struct {
	code string
	err  error
}

// startCallback listens on host:port (0: any free port) for path; redirectHost is the host
// named in the redirect URI (the provider may register "localhost").
func startCallback(provider, host string, port int, path, redirectHost, state string) (*callback, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	cb := &callback{ln: ln, codes: make(chan callbackResult, 1)}
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
		case state != "" && q.Get("state") != state:
			page(w, 400, "State mismatch.", "")
		case q.Get("error") != "":
			desc := q.Get("error_description")
			if desc == "" {
				desc = q.Get("error")
			}
			page(w, 400, provider+" authorization failed.", desc)
			cb.deliver(callbackResult{err: fmt.Errorf("%s authorization failed: %s", provider, desc)})
		case q.Get("code") == "":
			page(w, 400, "Missing authorization code.", "")
		default:
			delivered := cb.deliver(callbackResult{code: q.Get("code")})
			if !delivered {
				page(w, 409, "This sign-in has already been handled.", "")
				return
			}
			page(w, 200, "Signed in to "+provider+". You may now close this page.", "")
		}
	})
	cb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = cb.srv.Serve(ln) }()
	return cb, nil
}

func (cb *callback) deliver(r callbackResult) bool {
	ok := false
	cb.once.Do(func() {
		cb.codes <- r
		ok = true
	})
	return ok
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

// waitCodeOrInput waits for the browser to reach the callback, or for the person to paste the
// redirect URL or the code (a browser on another machine cannot reach the loopback server).
// Without a callback only the pasted answer counts. It returns the code from the callback, or
// the pasted input.
func waitCodeOrInput(ctx context.Context, ui Interaction, cb *callback, p Prompt) (code, input string, err error) {
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
	var codes chan callbackResult
	if cb != nil {
		codes = cb.codes
	}
	select {
	case <-ctx.Done():
		return "", "", errors.New("Login cancelled")
	case r := <-codes:
		cancel()
		return r.code, "", r.err
	case a := <-pasted:
		if a.err != nil {
			return "", "", a.err
		}
		return "", a.s, nil
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
