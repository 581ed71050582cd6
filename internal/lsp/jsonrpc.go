package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// JSON-RPC error codes used here.
const (
	codeMethodNotFound = -32601
	codeInvalidRequest = -32600
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// message is any JSON-RPC 2.0 message; which fields are set says its kind.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// outgoing messages; separate types keep `result: null` on the wire.
type outRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type outNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type outResult struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type outError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *rpcError       `json:"error"`
}

// handlers are the client's side of the conversation: answer a server
// request (return a result or an error) and take a notification. Both run
// on the read loop and must not block.
type handlers struct {
	request func(method string, params json.RawMessage) (any, *rpcError)
	notify  func(method string, params json.RawMessage)
}

// conn is a JSON-RPC 2.0 connection over a framed byte stream.
type conn struct {
	w   io.Writer
	wmu sync.Mutex
	h   handlers

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *message
	err     error // why the read loop stopped
	done    chan struct{}
}

func newConn(r io.Reader, w io.Writer, h handlers) *conn {
	c := &conn{w: w, h: h, pending: map[int64]chan *message{}, done: make(chan struct{})}
	go c.readLoop(bufio.NewReaderSize(r, 64<<10))
	return c
}

// Err returns why the connection closed, once Done is closed.
func (c *conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Done is closed when the read side ends.
func (c *conn) Done() <-chan struct{} { return c.done }

func (c *conn) readLoop(r *bufio.Reader) {
	err := func() error {
		for {
			body, err := ReadFrame(r)
			if err != nil {
				if err == io.EOF {
					return errors.New("the server closed its output")
				}
				return err
			}
			var m message
			dec := json.NewDecoder(bytes.NewReader(body))
			if err := dec.Decode(&m); err != nil {
				return fmt.Errorf("%w: body is not a JSON-RPC message: %v", ErrFrame, err)
			}
			c.dispatch(&m)
		}
	}()
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.done)
}

func (c *conn) dispatch(m *message) {
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method != "" && hasID:
		var result any
		var rerr *rpcError
		if c.h.request != nil {
			result, rerr = c.h.request(m.Method, m.Params)
		} else {
			rerr = &rpcError{Code: codeMethodNotFound, Message: "method not found: " + m.Method}
		}
		// Reply off the read loop: a server that does not read its input
		// must not stop us from reading its output.
		go func() {
			if rerr != nil {
				_ = c.send(outError{JSONRPC: "2.0", ID: m.ID, Error: rerr})
			} else {
				_ = c.send(outResult{JSONRPC: "2.0", ID: m.ID, Result: result})
			}
		}()
	case m.Method != "":
		if c.h.notify != nil {
			c.h.notify(m.Method, m.Params)
		}
	case hasID:
		var id int64
		if err := json.Unmarshal(m.ID, &id); err != nil {
			return // not one of ours
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

func (c *conn) send(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return WriteFrame(c.w, body)
}

// Notify sends a notification.
func (c *conn) Notify(method string, params any) error {
	return c.send(outNotification{JSONRPC: "2.0", Method: method, Params: params})
}

// Call sends a request and waits for its response, ctx, or the end of the
// connection. result may be nil.
func (c *conn) Call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan *message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	errc := make(chan error, 1)
	go func() { errc <- c.send(outRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params}) }()
	for {
		select {
		case err := <-errc:
			if err != nil {
				return fmt.Errorf("%s: writing the request: %w", method, err)
			}
			errc = nil
		case m := <-ch:
			if m.Error != nil {
				return fmt.Errorf("%s: %w", method, m.Error)
			}
			if result != nil && len(m.Result) > 0 {
				if err := json.Unmarshal(m.Result, result); err != nil {
					return fmt.Errorf("%s: malformed result: %v", method, err)
				}
			}
			return nil
		case <-c.done:
			return fmt.Errorf("%s: connection closed: %w", method, c.Err())
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
	}
}
