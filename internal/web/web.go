// Package web is the network side of the web toolset: the Search1API client behind
// web_search and the page fetcher behind web_fetch (readability main content as Markdown, or
// the raw body saved to a file), with the seed's limits and texts.
//
// Every request goes through one [Client], whose transport is the SSRF guard: the host is
// resolved first and refused when any of its addresses is loopback, private, link-local,
// shared, multicast or otherwise reserved; the same check runs again on every redirect hop
// (at most 5, followed by hand) and once more on the address the dialer actually connects
// to (a net.Dialer Control hook), so a name that resolves to a public address for the check
// and to 127.0.0.1 for the connection (DNS rebinding) is still refused. The seed checks only
// the names; pigo also checks the dialled address and refuses a few more reserved ranges
// (documentation, NAT64, 6to4 of a private address, IPv6 multicast).
//
// The only way to reach a loopback address is [Options.Allow], set by tests to their own
// server's address and port; nothing a model sends or a config file holds can set it. A
// configured proxy (proxy.json, else the proxy environment variables) is dialled without the
// check: the user chose it, and it is usually on loopback.
package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// Options configures a Client.
type Options struct {
	// Proxy is the effective proxy settings (see ReadProxy); zero for a direct connection.
	Proxy ProxySettings
	// Allow lists address:port pairs that pass the guard although they are blocked: tests
	// opt their loopback servers in here. Never filled from configuration.
	Allow []netip.AddrPort
	// SearchURL overrides the Search1API endpoint (tests).
	SearchURL string
	// Lookup overrides name resolution for the pre-connection check (tests: a name that
	// resolves differently for the check and for the dialer).
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// Permit, when set, decides every URL before it is requested (the first and each
	// redirect hop, the Search1API endpoint): the session's network policy. Its error is the
	// call's result.
	Permit func(u *url.URL) error
}

// SetPermit sets [Options.Permit] on a client already made.
func (c *Client) SetPermit(fn func(u *url.URL) error) { c.opts.Permit = fn }

// Client makes the web tools' requests.
type Client struct {
	opts      Options
	http      *http.Client
	proxyAddr string // host:port of the configured proxy, dialled unchecked
}

// New returns a client with the SSRF-guarded transport.
func New(opts Options) *Client {
	c := &Client{opts: opts}
	tr := &http.Transport{
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DialContext:           c.dial,
	}
	if opts.Proxy.Proxy != "" {
		pc := &httpproxy.Config{HTTPProxy: opts.Proxy.Proxy, HTTPSProxy: opts.Proxy.Proxy, NoProxy: opts.Proxy.NoProxy}
		fn := pc.ProxyFunc()
		tr.Proxy = func(r *http.Request) (*url.URL, error) { return fn(r.URL) }
		if u, err := url.Parse(opts.Proxy.Proxy); err == nil {
			port := u.Port()
			if port == "" {
				port = map[string]string{"https": "443"}[u.Scheme]
				if port == "" {
					port = "80"
				}
			}
			c.proxyAddr = net.JoinHostPort(u.Hostname(), port)
		}
	}
	c.http = &http.Client{
		Transport: tr,
		// Redirects are followed by hand so each hop is checked.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

// blockedError is the guard's refusal.
type blockedError struct{ host, addr string }

func (e *blockedError) Error() string {
	return "拒绝访问内网地址 " + e.host + " (" + e.addr + ")"
}

// dial connects with the address check on the socket's actual peer.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if addr != c.proxyAddr || c.proxyAddr == "" {
		host, _, _ := net.SplitHostPort(addr)
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &blockedError{host, address}
			}
			if c.blocked(ap) {
				return &blockedError{host, ap.Addr().String()}
			}
			return nil
		}
	}
	return d.DialContext(ctx, network, addr)
}

// blocked reports whether the guard refuses ap.
func (c *Client) blocked(ap netip.AddrPort) bool {
	for _, a := range c.opts.Allow {
		if a.Addr().Unmap() == ap.Addr().Unmap() && a.Port() == ap.Port() {
			return false
		}
	}
	return Blocked(ap.Addr())
}

// checkHost resolves host (as the URL names it) and refuses it when any address is blocked:
// the seed's assertPublicHostname.
func (c *Client) checkHost(ctx context.Context, u *url.URL) error {
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[u.Scheme]
		if port == "" {
			port = "80"
		}
	}
	p, _ := strconv.ParseUint(port, 10, 16)
	shown := host
	if strings.Contains(host, ":") {
		shown = "[" + host + "]" // the URL's hostname keeps IPv6 brackets
	}
	var addrs []netip.Addr
	var err error
	if a, perr := netip.ParseAddr(host); perr == nil {
		addrs = []netip.Addr{a}
	} else if c.opts.Lookup != nil {
		addrs, err = c.opts.Lookup(ctx, host)
	} else {
		addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	if err != nil {
		var de *net.DNSError
		msg := err.Error()
		if errors.As(err, &de) && de.IsNotFound {
			msg = "getaddrinfo ENOTFOUND " + host
		}
		return fmt.Errorf("域名解析失败 %s: %s", shown, msg)
	}
	for _, a := range addrs {
		if c.blocked(netip.AddrPortFrom(a, uint16(p))) {
			return &blockedError{shown, a.Unmap().String()}
		}
	}
	return nil
}

// Blocked reports whether a is an address web requests must not reach: the seed's list
// (0/8, 10/8, 127/8, 169.254/16, 172.16/12, 192.168/16, 100.64/10, 198.18/15, 192.0.0/24,
// 224/3; ::, ::1, fc00::/7, fe80::/10, IPv4-mapped) plus the documentation ranges,
// IPv6 multicast and the IPv6 forms that embed an IPv4 address (NAT64, 6to4, compatible).
func Blocked(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is4() {
		return blocked4(a.As4())
	}
	if !a.Is6() || a.Zone() != "" {
		return true
	}
	b := a.As16()
	switch {
	case a.IsUnspecified(), a.IsLoopback(), a.IsMulticast():
		return true
	case b[0]&0xfe == 0xfc: // fc00::/7
		return true
	case b[0] == 0xfe && b[1]&0xc0 == 0x80: // fe80::/10
		return true
	case b[0] == 0xfe && b[1]&0xc0 == 0xc0: // fec0::/10 site-local (deprecated)
		return true
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8: // 2001:db8::/32
		return true
	case b[0] == 0x20 && b[1] == 0x02: // 6to4: the embedded IPv4
		return blocked4([4]byte{b[2], b[3], b[4], b[5]})
	case b == [16]byte{0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0, b[12], b[13], b[14], b[15]}: // 64:ff9b::/96
		return blocked4([4]byte{b[12], b[13], b[14], b[15]})
	case b == [16]byte{12: b[12], 13: b[13], 14: b[14], 15: b[15]}: // ::a.b.c.d
		return true
	}
	return false
}

func blocked4(p [4]byte) bool {
	a, b, c := p[0], p[1], p[2]
	switch {
	case a == 0, a == 10, a == 127:
		return true
	case a == 169 && b == 254:
		return true
	case a == 172 && b >= 16 && b <= 31:
		return true
	case a == 192 && b == 168:
		return true
	case a == 100 && b >= 64 && b <= 127:
		return true
	case a == 198 && (b == 18 || b == 19):
		return true
	case a == 192 && b == 0 && (c == 0 || c == 2):
		return true
	case a == 198 && b == 51 && c == 100, a == 203 && b == 0 && c == 113:
		return true
	}
	return a >= 224
}
