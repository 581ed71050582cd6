package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
)

// ProxySettings is the effective egress proxy: proxy.json's fields, each falling back to the
// environment.
type ProxySettings struct {
	Proxy   string
	NoProxy string
}

var (
	proxyEnv   = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"}
	noProxyEnv = []string{"NO_PROXY", "no_proxy"}
)

func firstEnv(names []string, getenv func(string) string) string {
	for _, n := range names {
		if v := strings.TrimSpace(getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// ReadProxy reads path (<agentDir>/proxy.json) as the seed's readProxySettings does: a
// missing file is no configuration; an unreadable file, bad JSON, a field that is not a
// string or a proxy that is not an http(s) URL is an error `<path>: <msg>`. Fields the file
// leaves out fall back to HTTPS_PROXY, https_proxy, HTTP_PROXY, http_proxy, ALL_PROXY,
// all_proxy (the first non-empty) and NO_PROXY, no_proxy.
func ReadProxy(path string, getenv func(string) string) (ProxySettings, error) {
	var file ProxySettings
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return ProxySettings{}, fmt.Errorf("%s: %v", path, err)
	default:
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			return ProxySettings{}, fmt.Errorf("%s: %v", path, err)
		}
		for _, f := range []struct {
			key string
			dst *string
		}{{"proxy", &file.Proxy}, {"noProxy", &file.NoProxy}} {
			x, ok := v[f.key]
			if !ok {
				continue
			}
			s, ok := x.(string)
			if !ok {
				return ProxySettings{}, fmt.Errorf("%s: /%s: Expected string", path, f.key)
			}
			*f.dst = strings.TrimSpace(s)
		}
	}
	s := ProxySettings{Proxy: file.Proxy, NoProxy: file.NoProxy}
	if s.Proxy == "" {
		s.Proxy = firstEnv(proxyEnv, getenv)
	}
	if s.NoProxy == "" {
		s.NoProxy = firstEnv(noProxyEnv, getenv)
	}
	if s.Proxy != "" {
		u, err := url.Parse(s.Proxy)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return ProxySettings{}, errors.New("invalid proxy URL: " + s.Proxy)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return ProxySettings{}, fmt.Errorf("unsupported proxy protocol: %s (expected http:// or https://)", s.Proxy)
		}
	}
	return s, nil
}
