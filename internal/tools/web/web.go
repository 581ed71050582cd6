// Package web implements web_search and web_fetch over package internal/web, following
// the sandbox's network policy, one file per tool.
package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/web"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	// The web toolset: the seed's web_search (Search1API) and web_fetch (internal/web does the
	// network side), with the seed's texts.
	r.Register("web", "web_search", toolrun.Impl{Execute: webSearch})
	r.Register("web", "web_fetch", toolrun.Impl{Execute: webFetch})
}

// NewClient builds the client of one call: the proxy from <agentDir>/proxy.json or the
// environment. Tests replace it to opt their loopback servers in.
var NewClient = func(s *toolrun.Session) (*web.Client, error) {
	p, err := web.ReadProxy(filepath.Join(s.AgentDir, "proxy.json"), os.Getenv)
	if err != nil {
		return nil, err
	}
	return web.New(web.Options{Proxy: p}), nil
}

// webPermit is the network policy the web tools follow, the one bash runs under (the
// session's sandbox network.mode and allowlist): "allow-all" lets every URL through (the
// SSRF guard still applies), "limited" only hosts the allowlist permits (checked on the
// first URL and every redirect hop), "block" refuses the call before anything is fetched.
// A policy that could not be read refuses too (fail closed). The seed's web tools ignore
// the policy, so a model could read a secret and then fetch https://attacker/?k=… in any
// mode; pigo's refusal names the policy and where it was set.
func webPermit(tool string, s *toolrun.Session) (func(u *url.URL) error, error) {
	if s.SandboxErr != nil {
		return nil, &toolrun.Refusal{Kind: toolrun.RefusedPolicy, Text: tool + " is refused: the sandbox policy could not be read (" + s.SandboxErr.Error() + "); the web tools follow its network.mode."}
	}
	p := s.Sandbox
	where := "the default"
	if o := p.NetModeOrigin; o.File != "" {
		where = o.File
		if o.Line > 0 {
			where = fmt.Sprintf("%s:%d:%d", o.File, o.Line, o.Column)
		}
	}
	switch p.NetMode {
	case sandbox.NetAllowAll:
		return nil, nil
	case sandbox.NetLimited:
		return func(u *url.URL) error {
			port, _ := strconv.Atoi(u.Port())
			if port == 0 {
				port = map[string]int{"https": 443}[strings.ToLower(u.Scheme)]
				if port == 0 {
					port = 80
				}
			}
			if sandbox.AllowlistPermits(p.Allowlist, u.Hostname(), port) {
				return nil
			}
			return &toolrun.Refusal{Kind: toolrun.RefusedPolicy, Text: fmt.Sprintf(
				"%s is refused: %s is not in network.allowlist (network.mode \"limited\", set by %s); the web tools follow the sandbox's network policy as bash does.",
				tool, u.Host, where)}
		}, nil
	}
	mode := p.NetMode
	if mode == "" {
		mode = "unknown"
	}
	return nil, &toolrun.Refusal{Kind: toolrun.RefusedPolicy, Text: fmt.Sprintf(
		"%s is refused: network.mode is %q (set by %s), and the web tools follow the sandbox's network policy as bash does. "+
			"To let it reach a host, set network.mode to \"limited\" with the host in network.allowlist, or to \"allow-all\".",
		tool, mode, where)}
}

// asRefusal is err's refusal, nil when it is not one.
func asRefusal(err error) *toolrun.Refusal {
	var r *toolrun.Refusal
	if errors.As(err, &r) {
		return r
	}
	return nil
}

// webJSON is JSON.stringify(v, null, 2) with JavaScript's string escapes.
func webJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err.Error()
	}
	js, err := llm.JSONStringify(b.Bytes())
	if err != nil {
		return err.Error()
	}
	var out bytes.Buffer
	if err := json.Indent(&out, js, "", "  "); err != nil {
		return string(js)
	}
	return out.String()
}
