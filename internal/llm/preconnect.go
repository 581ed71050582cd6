package llm

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The provider's connection opened while the run gets ready (preconnect). A print-mode run
// knows its provider's base URL some hundreds of microseconds before the first request dials
// it, and the first dial of a process costs ~0.35 ms (the socket, the poller's set-up, code
// run for the first time, D25.40). Preconnect dials the address the transport will dial on a
// goroutine; the transport's dial (dialBodyConn) takes that connection once, for the same
// network address only, when it is ready and fresh, and dials as before otherwise. Only TCP:
// nothing is written before the request, and TLS is the transport's own handshake over it.

// earlyMaxAge is how old an early connection may be when the transport takes it.
const earlyMaxAge = 2 * time.Second

var early struct {
	mu sync.Mutex
	// addr is the "host:port" being dialed ("" for none); taken is set by the transport's
	// first dial, which takes the connection or leaves it to be closed.
	addr  string
	taken bool
	// started is set when the goroutine begins to dial; ready is closed when the dial has
	// finished: conn made at, or err.
	started bool
	ready   chan struct{}
	conn    net.Conn
	err     error
	at      time.Time
}

// preconnectDial is the early dial (tests replace it).
var preconnectDial = func(ctx context.Context, network, addr string) (net.Conn, error) {
	return bodyDialer.DialContext(ctx, network, addr)
}

// preconnectHold, when set, holds Preconnect's goroutine before it dials (tests).
var preconnectHold func()

// Preconnect starts the TCP connection Client(o) would open for a request to rawURL, when
// it would open one directly: none when o has its own HTTP client, when a proxy applies to
// the URL (the transport would dial the proxy), when the URL is not http or https, or when
// one was started already. All of it runs on a goroutine (the client's set-up and the proxy
// look are first-time work too: 0.29 ms on the caller's path when done there); it returns
// whether that goroutine was started.
//
// For an https URL the system's root certificates are loaded on a goroutine too (Go parses
// the system bundle at the first verification: ~12 ms for 144 certificates here), proxy or
// not, when the transport's TLS configuration leaves the roots to the system.
func Preconnect(o *Options, rawURL string) bool {
	if (o != nil && o.HTTPClient != nil) || !(strings.HasPrefix(rawURL, "http://") || strings.HasPrefix(rawURL, "https://")) {
		return false
	}
	early.mu.Lock()
	if early.ready != nil {
		early.mu.Unlock()
		return false
	}
	ready := make(chan struct{})
	early.ready = ready
	early.mu.Unlock()
	go func() {
		if preconnectHold != nil {
			preconnectHold()
		}
		if strings.HasPrefix(rawURL, "https://") {
			warmRoots(o)
		}
		addr, ok := directAddr(o, rawURL)
		early.mu.Lock()
		if !ok || early.taken {
			// No direct connection, or the transport dialed before this goroutine got here
			// (a busy machine): no early dial at all.
			early.mu.Unlock()
			close(ready)
			return
		}
		early.addr, early.started = addr, true
		early.mu.Unlock()
		c, err := preconnectDial(context.Background(), "tcp", addr)
		early.mu.Lock()
		early.conn, early.err, early.at = c, err, time.Now()
		early.mu.Unlock()
		close(ready)
	}()
	return true
}

var rootsOnce sync.Once

// rootsLoading is closed when the goroutine warmRoots started has loaded the system roots
// (tests wait on it).
var rootsLoading = make(chan struct{})

// warmRoots loads the system root certificates on a goroutine of its own, once, when the
// transport of Client(o) verifies with them.
func warmRoots(o *Options) {
	hc, ok := Client(o).(*http.Client)
	if !ok || hc == nil {
		return
	}
	if tr, ok := hc.Transport.(*http.Transport); !ok || (tr.TLSClientConfig != nil && tr.TLSClientConfig.RootCAs != nil) {
		return
	}
	rootsOnce.Do(func() {
		go func() {
			defer close(rootsLoading)
			_, _ = x509.SystemCertPool() // the pool crypto/tls verifies with, loaded once per process
		}()
	})
}

