package llm

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingListener counts the connections it accepts; closeFirst closes the first one at once
// (a server that drops an idle connection).
type countingListener struct {
	net.Listener
	n          atomic.Int32
	closeFirst bool
}

func (l *countingListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.n.Add(1) == 1 && l.closeFirst {
			c.Close()
			continue
		}
		return c, nil
	}
}

// earlyServer is a loopback HTTP server whose accepts are counted, with the preconnect state
// reset around the test (it is the process's).
func earlyServer(t *testing.T, closeFirst bool) (*httptest.Server, *countingListener) {
	t.Helper()
	resetEarly(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}))
	cl := &countingListener{Listener: srv.Listener, closeFirst: closeFirst}
	srv.Listener = cl
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, cl
}

func resetEarly(t *testing.T) {
	t.Helper()
	reset := ResetPreconnect
	dial := preconnectDial
	reset()
	t.Cleanup(func() { reset(); preconnectDial = dial })
}

// waitEarly waits for the early dial to finish.
func waitEarly(t *testing.T) {
	t.Helper()
	early.mu.Lock()
	ready := early.ready
	early.mu.Unlock()
	if ready == nil {
		t.Fatal("no early dial started")
	}
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("early dial never finished")
	}
}

// post sends one request through a fresh transport like Client's (its own pool, so no idle
// connection of another test is reused).
func post(t *testing.T, url string) (*http.Response, error) {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = dialBodyConn
	t.Cleanup(tr.CloseIdleConnections)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"secret":"k"}`))
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, err
}

func TestPreconnectTakenByTheFirstRequest(t *testing.T) {
	srv, cl := earlyServer(t, false)
	if !Preconnect(&Options{}, srv.URL+"/v1") {
		t.Fatal("no preconnect to a loopback http URL")
	}
	if Preconnect(&Options{}, srv.URL+"/v1") {
		t.Fatal("a second preconnect started")
	}
	waitEarly(t)
	if _, err := post(t, srv.URL+"/v1/chat/completions"); err != nil {
		t.Fatal(err)
	}
	if _, err := post(t, srv.URL+"/v1/chat/completions"); err != nil {
		t.Fatal(err)
	}
	// The early connection carried the first request; the second transport dialed its own.
	if n := cl.n.Load(); n != 2 {
		t.Fatalf("%d connections accepted, want 2 (the early one taken once)", n)
	}
}

// Nothing is written on the early connection before the request: the server reads nothing
// until the request is sent.
func TestPreconnectWritesNothing(t *testing.T) {
	resetEarly(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !Preconnect(&Options{}, "http://"+ln.Addr().String()+"/v1") {
		t.Fatal("no preconnect")
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	var b [1]byte
	n, err := c.Read(b[:])
	var ne net.Error
	if n != 0 || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read %d bytes (%v) from the early connection before any request", n, err)
	}
}

func TestPreconnectStaleOrClosedOrOtherAddressNotTaken(t *testing.T) {
	t.Run("stale", func(t *testing.T) {
		srv, cl := earlyServer(t, false)
		Preconnect(&Options{}, srv.URL)
		waitEarly(t)
		early.mu.Lock()
		early.at = early.at.Add(-earlyMaxAge - time.Second)
		early.mu.Unlock()
		if _, err := post(t, srv.URL); err != nil {
			t.Fatal(err)
		}
		if n := cl.n.Load(); n != 2 {
			t.Fatalf("%d connections, want 2 (the stale one closed, a new one dialed)", n)
		}
	})
	t.Run("closed by the server", func(t *testing.T) {
		srv, cl := earlyServer(t, true)
		Preconnect(&Options{}, srv.URL)
		waitEarly(t)
		time.Sleep(50 * time.Millisecond) // the server's close arrives
		if _, err := post(t, srv.URL); err != nil {
			t.Fatalf("the request went on the closed early connection: %v", err)
		}
		if n := cl.n.Load(); n != 2 {
			t.Fatalf("%d connections, want 2", n)
		}
	})
	t.Run("another address", func(t *testing.T) {
		srv, cl := earlyServer(t, false)
		other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		defer other.Close()
		Preconnect(&Options{}, srv.URL)
		waitEarly(t)
		if _, err := post(t, other.URL); err != nil {
			t.Fatal(err)
		}
		if _, err := post(t, srv.URL); err != nil {
			t.Fatal(err)
		}
		// The first dial (another address) decided: the early connection was closed, and the
		// request to its own address dialed anew.
		if n := cl.n.Load(); n != 2 {
			t.Fatalf("%d connections to the preconnected server, want 2", n)
		}
		early.mu.Lock()
		defer early.mu.Unlock()
		if early.conn != nil {
			t.Fatal("the early connection is still held")
		}
	})
}

// A failed early dial costs nothing: the transport dials as it does without one, and a user
// sees the same text for an unreachable provider.
func TestPreconnectFailedDial(t *testing.T) {
	t.Run("refused early, reachable later", func(t *testing.T) {
		srv, cl := earlyServer(t, false)
		preconnectDial = func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("connect: connection refused")
		}
		Preconnect(&Options{}, srv.URL)
		waitEarly(t)
		if _, err := post(t, srv.URL); err != nil {
			t.Fatal(err)
		}
		if n := cl.n.Load(); n != 1 {
			t.Fatalf("%d connections, want 1", n)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		url := "http://" + ln.Addr().String() + "/v1"
		ln.Close() // nothing listens: refused
		resetEarly(t)
		_, without := post(t, url)
		resetEarly(t)
		if !Preconnect(&Options{}, url) {
			t.Fatal("no preconnect")
		}
		waitEarly(t)
		_, with := post(t, url)
		if without == nil || with == nil {
			t.Fatalf("errors %v, %v", without, with)
		}
		ctx := context.Background()
		if RequestError(ctx, with) != RequestError(ctx, without) || strings.Replace(with.Error(), url, "", 1) != strings.Replace(without.Error(), url, "", 1) {
			t.Fatalf("with a preconnect: %v; without: %v", with, without)
		}
	})
	t.Run("timeout not waited for twice", func(t *testing.T) {
		srv, cl := earlyServer(t, false)
		preconnectDial = func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}
		}
		Preconnect(&Options{}, srv.URL)
		waitEarly(t)
		_, err := post(t, srv.URL)
		if err == nil || RequestError(context.Background(), err) != ConnectionError {
			t.Fatalf("error %v", err)
		}
		if n := cl.n.Load(); n != 0 {
			t.Fatalf("%d connections after the early dial timed out, want 0", n)
		}
	})
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// A request still dialing early is waited for, not dialed twice.
func TestPreconnectInFlightWaited(t *testing.T) {
	srv, cl := earlyServer(t, false)
	release := make(chan struct{})
	preconnectDial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		<-release
		return bodyDialer.DialContext(ctx, network, addr)
	}
	Preconnect(&Options{}, srv.URL)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		early.mu.Lock()
		started := early.started
		early.mu.Unlock()
		if started {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the early dial never started")
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	var err error
	go func() { defer wg.Done(); _, err = post(t, srv.URL) }()
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if n := cl.n.Load(); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
}

// A proxy that applies to the URL means the transport dials the proxy: no early connection.
// Loopback is never proxied, and NO_PROXY applies.
func TestPreconnectProxy(t *testing.T) {
	for _, c := range []struct {
		proxy, url string
		want       string
	}{
		{"", "https://api.example.com/v1", "api.example.com:443"},
		{"", "http://api.example.com:8080/v1", "api.example.com:8080"},
		{"", "http://[::1]/v1", "[::1]:80"},
		{"http://127.0.0.1:3128", "https://api.example.com/v1", ""},
		{"http://127.0.0.1:3128", "http://127.0.0.1:9/v1", "127.0.0.1:9"},
		{"http://127.0.0.1:3128", "http://localhost:9/v1", "localhost:9"},
		{"", "ftp://api.example.com/v1", ""},
		{"", "https://bücher.example/v1", ""},
	} {
		for _, env := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY", "no_proxy"} {
			if os.Getenv(env) != "" {
				t.Skipf("%s is set", env)
			}
		}
		addr, ok := directAddr(&Options{ProxyURL: c.proxy}, c.url)
		if addr != c.want || ok != (c.want != "") {
			t.Errorf("proxy %q, %s: %q %v, want %q", c.proxy, c.url, addr, ok, c.want)
		}
	}
	// o's own client: none.
	if _, ok := directAddr(&Options{HTTPClient: &http.Client{}}, "http://127.0.0.1:9"); ok {
		t.Error("an early connection for a client of the options' own")
	}
}

// TLS stays the transport's own: over the early TCP connection the handshake, the
// certificate check and ALPN (HTTP/2 here) are those of a connection it dials itself.
func TestPreconnectTLS(t *testing.T) {
	resetEarly(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	}))
	cl := &countingListener{Listener: srv.Listener}
	srv.Listener = cl
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	get := func() string {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = dialBodyConn
		tr.TLSClientConfig = &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
		tr.ForceAttemptHTTP2 = true
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Proto + " " + string(b) + " " + resp.TLS.NegotiatedProtocol
	}
	without := get()
	if !Preconnect(&Options{}, srv.URL) {
		t.Fatal("no preconnect")
	}
	waitEarly(t)
	with := get()
	if with != without || with != "HTTP/2.0 HTTP/2.0 h2" {
		t.Fatalf("with a preconnect %q, without %q", with, without)
	}
	if n := cl.n.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (one each)", n)
	}
	early.mu.Lock()
	taken := early.taken && early.conn == nil
	early.mu.Unlock()
	if !taken {
		t.Fatal("the early connection was not taken")
	}
	// An https URL loads the system roots on the other core.
	select {
	case <-rootsLoading:
	case <-time.After(10 * time.Second):
		t.Fatal("the system roots were not loaded")
	}
}

// An early dial whose goroutine has not run when the request dials is not waited for, and
// does not dial after.
func TestPreconnectNotStartedNotWaited(t *testing.T) {
	srv, cl := earlyServer(t, false)
	var dialed atomic.Int32
	preconnectDial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed.Add(1)
		return bodyDialer.DialContext(ctx, network, addr)
	}
	hold, held := make(chan struct{}), make(chan struct{})
	preconnectHold = func() { <-hold }
	defer func() { preconnectHold = nil }()
	Preconnect(&Options{}, srv.URL)
	if _, err := post(t, srv.URL); err != nil {
		t.Fatal(err)
	}
	early.mu.Lock()
	ready := early.ready
	early.mu.Unlock()
	close(hold) // the goroutine runs now, late
	go func() { <-ready; close(held) }()
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the late goroutine never finished")
	}
	if n, d := cl.n.Load(), dialed.Load(); n != 1 || d != 0 {
		t.Fatalf("%d connections, %d early dials; want 1, 0", n, d)
	}
}
