package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// HTTPDoer sends HTTP requests (*http.Client).
type HTTPDoer interface {
	Do(*http.Request) (*http.Response, error)
}

// defaultHTTP is the client of HTTP servers: no overall timeout (streams stay open), bounded
// connection set-up.
var defaultHTTP = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	TLSHandshakeTimeout:   15 * time.Second,
	ResponseHeaderTimeout: 0,
	MaxIdleConnsPerHost:   4,
	IdleConnTimeout:       90 * time.Second,
}}

// The limits of pi's streamable HTTP transport.
const (
	maxErrorBodyBytes       = 8 << 10
	errorMessageBodyChars   = 500
	reconnectInitialDelay   = time.Second
	reconnectMaxDelay       = 30 * time.Second
	reconnectMaxRetries     = 5
	deleteOnCloseTimeout    = time.Second
	authorizationHeaderName = "Authorization"
)

// HTTPError is an HTTP status a server answered with.
type HTTPError struct {
	Status  int
	Message string
	Body    string
}

// Error is the message.
func (e *HTTPError) Error() string { return e.Message }

// AuthRequiredError is a 401: the server wants credentials (pi's McpAuthRequiredError).
type AuthRequiredError struct {
	HTTPError
	WWWAuthenticate string
}

// errSessionExpired is a 404 for a known session id: the server restarted or dropped it.
var errSessionExpired = errors.New("MCP session expired")

// tokenSource supplies the bearer token of HTTP requests and recovers from a rejection.
type tokenSource interface {
	// token returns the access token to send ("" for none); it may refresh an expiring one.
	token(ctx context.Context) (string, error)
	// unauthorized is called once after a 401 (or a 403 asking for more scope) with the token
	// that was rejected; nil means "retry the request".
	unauthorized(ctx context.Context, resp *http.Response, token string) error
}

// providerToken sends a /login provider's token, read before every request so the provider's
// refreshes apply (MCP keeps no copy). It has no recovery of its own: a rejection is the
// server's 401, which asks for /login PROVIDER (pi 1.6's).
type providerToken func(ctx context.Context) (string, error)

func (p providerToken) token(ctx context.Context) (string, error) { return p(ctx) }
func (p providerToken) unauthorized(context.Context, *http.Response, string) error {
	return errNoRecovery
}

// errNoRecovery is a token source's answer to a rejection it cannot recover from: the
// response goes back to the caller as it is.
var errNoRecovery = errors.New("no recovery")

// httpTransport is pi's streamable HTTP transport: every message is a POST; a request's answer
// comes back as JSON or an SSE stream; after initialization a GET stream carries the server's
// own messages and is reopened when it drops.
type httpTransport struct {
	url     string
	headers map[string]string
	auth    tokenSource
	doer    HTTPDoer

	ctx    context.Context
	cancel context.CancelFunc
	h      handlers

	mu              sync.Mutex
	sessionID       string
	protocolVersion string
	started, closed bool
	getStarted      bool
	lastToken       string
	wg              sync.WaitGroup
}

func newHTTP(u string, headers map[string]string, auth tokenSource, doer HTTPDoer) *httpTransport {
	if doer == nil {
		doer = defaultHTTP
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &httpTransport{url: u, headers: headers, auth: auth, doer: doer, ctx: ctx, cancel: cancel}
}

func (t *httpTransport) start(_ context.Context, h handlers) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	t.h, t.started = h, true
	return nil
}

func (t *httpTransport) setProtocolVersion(v string) {
	t.mu.Lock()
	t.protocolVersion = v
	t.mu.Unlock()
}

// build makes a request with the configured headers, the session, the protocol version and
// the bearer token.
func (t *httpTransport) build(ctx context.Context, method string, body []byte, extra map[string]string, tok string) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url, r)
	if err != nil {
		return nil, err
	}
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	t.mu.Lock()
	if t.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", t.sessionID)
	}
	if t.protocolVersion != "" {
		req.Header.Set("MCP-Protocol-Version", t.protocolVersion)
	}
	t.mu.Unlock()
	if tok != "" {
		req.Header.Set(authorizationHeaderName, "Bearer "+tok)
	}
	return req, nil
}

// needsAuthorization: a 401, or a 403 with an insufficient_scope bearer challenge.
func needsAuthorization(resp *http.Response) bool {
	if resp.StatusCode == http.StatusUnauthorized {
		return true
	}
	return resp.StatusCode == http.StatusForbidden && insufficientScopeRe.Get().MatchString(resp.Header.Get("WWW-Authenticate"))
}

var insufficientScopeRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?i)(?:^|[\s,])error="?insufficient_scope"?`) }}

// authorizedDo sends a request with the current token; a rejection is handed to the token
// source once and the request is sent again.
func (t *httpTransport) authorizedDo(ctx context.Context, method string, body []byte, extra map[string]string) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		tok := ""
		if t.auth != nil {
			var err error
			if tok, err = t.auth.token(ctx); err != nil {
				return nil, err
			}
			t.mu.Lock()
			t.lastToken = tok
			t.mu.Unlock()
		}
		// The transport's own context ends every request when it closes; the caller's ends its own.
		rctx, stop := mergeContexts(ctx, t.ctx)
		req, err := t.build(rctx, method, body, extra, tok)
		if err != nil {
			stop()
			return nil, err
		}
		resp, err := t.doer.Do(req)
		if err != nil {
			stop()
			return nil, err
		}
		resp.Body = &stopOnClose{ReadCloser: resp.Body, stop: stop}
		if attempt > 0 || t.auth == nil || !needsAuthorization(resp) {
			return resp, nil
		}
		err = t.auth.unauthorized(ctx, resp, tok)
		if errors.Is(err, errNoRecovery) {
			return resp, nil
		}
		discard(resp)
		if err != nil {
			return nil, err
		}
	}
}

type stopOnClose struct {
	io.ReadCloser
	stop func()
}

func (s *stopOnClose) Close() error {
	err := s.ReadCloser.Close()
	s.stop()
	return err
}

// mergeContexts is a context that ends when either ends.
func mergeContexts(a, b context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}

func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

func contentType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return strings.ToLower(mt)
}

// readBody reads at most max bytes of the body; truncated reports a longer body (the rest is
// not read).
func readBody(resp *http.Response, max int) (b []byte, truncated bool, err error) {
	b, err = io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	if len(b) > max {
		return b[:max], true, err
	}
	return b, false, err
}

// checkResponse turns a failed status into pi's errors.
func (t *httpTransport) checkResponse(resp *http.Response) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	b, _, _ := readBody(resp, maxErrorBodyBytes)
	resp.Body.Close()
	body := string(b)
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return &AuthRequiredError{HTTPError: HTTPError{Status: 401, Message: "MCP server requires authentication", Body: body},
			WWWAuthenticate: resp.Header.Get("WWW-Authenticate")}
	case resp.StatusCode == http.StatusNotFound && t.session() != "":
		return fmt.Errorf("%w", errSessionExpired)
	}
	text := strings.TrimSpace(body)
	if r := []rune(text); len(r) > errorMessageBodyChars {
		text = string(r[:errorMessageBodyChars-3]) + "..."
	}
	msg := fmt.Sprintf("MCP HTTP request failed with status %d", resp.StatusCode)
	if text != "" {
		msg += ": " + text
	}
	return &HTTPError{Status: resp.StatusCode, Message: msg, Body: body}
}

func (t *httpTransport) session() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessionID
}

func (t *httpTransport) captureSession(resp *http.Response) {
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		t.mu.Lock()
		t.sessionID = id
		t.mu.Unlock()
	}
}

func (t *httpTransport) send(ctx context.Context, msg []byte, id json.RawMessage) error {
	t.mu.Lock()
	ok := t.started && !t.closed
	t.mu.Unlock()
	if !ok {
		return ErrClosed
	}
	resp, err := t.authorizedDo(ctx, http.MethodPost, msg, map[string]string{
		"Accept": "application/json, text/event-stream", "Content-Type": "application/json"})
	if err != nil {
		if ctx.Err() != nil {
			return ErrAborted
		}
		return err
	}
	if err := t.checkResponse(resp); err != nil {
		return err
	}
	t.captureSession(resp)
	if id == nil {
		// Notifications and responses are acknowledged with 202; any body is ignored.
		discard(resp)
		if bytes.Contains(msg, []byte(`"method":"notifications/initialized"`)) {
			t.startGetStream()
		}
		return nil
	}
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent {
		discard(resp)
		var m message
		_ = json.Unmarshal(msg, &m)
		return &HTTPError{Status: resp.StatusCode, Message: fmt.Sprintf("MCP server accepted request %s without a response", m.Method)}
	}
	switch ct := contentType(resp); ct {
	case "application/json":
		b, truncated, err := readBody(resp, MaxMessageBytes)
		resp.Body.Close()
		if truncated {
			return &oversizeError{what: "MCP JSON response", limit: MaxMessageBytes}
		}
		if err != nil {
			return err
		}
		t.emitJSON(b)
		return nil
	case "text/event-stream":
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.consumeResponseStream(resp.Body, id)
		}()
		return nil
	default:
		discard(resp)
		if ct == "" {
			ct = "missing"
		}
		return &HTTPError{Status: resp.StatusCode, Message: "Unsupported MCP response content type: " + ct}
	}
}

// emitJSON delivers a JSON body: one message or a batch.
func (t *httpTransport) emitJSON(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(b, &batch); err != nil {
			t.h.errorf(err)
			return
		}
		for _, m := range batch {
			t.h.message(m)
		}
		return
	}
	t.h.message(b)
}

// sseCursor is where a stream is, for resuming it.
type sseCursor struct {
	lastEventID string
	retry       time.Duration
	received    bool
}

// consumeSSE reads one SSE stream and delivers its messages; onMessage (may be nil) sees each
// one first.
func (t *httpTransport) consumeSSE(body io.ReadCloser, cur *sseCursor, onMessage func(*message)) error {
	defer body.Close()
	return readSSE(body, MaxMessageBytes, func(ev sseEvent) {
		cur.received = true
		if ev.id != "" {
			cur.lastEventID = ev.id
		}
		if ev.retry > 0 {
			cur.retry = ev.retry
		}
		if strings.TrimSpace(ev.data) == "" || (ev.event != "" && ev.event != "message") {
			return
		}
		m, err := parseMessage([]byte(ev.data))
		if err != nil {
			t.h.errorf(err)
			return
		}
		if onMessage != nil {
			onMessage(m)
		}
		t.h.message([]byte(ev.data))
	}, func(id string) { cur.lastEventID = id })
}

// consumeResponseStream reads the stream answering one request. When it ends or breaks before
// the answer and the server gave event ids, it is resumed with GET and Last-Event-ID;
// otherwise only this request fails.
func (t *httpTransport) consumeResponseStream(body io.ReadCloser, id json.RawMessage) {
	cur := &sseCursor{}
	answered := false
	onMessage := func(m *message) {
		if m.isResponse() && idKey(m.ID) == idKey(id) {
			answered = true
		}
	}
	var failure error
	stream := body
	for attempt := 0; ; {
		if stream != nil {
			failure = t.consumeSSE(stream, cur, onMessage)
		}
		if answered || t.isClosed() {
			return
		}
		if failure != nil && !retryable(failure) {
			break
		}
		if cur.lastEventID == "" || attempt >= reconnectMaxRetries {
			break
		}
		if cur.received {
			attempt = 0
		}
		cur.received = false
		if !t.sleep(reconnectDelay(attempt, cur.retry)) {
			return
		}
		attempt++
		var err error
		stream, err = t.openSSE(cur.lastEventID)
		if err != nil {
			failure = err
			if !retryable(err) {
				break
			}
			stream = nil
		}
	}
	if t.isClosed() {
		return
	}
	reason := "stream ended without a response"
	if failure != nil {
		reason = failure.Error()
	}
	t.h.message(encodeResponse(id, nil, &RPCError{Code: codeInternalError, Message: "MCP response stream failed: " + reason}))
}

func (t *httpTransport) startGetStream() {
	t.mu.Lock()
	if t.getStarted || t.closed {
		t.mu.Unlock()
		return
	}
	t.getStarted = true
	t.mu.Unlock()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.runGetStream()
	}()
}

// runGetStream keeps the server-to-client stream open, reconnecting with backoff.
func (t *httpTransport) runGetStream() {
	cur := &sseCursor{}
	for attempt := 0; !t.isClosed(); {
		stream, err := t.openSSE(cur.lastEventID)
		if err == nil && stream == nil {
			return // the server offers no GET stream (405)
		}
		if err == nil {
			opened := time.Now()
			err = t.consumeSSE(stream, cur, nil)
			if cur.received || time.Since(opened) > reconnectMaxDelay {
				attempt = 0
			}
		}
		if t.isClosed() {
			return
		}
		if err != nil && !retryable(err) {
			t.h.errorf(err)
			return
		}
		cur.received = false
		if attempt >= reconnectMaxRetries {
			t.h.errorf(errors.New("MCP server-to-client stream dropped and could not be reopened"))
			return
		}
		if !t.sleep(reconnectDelay(attempt, cur.retry)) {
			return
		}
		attempt++
	}
}

// openSSE opens a GET stream; nil without error when the server answers 405.
func (t *httpTransport) openSSE(lastEventID string) (io.ReadCloser, error) {
	extra := map[string]string{"Accept": "text/event-stream"}
	if lastEventID != "" {
		extra["Last-Event-ID"] = lastEventID
	}
	resp, err := t.authorizedDo(t.ctx, http.MethodGet, nil, extra)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusMethodNotAllowed {
		discard(resp)
		return nil, nil
	}
	if err := t.checkResponse(resp); err != nil {
		return nil, err
	}
	t.captureSession(resp)
	if ct := contentType(resp); ct != "text/event-stream" {
		discard(resp)
		if ct == "" {
			ct = "missing"
		}
		return nil, &HTTPError{Status: resp.StatusCode, Message: "Unsupported MCP GET response content type: " + ct}
	}
	return resp.Body, nil
}

func reconnectDelay(attempt int, server time.Duration) time.Duration {
	if server > 0 {
		return server
	}
	d := reconnectInitialDelay << attempt
	if d > reconnectMaxDelay || d <= 0 {
		d = reconnectMaxDelay
	}
	return d
}

// sleep waits d; false when the transport closed meanwhile.
func (t *httpTransport) sleep(d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-t.ctx.Done():
		return false
	}
}

func (t *httpTransport) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

func (t *httpTransport) close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	sid, tok, started := t.sessionID, t.lastToken, t.started
	t.mu.Unlock()
	t.cancel()
	if started && sid != "" {
		// Best effort: the session expires on the server anyway.
		ctx, cancel := context.WithTimeout(context.Background(), deleteOnCloseTimeout)
		if req, err := t.build(ctx, http.MethodDelete, nil, nil, tok); err == nil {
			if resp, err := t.doer.Do(req); err == nil {
				discard(resp)
			}
		}
		cancel()
	}
	t.wg.Wait()
	if t.h.closed != nil {
		t.h.closed(nil)
	}
	return nil
}

// transient reports network failures and overloaded or restarting servers, which are worth
// another attempt (pi's isTransientError: 408, 429 and 5xx except 501).
func transient(err error) bool {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status == 408 || he.Status == 429 || he.Status >= 500 && he.Status != 501
	}
	var ae *AuthRequiredError
	if errors.As(err, &ae) {
		return false
	}
	return networkError(err)
}

// retryable is the streams' rule: network failures and transient statuses (5xx including 501).
func retryable(err error) bool {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status == 408 || he.Status == 429 || he.Status >= 500
	}
	return networkError(err)
}

func networkError(err error) bool {
	var ue *url.Error
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.As(err, &oe) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// sseEvent is one server-sent event.
type sseEvent struct {
	event, data, id string
	retry           time.Duration
}

// readSSE parses a text/event-stream (lines end with CRLF, LF or a lone CR); an event over max
// bytes of data fails the stream.
func readSSE(r io.Reader, max int, emit func(sseEvent), onID func(string)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var ev sseEvent
	var data []string
	dataBytes := 0
	dispatch := func() {
		if len(data) == 0 {
			ev = sseEvent{}
			return
		}
		ev.data = strings.Join(data, "\n")
		emit(ev)
		ev, data, dataBytes = sseEvent{}, nil, 0
	}
	var line []byte
	skipLF := false
	for {
		b, err := br.ReadByte()
		if err != nil {
			if len(line) > 0 {
				if perr := sseLine(string(line), &ev, &data, &dataBytes, max, onID); perr != nil {
					return perr
				}
			}
			dispatch()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if skipLF {
			skipLF = false
			if b == '\n' {
				continue
			}
		}
		if b != '\r' && b != '\n' {
			line = append(line, b)
			if len(line) > max+64 {
				return fmt.Errorf("MCP SSE event exceeds %d bytes", max)
			}
			continue
		}
		if b == '\r' {
			skipLF = true
		}
		s := string(line)
		line = line[:0]
		if s == "" {
			dispatch()
			continue
		}
		if err := sseLine(s, &ev, &data, &dataBytes, max, onID); err != nil {
			return err
		}
	}
}

func sseLine(s string, ev *sseEvent, data *[]string, dataBytes *int, max int, onID func(string)) error {
	if strings.HasPrefix(s, ":") {
		return nil
	}
	field, value, found := strings.Cut(s, ":")
	if !found {
		value = ""
	}
	value = strings.TrimPrefix(value, " ")
	switch field {
	case "data":
		if len(*data) > 0 {
			*dataBytes++
		}
		*dataBytes += len(value)
		if *dataBytes > max {
			return fmt.Errorf("MCP SSE event exceeds %d bytes", max)
		}
		*data = append(*data, value)
	case "event":
		ev.event = value
	case "id":
		if !strings.Contains(value, "\x00") {
			ev.id = value
			onID(value)
		}
	case "retry":
		if n, err := strconv.Atoi(value); err == nil && n >= 0 {
			ev.retry = time.Duration(n) * time.Millisecond
		}
	}
	return nil
}
