package sandbox

import (
	"errors"
	"testing"
)

func TestValidateAllowlistEntry(t *testing.T) {
	const ex = `, e.g. "*.example.com"`
	for _, tc := range []struct {
		entry  string
		msg    string // "" = valid
		offset int
	}{
		{"example.com", "", 0},
		{"*.example.com", "", 0},
		{"a.b.c.example.co.uk:8443", "", 0},
		{"localhost", "", 0},
		{"1.2.3.4", "", 0},
		{"1.2.3.4:80", "", 0},
		{"10.0.0.0/8", "", 0},
		{"10.0.0.0/8:443", "", 0},
		{"[::1]", "", 0},
		{"[::1]:80", "", 0},
		{"[2001:db8::/32]:443", "", 0},
		{"x-y.example", "", 0},
		{"*", `Invalid allowlist entry "*": "*" must be followed by a domain` + ex, 0},
		{"*.", `Invalid allowlist entry "*.": "*" must be followed by a domain` + ex, 0},
		{"*example.com", `Invalid allowlist entry "*example.com": "*" must occupy the whole leftmost label` + ex, 0},
		{"foo*.example.com", `Invalid allowlist entry "foo*.example.com": "*" must occupy the whole leftmost label` + ex, 3},
		{"a.*.example.com", `Invalid allowlist entry "a.*.example.com": "*" is only allowed as the leftmost label` + ex, 2},
		{"*.a.*.com", `Invalid allowlist entry "*.a.*.com": "*" is only allowed as the leftmost label` + ex, 4},
		{"*.1.2.3.4", `Invalid allowlist entry "*.1.2.3.4": "*" applies to domains only, use a CIDR entry for IP ranges`, 0},
		{"*.10.0.0.0/8", `Invalid allowlist entry "*.10.0.0.0/8": "*" applies to domains only, use a CIDR entry for IP ranges`, 0},
		{"2001:db8::1:443", `Invalid allowlist entry "2001:db8::1:443": IPv6 addresses must be wrapped in brackets, e.g. "[<host>]:<port>"`, 0},
		{"::1", `Invalid allowlist entry "::1": IPv6 addresses must be wrapped in brackets, e.g. "[<host>]:<port>"`, 0},
		{"example.com:0", `Invalid port "0"`, 12},
		{"example.com:65536", `Invalid port "65536"`, 12},
		{"example.com:http", `Invalid port "http"`, 12},
		{"example.com:", `Invalid port ""`, 12},
		{"[::1]:+80", `Invalid port "+80"`, 6},
		{"-bad.com", `Invalid allowlist entry "-bad.com"`, 0},
		{"bad-.com", `Invalid allowlist entry "bad-.com"`, 0},
		{"a..com", `Invalid allowlist entry "a..com"`, 2},
		{"under_score.com", `Invalid allowlist entry "under_score.com"`, 5},
		{"", `Invalid allowlist entry ""`, 0},
		{"http://example.com", `Invalid allowlist entry "http://example.com"`, 4},
		{"1.2.3.256", `Invalid allowlist entry "1.2.3.256"`, 6},
		{"10.0.0.0/33", `Invalid allowlist entry "10.0.0.0/33"`, 0},
		{"[example.com]", `Invalid allowlist entry "[example.com]"`, 1},
		{"[::1", `Invalid allowlist entry "[::1"`, 0},
		{"[::1]x", `Invalid allowlist entry "[::1]x"`, 5},
		{"ex ample.com", `Invalid allowlist entry "ex ample.com"`, 2},
		{"exämple.com", `Invalid allowlist entry "exämple.com"`, 2},
	} {
		err := ValidateAllowlistEntry(tc.entry)
		if tc.msg == "" {
			if err != nil {
				t.Errorf("%q: unexpected %v", tc.entry, err)
			}
			continue
		}
		var ae *AllowlistError
		if !errors.As(err, &ae) || ae.Message != tc.msg || ae.Offset != tc.offset {
			t.Errorf("%q: got %#v, want %q at %d", tc.entry, err, tc.msg, tc.offset)
		}
	}
}

func FuzzValidateAllowlistEntry(f *testing.F) {
	for _, s := range []string{"example.com", "*.a.b:80", "[::1]:1", "1.2.3.4/8", "*", "a*b", "::1:2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateAllowlistEntry(s)
		var ae *AllowlistError
		if err != nil && (!errors.As(err, &ae) || ae.Offset < 0 || ae.Offset > len(s)) {
			t.Fatalf("%q: %v", s, err)
		}
	})
}

func TestAllowlistPermits(t *testing.T) {
	list := []string{"github.com", "*.githubusercontent.com", "10.0.0.0/8", "1.2.3.4:8443", "[2001:db8::1]", "bad entry"}
	for _, c := range []struct {
		host string
		port int
		want bool
	}{
		{"github.com", 443, true},
		{"GitHub.com.", 443, true},
		{"api.github.com", 443, false}, // exact only
		{"raw.githubusercontent.com", 443, true},
		{"githubusercontent.com", 443, false}, // "*." is subdomains only
		{"evilgithubusercontent.com", 443, false},
		{"10.1.2.3", 80, true},
		{"11.1.2.3", 80, false},
		{"1.2.3.4", 8443, true},
		{"1.2.3.4", 443, false},
		{"2001:db8::1", 443, true},
		{"[2001:db8::1]", 443, true},
		{"attacker.example", 443, false},
		{"bad entry", 443, false},
	} {
		if got := AllowlistPermits(list, c.host, c.port); got != c.want {
			t.Errorf("%s:%d = %v, want %v", c.host, c.port, got, c.want)
		}
	}
	if AllowlistPermits(nil, "github.com", 443) {
		t.Error("an empty allowlist lets everything through")
	}
}
