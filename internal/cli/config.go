package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonedit"
)

var (
	scopeFlag  = flag{names: []string{"--scope"}, value: true, help: "global or project (default: project when DIR/.pi/ exists and is trusted, else global)"}
	dryRunFlag = flag{names: []string{"--dry-run"}, help: "print the unified diff and write nothing"}
)

var configCmd = command{
	name:    "config",
	summary: "show, edit, blame and migrate the JSON config files",
	usage:   "config path|get|set|unset|add|blame|migrate ...",
	sub: []*command{
		{name: "path", summary: "the files, global and project, and which exist", usage: "config path [FILE]", run: runConfigPath},
		{name: "get", summary: "the effective (merged) value as JSON; --scope for one layer", usage: "config get FILE [KEY] [--scope global|project]",
			flags: []*flag{&scopeFlag}, run: runConfigGet},
		{name: "set", summary: "set KEY to VALUE (JSON, or a bare string)", usage: "config set FILE KEY VALUE [--scope global|project] [--dry-run]",
			flags: []*flag{&scopeFlag, &dryRunFlag}, run: runConfigSet},
		{name: "unset", summary: "remove keys or array elements", usage: "config unset FILE KEY... [--scope global|project] [--dry-run]",
			flags: []*flag{&scopeFlag, &dryRunFlag}, run: runConfigUnset},
		{name: "add", summary: "append values to the array at KEY", usage: "config add FILE KEY VALUE... [--scope global|project] [--dry-run]",
			flags: []*flag{&scopeFlag, &dryRunFlag}, run: runConfigAdd},
		{name: "blame", summary: "each effective leaf with the file, line and merge rule that set it", usage: "config blame FILE [KEY]", run: runConfigBlame},
		{name: "migrate", summary: "rewrite the seed's flat bwrap.json shape into sandbox.json", usage: "config migrate sandbox [--scope global|project] [--dry-run] [--remove-old]",
			flags: []*flag{&scopeFlag, &dryRunFlag, {names: []string{"--remove-old"}, help: "remove bwrap.json once sandbox.json is written"}}, run: runConfigMigrate},
	},
}

// configKind parses the FILE argument.
func (c *CLI) configKind(cmd, s string) (config.Kind, bool) {
	k, ok := config.ParseKind(s)
	if !ok || !config.IsEditable(k) {
		var names []string
		for _, k := range config.EditableKinds {
			names = append(names, string(k))
		}
		fmt.Fprintf(c.Stderr, "pigo %s: unknown FILE %q (one of %s)\n", cmd, s, strings.Join(names, ", "))
		return "", false
	}
	return k, true
}

// scope returns --scope, or the default scope for cfg. explicit is true when --scope was given.
func (c *CLI) scope(cmd string, a *args, cfg *config.Config) (s config.Scope, explicit, ok bool) {
	switch v := a.str("--scope"); v {
	case "":
		return cfg.DefaultScope(), false, true
	case "global":
		return config.Global, true, true
	case "project":
		return config.Project, true, true
	default:
		fmt.Fprintf(c.Stderr, "pigo %s: --scope must be global or project, got %q\n", cmd, v)
		return "", false, false
	}
}

