package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
)

// transport moves JSON-RPC messages: a stdio process or streamable HTTP.
type transport interface {
	// start begins delivering incoming messages and the end of the connection.
	start(ctx context.Context, h handlers) error
	// send writes one message; id is the request's id for requests (HTTP reads its answer).
	send(ctx context.Context, msg []byte, id json.RawMessage) error
	// setProtocolVersion is called after initialize.
	setProtocolVersion(v string)
	// close ends the connection and waits until it has ended.
	close() error
}

// handlers receive what a transport reads.
type handlers struct {
	message func([]byte)
	// errorf reports a problem that does not end the connection (a bad message).
	errorf func(error)
	// closed reports the end of the connection, once.
	closed func(error)
}

// Progress is a progress notification for a running request.
type Progress struct {
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// Root is one filesystem root offered to servers (roots/list).
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// InitializeResult is what a server answered to initialize.
type InitializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    map[string]any  `json:"capabilities"`
	ServerInfo      json.RawMessage `json:"serverInfo"`
	Instructions    string          `json:"instructions,omitempty"`
}

// client is one JSON-RPC session with a server.
type client struct {
	t       transport
	name    string // client name sent in initialize
	version string
	roots   []Root
	timeout time.Duration
	// onNotification receives every notification except progress and cancellation.
	onNotification func(method string, params json.RawMessage)
	onError        func(error)
	onClose        func(error)

	mu       sync.Mutex
	nextID   int64
	pending  map[string]*pending
	progress map[string]string // progress token → request id key
	incoming map[string]context.CancelFunc
	state    string // idle, connecting, connected, closed
	closeErr error
	done     chan struct{}
	init     *InitializeResult
}

type pending struct {
	ch chan result
	// stopSend ends a send still blocked (a server that does not read its stdin) once the
	// request is answered, timed out or cancelled.
	stopSend   context.CancelFunc
	timer      *time.Timer
	timeout    time.Duration
	onProgress func(Progress)
	token      string
	method     string
}

type result struct {
	raw json.RawMessage
	err error
}

func newClient(t transport, name, version string, timeout time.Duration) *client {
	return &client{t: t, name: name, version: version, timeout: timeout, pending: map[string]*pending{},
		progress: map[string]string{}, incoming: map[string]context.CancelFunc{}, state: "idle", done: make(chan struct{})}
}

// connect starts the transport and runs the initialize handshake.
func (c *client) connect(ctx context.Context) (*InitializeResult, error) {
	c.mu.Lock()
	c.state = "connecting"
	c.mu.Unlock()
	if err := c.t.start(ctx, handlers{message: c.handleMessage, errorf: c.reportError, closed: c.transportClosed}); err != nil {
		c.markClosed(err)
		return nil, err
	}
	caps := map[string]any{}
	if len(c.roots) > 0 {
		caps["roots"] = map[string]any{}
	}
	params, _ := json.Marshal(map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    caps,
		"clientInfo":      map[string]string{"name": c.name, "version": c.version},
	})
	raw, err := c.request(ctx, "initialize", params, requestOptions{allowConnecting: true})
	if err != nil {
		c.close()
		return nil, err
	}
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil || res.ProtocolVersion == "" || res.Capabilities == nil || !validServerInfo(res.ServerInfo) {
		c.close()
		return nil, &RPCError{Code: codeInvalidRequest, Message: "Invalid MCP initialize result"}
	}
	if !slices.Contains(supportedVersions, res.ProtocolVersion) {
		c.close()
		return nil, fmt.Errorf("MCP server selected unsupported protocol version %s", res.ProtocolVersion)
	}
	c.t.setProtocolVersion(res.ProtocolVersion)
	if err := c.notify(ctx, "notifications/initialized", nil, true); err != nil {
		c.close()
		return nil, err
	}
	c.mu.Lock()
	if c.state == "connecting" {
		c.state = "connected"
	}
	c.init = &res
	c.mu.Unlock()
	return &res, nil
}

