// Package mcp is pigo's model of Model Context Protocol servers as mcp.json declares them (pi
// 1.6's `mcpServers` shape): the validated server entries with where they were written, pi's
// tool and namespace naming, exposure, the per-server cache of discovered tool schemas that lets
// `pigo tools` answer without starting a server, the mcp.log writer, and the conversion of a
// tool result into what the model sees. It speaks no protocol and starts nothing: the client
// lives in internal/mcpclient, the configuration loader in config.
package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"

	"github.com/pigo-agent/pigo/internal/pattern"
)

// The transports of a server entry.
const (
	Stdio = "stdio"
	HTTP  = "http"
)

// The exposures of MCP tools (pi 1.6's docs/mcp.md, "Control tool exposure").
const (
	ExposureCodemode = "codemode"
	ExposureDeferred = "deferred"
	ExposureDirect   = "direct"
	ExposureHidden   = "hidden"
)

// Exposures lists the valid exposures in pi's order.
var Exposures = []string{ExposureCodemode, ExposureDeferred, ExposureDirect, ExposureHidden}

// DefaultTimeoutSeconds is a request's timeout when the entry sets none.
const DefaultTimeoutSeconds = 60

// Position is where something was written: a file and a 1-based line and column (0 when
// unknown).
type Position struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// Server is one validated mcpServers entry, after the project layer was applied.
type Server struct {
	Name      string
	Transport string // Stdio or HTTP
	// stdio
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// streamable HTTP
	URL     string
	Headers map[string]string
	OAuth   *OAuth
	// AuthProvider is `auth.provider`: the /login provider whose token is sent.
	AuthProvider string

	Timeout      float64 // seconds; 0 means DefaultTimeoutSeconds
	Enabled      bool
	Description  string
	Exposure     string            // resolved alias; "" means codemode
	ToolExposure map[string]string // tool name or pattern → exposure
	// ToolExposureOrder keeps toolExposure's keys in the order written (the first matching
	// pattern wins); ToolExposureAt says where each entry is written.
	ToolExposureOrder []string
	ToolExposureAt    map[string]Position

	// Sandbox is how a stdio server is sandboxed.
	Sandbox Sandbox

	// Scope is "global" or "project"; Source is where the defining entry is written (its name),
	// Override where a project override of enabled/exposure/toolExposure is, if any.
	Scope    string
	Source   Position
	Override *Position
	// ExposureAt is where the effective exposure was written (nil: the default).
	ExposureAt *Position
	// EnabledAt is where the effective enabled value was written (nil: the default).
	EnabledAt *Position
}

// OAuth is an HTTP server's `oauth` settings as written (secrets unresolved).
type OAuth struct {
	ClientID              string `json:"clientId,omitempty"`
	ClientSecret          string `json:"clientSecret,omitempty"`
	CallbackPort          int    `json:"callbackPort,omitempty"`
	CallbackURL           string `json:"callbackUrl,omitempty"`
	Scope                 string `json:"scope,omitempty"`
	ClientName            string `json:"clientName,omitempty"`
	ClientRegistration    string `json:"clientRegistration,omitempty"`
	AuthServerMetadataURL string `json:"authServerMetadataUrl,omitempty"`
}

// Sandbox is a stdio server's sandboxing: by default the session's sandbox.json policy.
type Sandbox struct {
	// Off is `"sandbox": false`: the server runs directly on this machine.
	Off bool
	// WritablePaths are extra writable paths for this server alone.
	WritablePaths []string
	// Network replaces sandbox.json's network mode for this server ("" keeps it).
	Network string
	// At is where the sandbox setting was written (nil: not written).
	At *Position
}

// Widens reports whether the entry widens the session's sandbox for this server.
func (s Sandbox) Widens() bool { return s.Off || len(s.WritablePaths) > 0 || s.Network != "" }

// TimeoutSeconds is the per-request timeout.
func (s *Server) TimeoutSeconds() float64 {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeoutSeconds
}

// ServerExposure is the server's exposure ("codemode" when unset).
func (s *Server) ServerExposure() string {
	if s.Exposure == "" {
		return ExposureCodemode
	}
	return s.Exposure
}

// ToolExposureOf is pi's getMcpToolExposure: the tool's exact toolExposure entry, else the first
// pattern (where "*" matches any characters) that matches, else the server's exposure.
func (s *Server) ToolExposureOf(tool string) string {
	e, _ := s.ToolExposureWhere(tool)
	return e
}

// ToolExposureWhere is ToolExposureOf with the toolExposure key that decided it ("" when the
// server's exposure did).
func (s *Server) ToolExposureWhere(tool string) (exposure, key string) {
	if e, ok := s.ToolExposure[tool]; ok {
		return e, tool
	}
	for _, p := range s.ToolExposureOrder {
		if strings.Contains(p, "*") && pattern.MatchStar(p, tool) {
			return s.ToolExposure[p], p
		}
	}
	return s.ServerExposure(), ""
}

// ConfiguredExposures are the exposures the server's tools can have, known before it connects.
func (s *Server) ConfiguredExposures() map[string]bool {
	out := map[string]bool{s.ServerExposure(): true}
	for _, e := range s.ToolExposure {
		out[e] = true
	}
	return out
}

// HasDirectTools reports whether some of the server's tools may be declared to the model, so
// the first prompt waits for the server.
func (s *Server) HasDirectTools() bool { return s.ConfiguredExposures()[ExposureDirect] }

// HasIndirectTools reports whether some tools are reached through codemode or tool_search.
func (s *Server) HasIndirectTools() bool {
	e := s.ConfiguredExposures()
	return e[ExposureCodemode] || e[ExposureDeferred]
}

// UsesOAuth reports whether the server signs in with OAuth: an HTTP server without an
// Authorization header and without `auth`.
func (s *Server) UsesOAuth() bool {
	if s.Transport != HTTP || s.AuthProvider != "" {
		return false
	}
	for k := range s.Headers {
		if strings.EqualFold(k, "authorization") {
			return false
		}
	}
	return true
}

// Describe is the transport as pi's lists show it: the URL, or the command line.
func (s *Server) Describe() string {
	if s.Transport == HTTP {
		return s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// Key identifies what the server's tool list depends on: the transport and how it is started
// or reached, as written (secrets are neither resolved nor stored: only a hash is kept). The
// schema cache is keyed by it, so a changed entry marks its cached tools as stale.
func (s *Server) Key() string {
	type keyed struct {
		Name      string      `json:"name"`
		Transport string      `json:"transport"`
		Command   string      `json:"command,omitempty"`
		Args      []string    `json:"args,omitempty"`
		Env       [][2]string `json:"env,omitempty"`
		Cwd       string      `json:"cwd,omitempty"`
		URL       string      `json:"url,omitempty"`
		Headers   [][2]string `json:"headers,omitempty"`
		Auth      string      `json:"auth,omitempty"`
		Sandbox   Sandbox     `json:"sandbox"`
	}
	k := keyed{Name: s.Name, Transport: s.Transport, Command: s.Command, Args: s.Args, Cwd: s.Cwd, URL: s.URL,
		Env: sortedPairs(s.Env), Headers: sortedPairs(s.Headers), Auth: s.AuthProvider, Sandbox: s.Sandbox}
	k.Sandbox.At = nil
	b, _ := json.Marshal(k)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

func sortedPairs(m map[string]string) [][2]string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][2]string, len(keys))
	for i, k := range keys {
		out[i] = [2]string{k, m[k]}
	}
	return out
}