func runConfigPath(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if len(a.pos) > 1 {
		fmt.Fprintf(c.Stderr, "pigo config path: too many arguments\nusage: pigo config path [FILE]\n")
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	kinds := config.EditableKinds
	if len(a.pos) == 1 {
		k, ok := c.configKind("config path", a.pos[0])
		if !ok {
			return ExitUsage
		}
		kinds = []config.Kind{k}
	}
	out := cfg.PathReport(kinds)
	if format == "json" {
		return c.writeJSON(out)
	}
	out.WriteText(c.Stdout)
	return ExitOK
}

type getJSON struct {
	Version int             `json:"version"`
	File    string          `json:"file"`
	Key     string          `json:"key"`
	Scope   string          `json:"scope,omitempty"`
	Value   json.RawMessage `json:"value"`
}

func runConfigGet(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	k, key, path, ok := c.fileAndKey(a, "get", "get FILE [KEY] [--scope global|project]")
	if !ok {
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	var sp *config.Scope
	if a.has("--scope") {
		s, _, ok := c.scope("config get", a, cfg)
		if !ok {
			return ExitUsage
		}
		sp = &s
	}
	value, err := cfg.GetValue(k, sp, key, path, c.Stderr, "pigo config get: ")
	if err != nil {
		return c.editFailure("config get", err)
	}
	scope := ""
	if sp != nil {
		scope = string(*sp)
	}
	if format == "json" {
		return c.writeJSON(getJSON{Version: 1, File: string(k), Key: key, Scope: scope, Value: value})
	}
	var b bytes.Buffer
	if err := json.Indent(&b, value, "", "  "); err != nil {
		b.Reset()
		b.Write(value)
	}
	b.WriteByte('\n')
	c.Stdout.Write(b.Bytes())
	return ExitOK
}

// runConfigSet, runConfigUnset and runConfigAdd are `pigo config set`, `unset` and `add`.
func runConfigSet(c *CLI, a *args) int   { return runConfigEdit(c, a, config.OpSet) }
func runConfigUnset(c *CLI, a *args) int { return runConfigEdit(c, a, config.OpUnset) }
func runConfigAdd(c *CLI, a *args) int   { return runConfigEdit(c, a, config.OpAdd) }

func runConfigEdit(c *CLI, a *args, op string) int {
	cmd := "config " + op
	if _, ok := c.format(a, "text", "json"); !ok {
		return ExitUsage
	}
	var usage string
	var ops []config.EditOp
	// Words after "--" are arguments too, so that a VALUE may start with "-".
	pos := append(append([]string{}, a.pos...), a.rest...)
	switch op {
	case config.OpSet:
		usage = "config set FILE KEY VALUE"
		if len(pos) == 3 {
			ops = append(ops, config.EditOp{Op: op, Path: pos[1], Value: config.ParseValue(pos[2])})
		}
	case config.OpUnset:
		usage = "config unset FILE KEY..."
		if len(pos) >= 2 {
			for _, k := range pos[1:] {
				ops = append(ops, config.EditOp{Op: op, Path: k})
			}
		}
	case config.OpAdd:
		usage = "config add FILE KEY VALUE..."
		if len(pos) >= 3 {
			for _, v := range pos[2:] {
				ops = append(ops, config.EditOp{Op: op, Path: pos[1], Value: config.ParseValue(v)})
			}
		}
	}
	if ops == nil {
		fmt.Fprintf(c.Stderr, "pigo %s: wrong number of arguments\nusage: pigo %s [--scope global|project] [--dry-run] (after --, a VALUE may start with -)\n", cmd, usage)
		return ExitUsage
	}
	k, ok := c.configKind(cmd, pos[0])
	if !ok {
		return ExitUsage
	}
	for _, o := range ops {
		if _, err := config.ParsePath(o.Path); err != nil {
			fmt.Fprintf(c.Stderr, "pigo %s: bad key: %v\n", cmd, err)
			return ExitUsage
		}
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	s, _, ok := c.scope(cmd, a, cfg)
	if !ok {
		return ExitUsage
	}
	if s, ok = c.globalOnlyScope(cmd, a, k, s, ops); !ok {
		return ExitFailed
	}
	ch, err := cfg.Apply(k, s, a.has("--dry-run"), ops...)
	if err != nil {
		return c.editFailure(cmd, err)
	}
	c.warnDropped(cmd, cfg, ch, ops)
	if s == config.Project && !cfg.ProjectTrusted() {
		fmt.Fprintf(c.Stderr, "pigo %s: note: the project is not trusted (%s): %s is not applied until it is\n", cmd, cfg.TrustReason, ch.File)
	}
	if len(ch.Warnings) > 0 {
		fmt.Fprintf(c.Stderr, "pigo %s: the edit adds %d warning(s):\n", cmd, len(ch.Warnings))
		diag.WriteText(c.Stderr, ch.Warnings, diag.Style{})
	}
	return c.editOutput(a, ch, s, ops, !a.has("--dry-run") && ch.Changed())
}

// editFailure reports a refused or failed command: exit 1 for a refusal (with the diagnostics
// that refused an edit), 3 for an I/O failure.
func (c *CLI) editFailure(cmd string, err error) int {
	var ee *config.EditError
	var refusal *config.Refusal
	switch {
	case errors.As(err, &refusal):
		fmt.Fprintf(c.Stderr, "pigo %s: %s\n", cmd, refusal.Msg)
		return ExitFailed
	case errors.As(err, &ee):
		fmt.Fprintf(c.Stderr, "pigo %s: %s: %s\n", cmd, ee.File, ee.Msg)
		if ee.Hint != "" {
			fmt.Fprintf(c.Stderr, "  hint: %s\n", ee.Hint)
		}
		if len(ee.Diags) > 0 {
			diag.WriteText(c.Stderr, ee.Diags, diag.Style{})
		}
		return ExitFailed
	case errors.Is(err, jsonedit.ErrChanged):
		fmt.Fprintf(c.Stderr, "pigo %s: %v; nothing was written, run the command again\n", cmd, err)
		return ExitFailed
	case errors.Is(err, jsonedit.ErrRefused):
		fmt.Fprintf(c.Stderr, "pigo %s: %v; nothing was written\n", cmd, err)
		return ExitFailed
	}
	fmt.Fprintf(c.Stderr, "pigo %s: %v\n", cmd, err)
	return ExitInternal
}

func runConfigBlame(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	k, key, path, ok := c.fileAndKey(a, "blame", "blame FILE [KEY]")
	if !ok {
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	e, err := cfg.Effective(k)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo config blame: %v\n", err)
		return ExitInternal
	}
	out := e.BlameReport(k, key, path)
	if format == "json" {
		if code := c.writeJSON(out); code != ExitOK {
			return code
		}
	} else {
		out.WriteText(c.Stdout)
	}
	if !out.Found && key != "" {
		fmt.Fprintf(c.Stderr, "pigo config blame: %s: %s is not set in the effective configuration\n", k, key)
		return ExitFailed
	}
	return ExitOK
}

func runConfigMigrate(c *CLI, a *args) int {
	if len(a.pos) != 1 {
		fmt.Fprintf(c.Stderr, "pigo config migrate: want FILE\nusage: pigo config migrate sandbox [--scope global|project] [--dry-run] [--remove-old]\n")
		return ExitUsage
	}
	k, ok := c.configKind("config migrate", a.pos[0])
	if !ok {
		return ExitUsage
	}
	if k != config.Sandbox {
		fmt.Fprintf(c.Stderr, "pigo config migrate: %s has no older shape to migrate from (only sandbox has: the seed's flat bwrap.json)\n", k)
		return ExitFailed
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	s, _, ok := c.scope("config migrate", a, cfg)
	if !ok {
		return ExitUsage
	}
	m, err := cfg.MigrateSandbox(s)
	if err != nil {
		return c.editFailure("config migrate", err)
	}
	if err := m.Run(c.Stdout, a.has("--dry-run"), a.has("--remove-old")); err != nil {
		return c.editFailure("config migrate", err)
	}
	return ExitOK
}

// fileAndKey reads the FILE [KEY] arguments of config get and blame.
func (c *CLI) fileAndKey(a *args, name, usage string) (config.Kind, string, []config.PathStep, bool) {
	if len(a.pos) < 1 || len(a.pos) > 2 {
		fmt.Fprintf(c.Stderr, "pigo config %s: want FILE [KEY]\nusage: pigo config %s\n", name, usage)
		return "", "", nil, false
	}
	k, ok := c.configKind("config "+name, a.pos[0])
	if !ok {
		return "", "", nil, false
	}
	key := ""
	if len(a.pos) == 2 {
		key = a.pos[1]
	}
	path, err := config.ParsePath(key)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo config %s: bad key: %v\n", name, err)
		return "", "", nil, false
	}
	return k, key, path, true
}