func validServerInfo(b json.RawMessage) bool {
	var si struct {
		Name    *string `json:"name"`
		Version *string `json:"version"`
	}
	return json.Unmarshal(b, &si) == nil && si.Name != nil && si.Version != nil
}

type requestOptions struct {
	timeout         time.Duration // 0: the client's
	onProgress      func(Progress)
	allowConnecting bool
}

// request sends a request and waits for its answer, the timeout (reset by every progress
// notification), the caller's ctx (which sends notifications/cancelled) or the end of the
// connection.
func (c *client) request(ctx context.Context, method string, params json.RawMessage, o requestOptions) (json.RawMessage, error) {
	if ctx.Err() != nil {
		return nil, ErrAborted
	}
	c.mu.Lock()
	if !(c.state == "connected" || o.allowConnecting && c.state == "connecting") {
		st := c.state
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: MCP client is %s", ErrClosed, st)
	}
	c.nextID++
	id := c.nextID
	key := strconv.FormatInt(id, 10)
	sendCtx, stopSend := context.WithCancel(ctx)
	p := &pending{ch: make(chan result, 1), timeout: o.timeout, onProgress: o.onProgress, method: method, stopSend: stopSend}
	if p.timeout <= 0 {
		p.timeout = c.timeout
	}
	if o.onProgress != nil {
		p.token = key
		params = withProgressToken(params, id)
		c.progress[key] = key
	}
	c.pending[key] = p
	p.timer = time.AfterFunc(p.timeout, func() {
		c.cancelPending(key, &TimeoutError{Millis: p.timeout.Milliseconds()}, method != "initialize", "Request timed out")
	})
	c.mu.Unlock()

	if err := c.t.send(sendCtx, encodeRequest(id, method, params), json.RawMessage(key)); err != nil {
		c.cancelPending(key, err, false, "")
	}
	select {
	case r := <-p.ch:
		return r.raw, r.err
	case <-ctx.Done():
		// The spec forbids cancelling initialize.
		c.cancelPending(key, ErrAborted, method != "initialize", "Aborted")
		r := <-p.ch
		return r.raw, r.err
	}
}

