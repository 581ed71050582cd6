package sandbox

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// AllowlistError is an invalid network.allowlist entry. Message is the reference text;
// Offset is the byte inside Entry where the problem starts (0 when it is the whole entry).
type AllowlistError struct {
	Entry   string
	Offset  int
	Message string
}

// Error returns the reference message.
func (e *AllowlistError) Error() string { return e.Message }

// ValidateAllowlistEntry checks one network.allowlist entry: "domain", "*.domain", an IPv4
// address, an IPv4 CIDR, or a bracketed IPv6 address or CIDR, each optionally followed by
// ":port". It returns nil or an [*AllowlistError] with the reference text.
//
// Decisions where the reference is silent: an unbracketed IPv6 address is rejected whether or
// not a port follows (the bracket message, with its literal "<host>" and "<port>"
// placeholders, prefixed like every other entry error); a domain whose last label is all
// digits (such as "1.2.3.256") is not a domain and is rejected.
func ValidateAllowlistEntry(entry string) error {
	bad := func(off int, detail string) error {
		msg := fmt.Sprintf("Invalid allowlist entry %q", entry)
		if detail != "" {
			msg += ": " + detail
		}
		return &AllowlistError{Entry: entry, Offset: off, Message: msg}
	}
	const example = `, e.g. "*.example.com"`
	host, port, portOff := entry, "", -1
	if i := strings.Index(entry, "://"); i >= 0 {
		return bad(i, "") // a URL, not a host
	}
	if strings.HasPrefix(entry, "[") {
		end := strings.IndexByte(entry, ']')
		if end < 0 {
			return bad(0, "")
		}
		inner := entry[1:end]
		if !isIPv6(inner) {
			return bad(1, "")
		}
		rest := entry[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return bad(end+1, "")
			}
			if err := checkPort(entry, rest[1:], end+2); err != nil {
				return err
			}
		}
		return nil
	}
	switch strings.Count(entry, ":") {
	case 0:
	case 1:
		i := strings.IndexByte(entry, ':')
		host, port, portOff = entry[:i], entry[i+1:], i+1
	default:
		return bad(0, `IPv6 addresses must be wrapped in brackets, e.g. "[<host>]:<port>"`)
	}
	if portOff >= 0 {
		if err := checkPort(entry, port, portOff); err != nil {
			return err
		}
	}
	if star := strings.IndexByte(host, '*'); star >= 0 {
		switch {
		case host == "*" || host == "*.":
			return bad(0, `"*" must be followed by a domain`+example)
		case strings.HasPrefix(host, "*."):
			rest := host[2:]
			if i := strings.IndexByte(rest, '*'); i >= 0 {
				return bad(2+i, `"*" is only allowed as the leftmost label`+example)
			}
			if looksLikeIPv4(rest) {
				return bad(0, `"*" applies to domains only, use a CIDR entry for IP ranges`)
			}
			if off, ok := checkDomain(rest); !ok {
				return bad(2+off, "")
			}
			return nil
		default:
			first := host
			if i := strings.IndexByte(host, '.'); i >= 0 {
				first = host[:i]
			}
			if strings.Contains(first, "*") {
				return bad(star, `"*" must occupy the whole leftmost label`+example)
			}
			return bad(star, `"*" is only allowed as the leftmost label`+example)
		}
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		return nil
	}
	if strings.Contains(host, "/") {
		if pfx, err := netip.ParsePrefix(host); err == nil && pfx.Addr().Is4() {
			return nil
		}
		return bad(0, "")
	}
	if off, ok := checkDomain(host); !ok {
		return bad(off, "")
	}
	return nil
}

func checkPort(entry, port string, off int) error {
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || strings.ContainsAny(port, "+-") {
		return &AllowlistError{Entry: entry, Offset: off, Message: fmt.Sprintf("Invalid port %q", port)}
	}
	return nil
}

func isIPv6(s string) bool {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Is6() && a.Zone() == ""
	}
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Addr().Is6()
	}
	return false
}

// looksLikeIPv4 is true for an IPv4 address or CIDR, or anything made of digits, dots and a
// slash (so "*.1.2.3.999" gets the IP message, not a generic one).
func looksLikeIPv4(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' && r != '/' {
			return false
		}
	}
	return true
}

// checkDomain validates dot-separated labels of 1–63 characters [A-Za-z0-9-] without an edge
// hyphen, at most 253 bytes, with a last label that is not all digits. It returns the offset
// of the first bad label.
func checkDomain(d string) (int, bool) {
	if d == "" || len(d) > 253 {
		return 0, false
	}
	off := 0
	labels := strings.Split(d, ".")
	for i, l := range labels {
		if len(l) < 1 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return off, false
		}
		digits := true
		for j := 0; j < len(l); j++ {
			c := l[j]
			switch {
			case c >= '0' && c <= '9':
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
				digits = false
			default:
				return off + j, false
			}
		}
		if i == len(labels)-1 && digits {
			return off, false
		}
		off += len(l) + 1
	}
	return 0, true
}

// AllowlistPermits reports whether the network.allowlist entries let a connection to host
// (a name, or an IP address literal without brackets) on port through, with the reference
// semantics: a domain entry matches that name exactly (case-insensitively), "*.domain"
// matches its subdomains and not the domain itself, an IP or CIDR entry matches an address
// literal (a name is never matched by an IP entry: limited mode answers names it does not
// allow with a DNS failure), and an entry with ":port" matches that port only. Invalid
// entries match nothing. pigo's own clients (the web tools) apply it in process; bash gets
// it from the network stack.
func AllowlistPermits(entries []string, host string, port int) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	addr, addrErr := netip.ParseAddr(host)
	for _, e := range entries {
		if ValidateAllowlistEntry(e) != nil {
			continue
		}
		h, p := e, ""
		if strings.HasPrefix(e, "[") {
			end := strings.IndexByte(e, ']')
			h, p = e[1:end], strings.TrimPrefix(e[end+1:], ":")
		} else if i := strings.IndexByte(e, ':'); i >= 0 {
			h, p = e[:i], e[i+1:]
		}
		if p != "" {
			if n, _ := strconv.Atoi(p); n != port {
				continue
			}
		}
		h = strings.ToLower(h)
		switch {
		case addrErr == nil:
			if a, err := netip.ParseAddr(h); err == nil && (a == addr || a == addr.Unmap()) {
				return true
			}
			if pfx, err := netip.ParsePrefix(h); err == nil && pfx.Contains(addr.Unmap()) {
				return true
			}
		case strings.HasPrefix(h, "*."):
			if strings.HasSuffix(host, h[1:]) && len(host) > len(h)-1 {
				return true
			}
		default:
			if host == h {
				return true
			}
		}
	}
	return false
}
