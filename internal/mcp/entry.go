package mcp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// EntryFlags are `pigo mcp add`'s options for one server: an HTTP server (URL) or a stdio one
// (Command). Has reports whether a flag was given (its value may be empty).
type EntryFlags struct {
	URL     string
	Command []string
	// Env and Headers are KEY=VALUE, in the order given.
	Env, Headers []string
	Has          func(flag string) bool
	Value        func(flag string) string
}

// Entry is the mcp.json entry `pigo mcp add` writes, in pi's key order; an error is a usage
// error, its text the one to print.
func Entry(f EntryFlags) ([]byte, error) {
	httpOnly := []string{"--header", "--bearer-token-env-var", "--oauth-client-id", "--oauth-client-secret",
		"--oauth-callback-port", "--oauth-client-name", "--oauth-client-registration"}
	stdioOnly := []string{"--env", "--cwd"}
	wrong, kind := stdioOnly, "stdio servers"
	if f.URL == "" {
		wrong, kind = httpOnly, "HTTP servers (--url)"
	}
	for _, o := range wrong {
		if f.Has(o) {
			return nil, fmt.Errorf("%s only applies to %s.", o, kind)
		}
	}
	var members [][2]string
	add := func(k string, v []byte) { members = append(members, [2]string{k, string(v)}) }
	if f.URL != "" {
		add("url", mustMarshal(f.URL))
		headers, order, err := pairs("header", f.Headers)
		if err != nil {
			return nil, err
		}
		if v := f.Value("--bearer-token-env-var"); v != "" {
			if _, ok := headers["Authorization"]; !ok {
				order = append(order, "Authorization")
			}
			headers["Authorization"] = "Bearer ${" + v + "}"
		}
		if len(order) > 0 {
			add("headers", orderedObject(headers, order))
		}
		var oauth [][2]string
		for _, o := range [][2]string{{"--oauth-client-id", "clientId"}, {"--oauth-client-secret", "clientSecret"},
			{"--oauth-callback-port", "callbackPort"}, {"--oauth-client-name", "clientName"}, {"--oauth-client-registration", "clientRegistration"}} {
			if !f.Has(o[0]) {
				continue
			}
			v := f.Value(o[0])
			val := mustMarshal(v)
			if o[1] == "callbackPort" {
				n, err := strconv.Atoi(v)
				if err != nil {
					return nil, fmt.Errorf("--oauth-callback-port must be a port number, got %q", v)
				}
				val = mustMarshal(n)
			}
			oauth = append(oauth, [2]string{o[1], string(val)})
		}
		if len(oauth) > 0 {
			add("oauth", object(oauth))
		}
	} else {
		add("command", mustMarshal(f.Command[0]))
		if len(f.Command) > 1 {
			add("args", mustMarshal(f.Command[1:]))
		}
		env, order, err := pairs("env", f.Env)
		if err != nil {
			return nil, err
		}
		if len(order) > 0 {
			add("env", orderedObject(env, order))
		}
		if f.Has("--cwd") {
			add("cwd", mustMarshal(f.Value("--cwd")))
		}
	}
	if f.Has("--exposure") {
		add("exposure", mustMarshal(f.Value("--exposure")))
	}
	if f.Has("--description") {
		add("description", mustMarshal(f.Value("--description")))
	}
	return object(members), nil
}

// NeedsSignInHint reports whether an added HTTP server may need `pigo mcp login`: it sends no
// Authorization header of its own.
func (f EntryFlags) NeedsSignInHint() bool {
	if f.URL == "" || f.Value("--bearer-token-env-var") != "" {
		return false
	}
	for _, h := range f.Headers {
		k, _, _ := strings.Cut(h, "=")
		if strings.EqualFold(k, "authorization") {
			return false
		}
	}
	return true
}

// PathKey writes a server name as a config path key (names are [A-Za-z0-9_-]; anything else
// is quoted so the path stays one key).
func PathKey(name string) string {
	if ValidServerName(name) {
		return name
	}
	return "[" + strconv.Quote(name) + "]"
}

// pairs parses repeated KEY=VALUE options.
func pairs(option string, list []string) (map[string]string, []string, error) {
	out := map[string]string{}
	var order []string
	for _, p := range list {
		i := strings.Index(p, "=")
		if i <= 0 {
			return nil, nil, fmt.Errorf("--%s expects KEY=VALUE, got %q.", option, p)
		}
		if _, ok := out[p[:i]]; !ok {
			order = append(order, p[:i])
		}
		out[p[:i]] = p[i+1:]
	}
	return out, order, nil
}

// orderedObject renders keys in order as a JSON object.
func orderedObject(m map[string]string, order []string) []byte {
	kv := make([][2]string, len(order))
	for i, k := range order {
		kv[i] = [2]string{k, string(mustMarshal(m[k]))}
	}
	return object(kv)
}

// object renders members (key, JSON value) in order as a JSON object.
func object(members [][2]string) []byte {
	b := []byte{'{'}
	for i, kv := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, mustMarshal(kv[0])...), ':'), kv[1]...)
	}
	return append(b, '}')
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
