// Package mcpclient connects pigo to Model Context Protocol servers: JSON-RPC 2.0 over a
// stdio process (inside the bwrap sandbox by default) or streamable HTTP, one connection per
// configured server with pi 1.6's lifecycle (background start, lazy reconnect, retries,
// progress that resets a request's timeout, tool-list changes, server logs to mcp.log), the
// conversion of results into what the model sees, and the tool implementations the session's
// execution path binds (MCP tools, the resource tools, tool_search).
//
// The client is pigo's own rather than github.com/modelcontextprotocol/go-sdk's: the SDK
// decodes results into typed content (an unknown block type fails the whole call, and the
// result handed to codemode scripts is no longer what the server sent), ties its HTTP transport
// to its own session type, and buffers JSON responses without a bound (docs/decisions/24-mcp.md
// has the measurements).
package mcpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// The JSON-RPC error codes pigo uses.
const (
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInternalError  = -32603
)

// ProtocolVersion is the MCP version pigo asks for (pi 1.6's latest).
const ProtocolVersion = "2025-11-25"

// supportedVersions are the versions accepted from a server.
var supportedVersions = []string{ProtocolVersion, "2025-06-18", "2025-03-26", "2024-11-05"}

// message is one JSON-RPC message in either direction. ID is kept raw (a number or a string).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error a server answered with (pi's McpError).
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns the server's message.
func (e *RPCError) Error() string { return e.Message }

// ErrClosed is the error of requests on a closed connection (pi's McpConnectionClosedError).
var ErrClosed = errors.New("MCP connection closed")

// TimeoutError is a request that got no answer in time.
type TimeoutError struct{ Millis int64 }

// Error is pi's McpTimeoutError text.
func (e *TimeoutError) Error() string {
	return "MCP request timed out after " + strconv.FormatInt(e.Millis, 10) + "ms"
}

// ErrAborted is a request abandoned by its caller.
var ErrAborted = errors.New("MCP request aborted")

func (m *message) isRequest() bool      { return len(m.ID) > 0 && m.Method != "" }
func (m *message) isNotification() bool { return len(m.ID) == 0 && m.Method != "" }
func (m *message) isResponse() bool {
	return len(m.ID) > 0 && m.Method == "" && (m.Result != nil) != (m.Error != nil)
}

// parseMessage decodes and checks one message (pi's parseJsonRpcMessage).
func parseMessage(b []byte) (*message, error) {
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("invalid JSON-RPC message: %v", err)
	}
	if m.JSONRPC != "2.0" || !(m.isRequest() || m.isNotification() || m.isResponse()) {
		return nil, &RPCError{Code: codeInvalidRequest, Message: "Invalid JSON-RPC message"}
	}
	if len(m.ID) > 0 && !validID(m.ID) {
		return nil, &RPCError{Code: codeInvalidRequest, Message: "Invalid JSON-RPC message"}
	}
	return &m, nil
}

func validID(id json.RawMessage) bool {
	switch id[0] {
	case '"':
		return true
	case 'n', 't', 'f', '{', '[':
		return false
	}
	_, err := strconv.ParseFloat(string(id), 64)
	return err == nil
}

// idKey normalises an id for lookups ("1" and 1 stay different, as in JavaScript's Map).
func idKey(id json.RawMessage) string { return string(id) }

func encodeRequest(id int64, method string, params json.RawMessage) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":`)
	b = strconv.AppendQuote(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

func encodeNotification(method string, params json.RawMessage) []byte {
	b := []byte(`{"jsonrpc":"2.0","method":`)
	b = strconv.AppendQuote(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

func encodeResponse(id json.RawMessage, result json.RawMessage, rerr *RPCError) []byte {
	m := message{JSONRPC: "2.0", ID: id}
	if rerr != nil {
		m.Error = rerr
	} else {
		m.Result = result
	}
	b, _ := json.Marshal(m)
	return b
}