// withProgressToken adds _meta.progressToken to params (an object, or none).
func withProgressToken(params json.RawMessage, id int64) json.RawMessage {
	var m map[string]json.RawMessage
	if len(params) > 0 {
		if json.Unmarshal(params, &m) != nil {
			return params
		}
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := m["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	meta["progressToken"] = json.RawMessage(strconv.FormatInt(id, 10))
	m["_meta"], _ = json.Marshal(meta)
	b, _ := json.Marshal(m)
	return b
}

// cancelPending fails a request; notify sends notifications/cancelled to the server.
func (c *client) cancelPending(key string, err error, notify bool, reason string) {
	c.mu.Lock()
	p := c.pending[key]
	if p == nil {
		c.mu.Unlock()
		return
	}
	c.removeLocked(key, p)
	connected := c.state == "connected"
	c.mu.Unlock()
	p.ch <- result{err: err}
	if notify && connected {
		params, _ := json.Marshal(map[string]any{"requestId": json.RawMessage(key), "reason": reason})
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = c.t.send(ctx, encodeNotification("notifications/cancelled", params), nil)
		}()
	}
}

func (c *client) removeLocked(key string, p *pending) {
	delete(c.pending, key)
	p.timer.Stop()
	p.stopSend()
	if p.token != "" {
		delete(c.progress, p.token)
	}
}

func (c *client) notify(ctx context.Context, method string, params json.RawMessage, allowConnecting bool) error {
	c.mu.Lock()
	ok := c.state == "connected" || allowConnecting && c.state == "connecting"
	c.mu.Unlock()
	if !ok {
		return ErrClosed
	}
	return c.t.send(ctx, encodeNotification(method, params), nil)
}

func (c *client) handleMessage(b []byte) {
	m, err := parseMessage(b)
	if err != nil {
		c.reportError(err)
		return
	}
	switch {
	case m.isResponse():
		key := idKey(m.ID)
		c.mu.Lock()
		p := c.pending[key]
		if p != nil {
			c.removeLocked(key, p)
		}
		c.mu.Unlock()
		if p == nil {
			c.reportError(fmt.Errorf("Received response for unknown MCP request %s", m.ID))
			return
		}
		if m.Error != nil {
			p.ch <- result{err: m.Error}
		} else {
			p.ch <- result{raw: m.Result}
		}
	case m.isRequest():
		go c.handleRequest(m)
	case m.isNotification():
		c.handleNotification(m.Method, m.Params)
	}
}

func (c *client) handleRequest(m *message) {
	ctx, cancel := context.WithCancel(context.Background())
	key := idKey(m.ID)
	c.mu.Lock()
	c.incoming[key] = cancel
	c.mu.Unlock()
	defer func() {
		cancel()
		c.mu.Lock()
		delete(c.incoming, key)
		c.mu.Unlock()
	}()
	var res json.RawMessage
	var rerr *RPCError
	switch m.Method {
	case "ping":
		res = json.RawMessage(`{}`)
	case "roots/list":
		if c.roots == nil {
			rerr = &RPCError{Code: codeMethodNotFound, Message: "Method not found: " + m.Method}
			break
		}
		res, _ = json.Marshal(map[string]any{"roots": c.roots})
	default:
		rerr = &RPCError{Code: codeMethodNotFound, Message: "Method not found: " + m.Method}
	}
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	defer scancel()
	if err := c.t.send(sctx, encodeResponse(m.ID, res, rerr), nil); err != nil {
		c.reportError(err)
	}
}

func (c *client) handleNotification(method string, params json.RawMessage) {
	switch method {
	case "notifications/progress":
		var p struct {
			Token    json.RawMessage `json:"progressToken"`
			Progress *float64        `json:"progress"`
			Total    *float64        `json:"total"`
			Message  string          `json:"message"`
		}
		if json.Unmarshal(params, &p) != nil || p.Progress == nil || len(p.Token) == 0 {
			return
		}
		c.mu.Lock()
		key, ok := c.progress[string(p.Token)]
		pe := c.pending[key]
		if ok && pe != nil {
			pe.timer.Reset(pe.timeout)
		}
		c.mu.Unlock()
		if ok && pe != nil && pe.onProgress != nil {
			pe.onProgress(Progress{Progress: *p.Progress, Total: p.Total, Message: p.Message})
		}
		return
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(params, &p) == nil && len(p.RequestID) > 0 {
			c.mu.Lock()
			if cancel := c.incoming[idKey(p.RequestID)]; cancel != nil {
				cancel()
			}
			c.mu.Unlock()
		}
	}
	if c.onNotification != nil {
		c.onNotification(method, params)
	}
}

func (c *client) reportError(err error) {
	var over *oversizeError
	if errors.As(err, &over) && over.id != nil {
		c.cancelPending(idKey(over.id), err, false, "")
	}
	if c.onError != nil {
		c.onError(err)
	}
}

func (c *client) transportClosed(err error) {
	c.markClosed(err)
}

// markClosed fails every pending request and runs onClose once.
func (c *client) markClosed(err error) {
	c.mu.Lock()
	if c.state == "closed" {
		c.mu.Unlock()
		return
	}
	c.state = "closed"
	c.closeErr = err
	pend := c.pending
	c.pending = map[string]*pending{}
	c.progress = map[string]string{}
	for _, cancel := range c.incoming {
		cancel()
	}
	c.mu.Unlock()
	for _, p := range pend {
		p.timer.Stop()
		p.stopSend()
		e := ErrClosed
		if err != nil && !errors.Is(err, ErrClosed) {
			e = fmt.Errorf("%w: %v", ErrClosed, err)
		}
		p.ch <- result{err: e}
	}
	close(c.done)
	if c.onClose != nil {
		c.onClose(err)
	}
}

// close ends the session and its transport.
func (c *client) close() {
	c.markClosed(nil)
	_ = c.t.close()
}

// connected reports whether requests can be sent.
func (c *client) connected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == "connected"
}

func (c *client) capability(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.init == nil {
		return false
	}
	v, ok := c.init.Capabilities[name]
	return ok && v != nil
}
