package mcpclient

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/mcp"
)

// StartupWait bounds how long the first prompt waits for servers with direct tools (pi's 10 s).
const StartupWait = 10 * time.Second

// Manager is a session's MCP servers: it connects every enabled server in the background,
// keeps their tool lists (and the schema cache) current, and tells the session when the
// tools changed.
type Manager struct {
	opts  *Options
	cache mcp.Cache
	conns []*Conn

	// StartupWait is the first prompt's bound (StartupWait when zero).
	StartupWait time.Duration

	mu         sync.Mutex
	ready      map[string]chan struct{}
	generation uint64
	onTools    func()
	onChange   func(*Conn)
	started    bool
	closed     bool
}

// NewManager prepares one connection per server (disabled ones included, never started).
// onTools is called after a server's tool list changed; it may be nil.
func NewManager(servers []*mcp.Server, opts *Options, cache mcp.Cache, onTools func()) *Manager {
	m := &Manager{opts: opts, cache: cache, ready: map[string]chan struct{}{}, onTools: onTools}
	for _, s := range servers {
		m.conns = append(m.conns, NewConn(s, opts, m.toolsChanged, m.stateChanged))
	}
	return m
}

// SetOnChange sets a function called on every state change of a server (a UI refreshes).
func (m *Manager) SetOnChange(f func(*Conn)) {
	m.mu.Lock()
	m.onChange = f
	m.mu.Unlock()
}

func (m *Manager) stateChanged(c *Conn) {
	m.mu.Lock()
	f := m.onChange
	m.mu.Unlock()
	if f != nil {
		f(c)
	}
}

func (m *Manager) toolsChanged(c *Conn) {
	if l := c.List(); l != nil {
		_ = m.cache.Save(c.Server, l) // best effort: the cache only speeds up `pigo tools`
	}
	m.mu.Lock()
	m.generation++
	f := m.onTools
	m.mu.Unlock()
	if f != nil {
		f()
	}
}

// Generation increases whenever a server's tool list changes.
func (m *Manager) Generation() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.generation
}

// Conns returns the connections in configuration order.
func (m *Manager) Conns() []*Conn { return m.conns }

// Conn returns the connection of a server, or nil.
func (m *Manager) Conn(name string) *Conn {
	for _, c := range m.conns {
		if c.Server.Name == name {
			return c
		}
	}
	return nil
}

// Start connects every enabled server in the background.
func (m *Manager) Start() {
	m.mu.Lock()
	if m.started || m.closed {
		m.mu.Unlock()
		return
	}
	m.started = true
	m.mu.Unlock()
	for _, c := range m.conns {
		if !c.Server.Enabled {
			continue
		}
		ch := make(chan struct{})
		m.mu.Lock()
		m.ready[c.Server.Name] = ch
		m.mu.Unlock()
		go func(c *Conn) {
			_ = c.Open(context.Background())
			close(ch)
		}(c)
	}
}

// Settled reports whether the first connection attempt of every started server has settled
// (true before Start: none was started).
func (m *Manager) Settled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ch := range m.ready {
		select {
		case <-ch:
		default:
			return false
		}
	}
	return true
}

// Wait waits until the first connection attempt of each named server (all when names is nil)
// has settled, or ctx ends.
func (m *Manager) Wait(ctx context.Context, names []string) {
	m.mu.Lock()
	var chans []chan struct{}
	for name, ch := range m.ready {
		if names == nil || contains(names, name) {
			chans = append(chans, ch)
		}
	}
	m.mu.Unlock()
	for _, ch := range chans {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// WaitDirect is the first prompt's wait: for servers with direct tools only, at most
// StartupWait. It returns the servers still connecting when the wait ended.
func (m *Manager) WaitDirect(ctx context.Context) []string {
	var names []string
	for _, c := range m.conns {
		if c.Server.Enabled && c.Server.HasDirectTools() {
			names = append(names, c.Server.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	wait := m.StartupWait
	if wait <= 0 {
		wait = StartupWait
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	m.Wait(wctx, names)
	var pending []string
	for _, n := range names {
		if st, _ := m.Conn(n).State(); st == StateConnecting {
			pending = append(pending, n)
		}
	}
	return pending
}

// ToolList is the live tool list of a connected server (config.ResolveOptions.MCPTools).
func (m *Manager) ToolList(s *mcp.Server) *mcp.ToolList {
	c := m.Conn(s.Name)
	if c == nil {
		return nil
	}
	if st, _ := c.State(); st != StateConnected && st != StateDisconnected {
		return nil
	}
	return c.List()
}

// Problems are pi's startup report: one line per server that failed or needs a sign-in.
func (m *Manager) Problems() []string {
	var out []string
	for _, c := range m.conns {
		if !c.Server.Enabled {
			continue
		}
		st, err := c.State()
		switch st {
		case StateNeedsAuth:
			out = append(out, fmt.Sprintf("%s: needs sign-in", c.Server.Name))
		case StateFailed:
			first, _, _ := strings.Cut(err, "\n")
			if first == "" {
				first = "unknown error"
			}
			out = append(out, fmt.Sprintf("%s: failed: %s", c.Server.Name, first))
		}
		if n := c.Dropped(); n > 0 {
			out = append(out, fmt.Sprintf("%s: announced %d tools more than pigo takes from one server (%d); the rest are left out", c.Server.Name, n, MaxTools))
		}
	}
	return out
}

// Close stops every server (stdio servers get the stdin, SIGTERM, SIGKILL sequence) and waits.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range m.conns {
		wg.Add(1)
		go func(c *Conn) {
			defer wg.Done()
			c.Close()
		}(c)
	}
	wg.Wait()
}
