package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonedit"
)

var (
	scopeFlag  = flag{names: []string{"--scope"}, value: true, help: "global or project (default: project when DIR/.pi/ exists and is trusted, else global)"}
	dryRunFlag = flag{names: []string{"--dry-run"}, help: "print the unified diff and write nothing"}
)

func init() {
	register(&command{
		name:    "config",
		summary: "show, edit, blame and migrate the JSON config files",
		usage:   "config path|get|set|unset|add|blame|migrate ...",
		sub: []*command{
			{name: "path", summary: "the files, global and project, and which exist", usage: "config path [FILE]", run: runConfigPath},
			{name: "get", summary: "the effective (merged) value as JSON; --scope for one layer", usage: "config get FILE [KEY] [--scope global|project]",
				flags: []flag{scopeFlag}, run: runConfigGet},
			{name: "set", summary: "set KEY to VALUE (JSON, or a bare string)", usage: "config set FILE KEY VALUE [--scope global|project] [--dry-run]",
				flags: []flag{scopeFlag, dryRunFlag}, run: runConfigEdit(config.OpSet)},
			{name: "unset", summary: "remove keys or array elements", usage: "config unset FILE KEY... [--scope global|project] [--dry-run]",
				flags: []flag{scopeFlag, dryRunFlag}, run: runConfigEdit(config.OpUnset)},
			{name: "add", summary: "append values to the array at KEY", usage: "config add FILE KEY VALUE... [--scope global|project] [--dry-run]",
				flags: []flag{scopeFlag, dryRunFlag}, run: runConfigEdit(config.OpAdd)},
			{name: "blame", summary: "each effective leaf with the file, line and merge rule that set it", usage: "config blame FILE [KEY]", run: runConfigBlame},
			{name: "migrate", summary: "rewrite the seed's flat bwrap.json shape into sandbox.json", usage: "config migrate sandbox [--scope global|project] [--dry-run] [--remove-old]",
				flags: []flag{scopeFlag, dryRunFlag, {names: []string{"--remove-old"}, help: "remove bwrap.json once sandbox.json is written"}}, run: runConfigMigrate},
		},
	})
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

type configPathEntryJSON struct {
	Kind    string `json:"kind"`
	Scope   string `json:"scope"`
	Path    string `json:"path"`
	Exists  bool   `json:"exists"`
	Applied bool   `json:"applied"`
	Legacy  bool   `json:"legacy,omitempty"`
}

type configPathJSON struct {
	Version      int                   `json:"version"`
	DefaultScope string                `json:"default_scope"`
	Trusted      bool                  `json:"trusted"`
	TrustReason  string                `json:"trust_reason"`
	Files        []configPathEntryJSON `json:"files"`
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
	out := configPathJSON{Version: 1, DefaultScope: string(cfg.DefaultScope()), Trusted: cfg.ProjectTrusted(), TrustReason: cfg.TrustReason, Files: []configPathEntryJSON{}}
	if !cfg.HasProject {
		out.TrustReason = "no project overlay yet"
	}
	for _, k := range kinds {
		for _, s := range []config.Scope{config.Global, config.Project} {
			p := cfg.Path(k, s)
			e := configPathEntryJSON{Kind: string(k), Scope: string(s), Path: p}
			if f := cfg.Layer(k, s); f != nil {
				e.Exists, e.Applied = true, f.Applied
			}
			out.Files = append(out.Files, e)
			if k == config.Sandbox {
				old := filepath.Join(filepath.Dir(p), "bwrap.json")
				if _, err := os.Lstat(old); err == nil {
					out.Files = append(out.Files, configPathEntryJSON{Kind: string(k), Scope: string(s), Path: old, Exists: true, Legacy: true})
				}
			}
		}
	}
	if format == "json" {
		return c.writeJSON(out)
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tSCOPE\tPATH\tSTATE")
	for _, e := range out.Files {
		state := "missing"
		switch {
		case e.Legacy:
			state = "legacy name, not read (pigo config migrate sandbox)"
		case e.Exists && e.Applied:
			state = "exists"
		case e.Exists && e.Scope == "project" && !cfg.Trusted:
			state = "exists, not applied (untrusted project)"
		case e.Exists:
			state = "exists, not applied (see pigo check)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Kind, e.Scope, e.Path, state)
	}
	tw.Flush()
	fmt.Fprintf(c.Stdout, "default scope: %s (project trusted: %v, %s)\n", out.DefaultScope, out.Trusted, out.TrustReason)
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
	var value []byte
	scope := ""
	if a.has("--scope") {
		s, _, ok := c.scope("config get", a, cfg)
		if !ok {
			return ExitUsage
		}
		scope = string(s)
		v, found, err := cfg.Get(k, s, key)
		if err != nil {
			fmt.Fprintf(c.Stderr, "pigo config get: %v\n", err)
			return ExitFailed
		}
		if !found {
			if cfg.Layer(k, s) == nil {
				fmt.Fprintf(c.Stderr, "pigo config get: %s: the %s file does not exist (%s)\n", k, s, cfg.Path(k, s))
			} else {
				fmt.Fprintf(c.Stderr, "pigo config get: %s: %s is not set in %s\n", k, key, cfg.Layer(k, s).Path)
			}
			return ExitFailed
		}
		value = v
	} else {
		e, err := cfg.Effective(k)
		if err != nil {
			fmt.Fprintf(c.Stderr, "pigo config get: %v\n", err)
			return ExitInternal
		}
		c.configIgnoredNotices("config get", e)
		if len(path) == 0 {
			value = e.JSON()
		} else if v := e.Lookup(path); v != nil {
			value = v.JSON()
		} else {
			fmt.Fprintf(c.Stderr, "pigo config get: %s: %s is not set in the effective configuration\n", k, key)
			return ExitFailed
		}
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

// configIgnoredNotices prints one line per layer left out of the effective configuration (D14).
func (c *CLI) configIgnoredNotices(cmd string, e *config.Effective) {
	for _, ig := range e.Ignored {
		fmt.Fprintf(c.Stderr, "pigo %s: note: %s is not applied: %s\n", cmd, ig.File.Path, ig.Reason)
	}
}

// parseValue reads a VALUE argument: JSON, or a bare string when it does not parse as JSON.
func parseValue(s string) []byte {
	t := strings.TrimSpace(s)
	if t != "" && json.Valid([]byte(t)) {
		return []byte(t)
	}
	b, _ := json.Marshal(s)
	return b
}

func runConfigEdit(op string) func(c *CLI, a *args) int {
	return func(c *CLI, a *args) int {
		cmd := "config " + op
		if _, ok := c.format(a, "text", "json"); !ok {
			return ExitUsage
		}
		var usage string
		var ops []config.EditOp
		switch op {
		case config.OpSet:
			usage = "config set FILE KEY VALUE"
			if len(a.pos) == 3 {
				ops = append(ops, config.EditOp{Op: op, Path: a.pos[1], Value: parseValue(a.pos[2])})
			}
		case config.OpUnset:
			usage = "config unset FILE KEY..."
			if len(a.pos) >= 2 {
				for _, k := range a.pos[1:] {
					ops = append(ops, config.EditOp{Op: op, Path: k})
				}
			}
		case config.OpAdd:
			usage = "config add FILE KEY VALUE..."
			if len(a.pos) >= 3 {
				for _, v := range a.pos[2:] {
					ops = append(ops, config.EditOp{Op: op, Path: a.pos[1], Value: parseValue(v)})
				}
			}
		}
		if ops == nil {
			fmt.Fprintf(c.Stderr, "pigo %s: wrong number of arguments\nusage: pigo %s [--scope global|project] [--dry-run]\n", cmd, usage)
			return ExitUsage
		}
		k, ok := c.configKind(cmd, a.pos[0])
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
		ch, err := cfg.Edit(k, s, ops...)
		if err != nil {
			return c.editFailure(cmd, err)
		}
		c.warnDropped(cmd, cfg, ch, ops)
		if s == config.Project && !cfg.ProjectTrusted() {
			fmt.Fprintf(c.Stderr, "pigo %s: note: the project is not trusted (%s): %s is not applied until it is\n", cmd, cfg.TrustReason, ch.File)
		}
		if a.has("--dry-run") || !ch.Changed() {
			return c.editOutput(a, ch, s, ops, false)
		}
		if err := ch.Write(); err != nil {
			return c.editFailure(cmd, err)
		}
		return c.editOutput(a, ch, s, ops, true)
	}
}

func summarize(ops []config.EditOp) string {
	var parts []string
	for _, o := range ops {
		switch o.Op {
		case config.OpSet:
			parts = append(parts, fmt.Sprintf("set %s = %s", o.Path, o.Value))
		case config.OpUnset:
			parts = append(parts, "unset "+o.Path)
		case config.OpAdd:
			parts = append(parts, fmt.Sprintf("added %s to %s", o.Value, o.Path))
		}
	}
	return strings.Join(parts, "; ")
}

// editFailure reports a refused or failed edit: exit 1 for a refusal (with the diagnostics that
// refused it), 3 for an I/O failure.
func (c *CLI) editFailure(cmd string, err error) int {
	var ee *config.EditError
	switch {
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
	}
	fmt.Fprintf(c.Stderr, "pigo %s: %v\n", cmd, err)
	return ExitInternal
}

type blameIgnoredJSON struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

type blameJSON struct {
	Version int                `json:"version"`
	File    string             `json:"file"`
	Key     string             `json:"key,omitempty"`
	Leaves  []config.BlameLeaf `json:"leaves"`
	Ignored []blameIgnoredJSON `json:"ignored"`
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
	leaves, found := e.Blame(path)
	out := blameJSON{Version: 1, File: string(k), Key: key, Leaves: leaves, Ignored: []blameIgnoredJSON{}}
	if out.Leaves == nil {
		out.Leaves = []config.BlameLeaf{}
	}
	for _, ig := range e.Ignored {
		out.Ignored = append(out.Ignored, blameIgnoredJSON{File: ig.File.Path, Reason: ig.Reason})
	}
	if format == "json" {
		if code := c.writeJSON(out); code != ExitOK {
			return code
		}
	} else {
		for _, l := range leaves {
			fmt.Fprintf(c.Stdout, "%s = %s\n    %s:%d:%d  [%s]\n", l.Path, l.Value, l.File, l.Line, l.Column, l.Rule)
			for _, r := range l.Replaced {
				verb := "replaced"
				if r.Ignored {
					verb = "ignored (read from the global file only)"
				}
				fmt.Fprintf(c.Stdout, "    %s %s at %s:%d:%d\n", verb, r.Value, r.File, r.Line, r.Column)
			}
		}
		if len(e.Layers) == 0 && len(leaves) == 0 {
			fmt.Fprintf(c.Stdout, "no %s layer applies: every value is the default\n", config.FileName(k))
		}
		for _, ig := range e.Ignored {
			fmt.Fprintf(c.Stdout, "ignored: %s: %s\n", ig.File.Path, ig.Reason)
		}
	}
	if !found && key != "" {
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
	if m.Done {
		if a.has("--remove-old") && m.From != m.To && !a.has("--dry-run") {
			if err := m.Write(true); err != nil {
				return c.editFailure("config migrate", err)
			}
			fmt.Fprintf(c.Stdout, "%s already holds the migrated policy; removed %s\n", m.To, m.From)
			return ExitOK
		}
		fmt.Fprintf(c.Stdout, "%s is already in the current shape: nothing to migrate\n", m.To)
		return ExitOK
	}
	fmt.Fprint(c.Stdout, m.Diff())
	if a.has("--dry-run") {
		return ExitOK
	}
	if err := m.Write(a.has("--remove-old")); err != nil {
		return c.editFailure("config migrate", err)
	}
	switch {
	case m.From == m.To:
		fmt.Fprintf(c.Stdout, "migrated %s to the current shape\n", m.To)
	case a.has("--remove-old"):
		fmt.Fprintf(c.Stdout, "migrated %s to %s and removed %s\n", m.From, m.To, m.From)
	default:
		fmt.Fprintf(c.Stdout, "migrated %s to %s; %s is left as it was (pass --remove-old to remove it)\n", m.From, m.To, m.From)
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
