package auth

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/lazy"
)

var (
	envNameRe       = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) }}
	envNamePrefixRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`) }}
	commandCache    sync.Map
)

// Lookup reads name from env (a credential's own environment) before the process environment;
// an empty value counts as unset, as pi's `env?.[name] || process.env[name]`.
func Lookup(name string, env map[string]string) string {
	if v := env[name]; v != "" {
		return v
	}
	return os.Getenv(name)
}

// ResolveValue resolves a configured secret as pi does (auth.json keys, models.json apiKey and
// header values): "!cmd" runs cmd with sh (10 s limit, stdout trimmed, the result cached for
// the process, failures included); anything else is a template where $NAME and ${NAME} are
// read from env then the process environment, "$$" is "$" and "$!" is "!". ok is false when a
// variable is unset or the command fails or prints nothing; missing lists the unset variables.
func ResolveValue(s string, env map[string]string) (value string, ok bool, missing []string) {
	if strings.HasPrefix(s, "!") {
		if v, hit := commandCache.Load(s); hit {
			r := v.(string)
			return r, r != "", nil
		}
		r := runCommand(s[1:])
		commandCache.Store(s, r)
		return r, r != "", nil
	}
	var b strings.Builder
	ok = true
	for i := 0; i < len(s); {
		d := strings.IndexByte(s[i:], '$')
		if d < 0 {
			b.WriteString(s[i:])
			break
		}
		d += i
		b.WriteString(s[i:d])
		if d+1 < len(s) && (s[d+1] == '$' || s[d+1] == '!') {
			b.WriteByte(s[d+1])
			i = d + 2
			continue
		}
		if d+1 < len(s) && s[d+1] == '{' {
			end := strings.IndexByte(s[d+2:], '}')
			if end < 0 {
				b.WriteByte('$')
				i = d + 1
				continue
			}
			name := s[d+2 : d+2+end]
			if envNameRe.Get().MatchString(name) {
				if v := Lookup(name, env); v != "" {
					b.WriteString(v)
				} else {
					ok = false
					missing = appendOnce(missing, name)
				}
			} else {
				b.WriteString(s[d : d+3+end])
			}
			i = d + 3 + end
			continue
		}
		if name := envNamePrefixRe.Get().FindString(s[d+1:]); name != "" {
			if v := Lookup(name, env); v != "" {
				b.WriteString(v)
			} else {
				ok = false
				missing = appendOnce(missing, name)
			}
			i = d + 1 + len(name)
			continue
		}
		b.WriteByte('$')
		i = d + 1
	}
	if !ok {
		return "", false, missing
	}
	return b.String(), true, nil
}

// ValueVariables lists the environment variables a template value reads (none for a command).
func ValueVariables(s string) []string {
	if strings.HasPrefix(s, "!") {
		return nil
	}
	var names []string
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		if s[i+1] == '$' || s[i+1] == '!' {
			i++
			continue
		}
		rest := s[i+1:]
		if rest[0] == '{' {
			if end := strings.IndexByte(rest, '}'); end > 0 && envNameRe.Get().MatchString(rest[1:end]) {
				names = appendOnce(names, rest[1:end])
			}
			continue
		}
		if n := envNamePrefixRe.Get().FindString(rest); n != "" {
			names = appendOnce(names, n)
		}
	}
	return names
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func runCommand(cmd string) string {
	c := exec.Command("sh", "-c", cmd)
	c.Stdin = nil
	c.Stderr = nil
	done := make(chan struct{})
	var out []byte
	go func() {
		out, _ = c.Output()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		if c.Process != nil {
			_ = c.Process.Kill()
		}
		<-done
		return ""
	}
	if c.ProcessState == nil || !c.ProcessState.Success() {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ResolveValueOrError is pi's resolveConfigValueOrThrow, with its texts (which name the
// command or the variables, never a value).
func ResolveValueOrError(s, description string, env map[string]string) (string, error) {
	v, ok, missing := ResolveValue(s, env)
	if ok {
		return v, nil
	}
	switch {
	case strings.HasPrefix(s, "!"):
		return "", fmt.Errorf("Failed to resolve %s from shell command: %s", description, s[1:])
	case len(missing) == 1:
		return "", fmt.Errorf("Failed to resolve %s from environment variable: %s", description, missing[0])
	case len(missing) > 1:
		return "", fmt.Errorf("Failed to resolve %s from environment variables: %s", description, strings.Join(missing, ", "))
	}
	return "", fmt.Errorf("Failed to resolve %s", description)
}