// directAddr is the network address the transport of Client(o) dials for rawURL when no
// proxy applies (canonicalAddr in net/http: the host as written when ASCII, the scheme's
// port when none).
func directAddr(o *Options, rawURL string) (string, bool) {
	hc, ok := Client(o).(*http.Client)
	if !ok || hc == nil {
		return "", false
	}
	tr, ok := hc.Transport.(*http.Transport)
	if !ok || tr.DialTLSContext != nil || tr.DialTLS != nil {
		return "", false
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", false
	}
	port := u.Port()
	switch u.Scheme {
	case "http":
		if port == "" {
			port = "80"
		}
	case "https":
		if port == "" {
			port = "443"
		}
	default:
		return "", false
	}
	host := u.Hostname()
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return "", false // the transport's IDNA form: left to it
		}
	}
	if host == "" {
		return "", false
	}
	if tr.Proxy != nil {
		p, err := tr.Proxy(&http.Request{Method: http.MethodPost, URL: u, Header: http.Header{}})
		if err != nil || p != nil {
			return "", false
		}
	}
	return net.JoinHostPort(host, port), true
}

// takeEarly is the early connection for network and addr when there is one: the first dial
// of the process decides, a match or not. A connection still being dialed is waited for (it
// started first), ctx permitting, and one whose goroutine has not run yet is not dialed; one that failed leaves the transport to dial as before,
// except a timeout, which is the error the transport's own dial (the same dialer) would
// give, not to be waited for twice. A connection older than earlyMaxAge, or already closed
// by the peer, is closed and not taken. ok is false when the transport is to dial itself.
func takeEarly(ctx context.Context, network, addr string) (c net.Conn, ok bool, err error) {
	early.mu.Lock()
	if early.ready == nil || early.taken {
		early.mu.Unlock()
		return nil, false, nil
	}
	early.taken = true
	want, ready, started := early.addr, early.ready, early.started
	early.mu.Unlock()
	if !started {
		// Its goroutine has not got to its dial yet: dialing here is sooner, and it will not
		// dial.
		return nil, false, nil
	}
	if network != "tcp" || addr != want {
		go closeEarly(ready)
		return nil, false, nil
	}
	select {
	case <-ready:
	case <-ctx.Done():
		go closeEarly(ready)
		return nil, false, nil
	}
	early.mu.Lock()
	c, err, at := early.conn, early.err, early.at
	early.conn = nil
	early.mu.Unlock()
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, true, err
		}
		return nil, false, nil
	}
	if time.Since(at) > earlyMaxAge || !open(c) {
		c.Close()
		return nil, false, nil
	}
	return c, true, nil
}

// closeEarly closes the early connection nothing takes, once its dial has finished.
func closeEarly(ready chan struct{}) {
	<-ready
	early.mu.Lock()
	c := early.conn
	early.conn = nil
	early.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// open reports whether nothing has come from the peer on c, an end of stream included: a
// server that closed the idle connection would fail the request written on it.
func open(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		_, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = errors.Is(rerr, syscall.EAGAIN)
		return true
	})
	return err == nil && alive
}

// PreconnectStarted reports whether this process's Preconnect started its goroutine, and
// ResetPreconnect forgets it (closing a connection nothing took): for tests that run the
// command line in one process.
func PreconnectStarted() bool {
	early.mu.Lock()
	defer early.mu.Unlock()
	return early.ready != nil
}

// ResetPreconnect: see PreconnectStarted.
func ResetPreconnect() {
	early.mu.Lock()
	ready := early.ready
	early.taken = true // a goroutine not at its dial yet makes none
	early.mu.Unlock()
	if ready != nil {
		closeEarly(ready)
	}
	early.mu.Lock()
	early.addr, early.taken, early.started, early.ready, early.conn, early.err, early.at = "", false, false, nil, nil, nil, time.Time{}
	early.mu.Unlock()
}
