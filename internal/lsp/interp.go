package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// Env is a process environment by variable name. It is passed explicitly
// (rather than read from os.Environ) so planning is reproducible in tests.
type Env map[string]string

// OSEnv returns the current process environment.
func OSEnv() Env {
	env := Env{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			env[k] = v
		}
	}
	return env
}

// with returns a copy of e overlaid with extra.
func (e Env) with(extra map[string]string) Env {
	out := make(Env, len(e)+len(extra))
	for k, v := range e {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// List returns the environment as sorted "K=V" strings, the form exec wants.
func (e Env) List() []string {
	out := make([]string, 0, len(e))
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// expandPlaceholders replaces every {root} and {cwd}.
func expandPlaceholders(s, root, cwd string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	return strings.NewReplacer("{root}", root, "{cwd}", cwd).Replace(s)
}

var varPattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`) }}

// expandVars replaces ${VAR} and ${VAR:-default}. An unset or empty
// variable gives the default, or "" without one.
func expandVars(s string, env Env) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return varPattern.Get().ReplaceAllStringFunc(s, func(m string) string {
		sub := varPattern.Get().FindStringSubmatch(m)
		if v := env[sub[1]]; v != "" {
			return v
		}
		return sub[2]
	})
}

// interpolateDeep applies expandVars to every string inside v (objects and
// arrays recursively); other values are returned unchanged.
func interpolateDeep(v any, env Env) any {
	switch t := v.(type) {
	case string:
		return expandVars(t, env)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[k] = interpolateDeep(val, env)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = interpolateDeep(val, env)
		}
		return out
	}
	return v
}

// deepMerge merges over into base: objects merge key by key recursively,
// anything else in over replaces. Neither input is modified.
func deepMerge(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if bo, ok := out[k].(map[string]any); ok {
			if oo, ok := v.(map[string]any); ok {
				out[k] = deepMerge(bo, oo)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// runCommand runs argv directly (no shell) in dir with env and returns its
// stdout. A non-zero exit or a failure to start is an error naming what.
func runCommand(ctx context.Context, what string, argv []string, dir string, env Env, timeout time.Duration) ([]byte, error) {
	joined := strings.Join(argv, " ")
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s: empty argv", what)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if !strings.ContainsAny(argv[0], `/\`) {
		// Resolve through the given PATH, not pigo's own.
		if p, ok := lookPath(argv[0], env["PATH"]); ok {
			cmd.Path = p
		} else {
			return nil, fmt.Errorf("%s failed (%s): %q not found in PATH", what, joined, argv[0])
		}
	}
	cmd.Dir = dir
	cmd.Env = env.List()
	cmd.WaitDelay = time.Second
	setProcessGroup(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("%s failed (%s): timed out after %s", what, joined, timeout)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() >= 0 {
			return nil, fmt.Errorf("%s failed (%s): exit code %d: %s", what, joined, ee.ExitCode(), strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("%s failed (%s): %v", what, joined, err)
	}
	return stdout.Bytes(), nil
}

// resolveEnv resolves the configured variables of s: strings get {root} and
// {cwd} then ${VAR} from the process env; {sh: argv} values run argv in
// spawnDir and take its trimmed stdout.
func resolveEnv(ctx context.Context, s *Server, root, cwd, spawnDir string, env Env, timeout time.Duration) (map[string]string, error) {
	out := make(map[string]string, len(s.Env))
	for _, v := range s.Env {
		if v.Sh == nil {
			out[v.Name] = expandVars(expandPlaceholders(v.Value, root, cwd), env)
			continue
		}
		stdout, err := runCommand(ctx, "env command", v.Sh, spawnDir, env, timeout)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", v.Name, err)
		}
		val := strings.TrimSpace(string(stdout))
		if val == "" {
			return nil, fmt.Errorf("env %s: env command (%s) produced empty output", v.Name, strings.Join(v.Sh, " "))
		}
		out[v.Name] = val
	}
	return out, nil
}

// resolveInitOptions interpolates the static initializationOptions with env
// (the process env overlaid with the resolved server env) and deep-merges
// the JSON object printed by initializationOptionsCommand over them.
func resolveInitOptions(ctx context.Context, s *Server, root, cwd string, env Env, timeout time.Duration) (map[string]any, error) {
	var opts map[string]any
	if s.InitializationOptions != nil {
		opts = interpolateDeep(s.InitializationOptions, env).(map[string]any)
	}
	if len(s.InitializationOptionsCommand) == 0 {
		return opts, nil
	}
	argv := make([]string, len(s.InitializationOptionsCommand))
	for i, a := range s.InitializationOptionsCommand {
		argv[i] = expandVars(expandPlaceholders(a, root, cwd), env)
	}
	const what = "initializationOptionsCommand"
	stdout, err := runCommand(ctx, what, argv, root, env, timeout)
	if err != nil {
		return nil, err
	}
	joined := strings.Join(argv, " ")
	if len(bytes.TrimSpace(stdout)) == 0 {
		return nil, fmt.Errorf("%s (%s) produced empty output", what, joined)
	}
	var got any
	dec := json.NewDecoder(bytes.NewReader(stdout))
	if err := dec.Decode(&got); err != nil || dec.More() {
		if err == nil {
			err = errors.New("extra data after the value")
		}
		return nil, fmt.Errorf("%s (%s) did not print a JSON object: %v", what, joined, err)
	}
	obj, ok := got.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s (%s) did not print a JSON object: got %s", what, joined, typeName(got))
	}
	if opts == nil {
		return obj, nil
	}
	return deepMerge(opts, obj), nil
}
