package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Defaults of the top-level client settings (reference §4.2).
const (
	DefaultDiagnosticsDebounce     = 150 * time.Millisecond
	DefaultDiagnosticsDocumentWait = 5000 * time.Millisecond
	DefaultDiagnosticsSilentWait   = 1500 * time.Millisecond
	DefaultDiagnosticsFullWait     = 10000 * time.Millisecond
	DefaultDiagnosticsRequest      = 3000 * time.Millisecond
	DefaultInitializeTimeout       = 45000 * time.Millisecond
	DefaultMaxOpenDocuments        = 32
	DefaultWatchDebounce           = 300 * time.Millisecond
	DefaultWatchMaxBatch           = 500
	// WatchFlush is the fixed maximum delay of a watch batch (not configurable).
	WatchFlush = 1000 * time.Millisecond
)

// Server kinds.
const (
	KindLanguage = "language"
	KindLinter   = "linter"
)

// Config is a parsed, merged lsp.json with defaults applied.
type Config struct {
	// Servers holds the configured servers by id.
	Servers map[string]*Server
	// Enabled is the whitelist of server ids; nil when the key is absent
	// (every server is enabled).
	Enabled []string
	// Disabled lists server ids to leave out; unknown ids are ignored.
	Disabled []string
	// Watch is the workspace-watcher section with defaults applied.
	Watch Watch
	// MaxOpenDocuments is the LRU capacity of open documents.
	MaxOpenDocuments int
	// Timeouts are the top-level client durations with defaults applied.
	Timeouts Timeouts
	// Warnings are problems that do not stop the config from being used:
	// invalid duration strings (the default is used) and unknown fields.
	Warnings []Warning
	// ProjectTrusted says the project is trusted (D5). Only then does bin
	// discovery look in the project (node_modules/.bin, .venv/bin, venv/bin, a
	// relative bin, PATH entries inside it): an untrusted project's files never
	// run. The zero value is the safe one.
	ProjectTrusted bool
	// DeferCommands makes Plan run nothing: {sh} env values and
	// initializationOptionsCommand are listed in ServerPlan.Deferred instead
	// (`pigo lsp plan`). Starting a server plans without it.
	DeferCommands bool
}

// Timeouts are the top-level durations of lsp.json.
type Timeouts struct {
	DiagnosticsDebounce     time.Duration
	DiagnosticsDocumentWait time.Duration
	DiagnosticsSilentWait   time.Duration
	DiagnosticsFullWait     time.Duration
	DiagnosticsRequest      time.Duration
	Initialize              time.Duration
}

// Watch is the `watch` section of lsp.json.
type Watch struct {
	Enabled  bool
	Debounce time.Duration
	MaxBatch int
	Ignore   []string
	Flush    time.Duration
}

// Server is one entry of `servers`.
type Server struct {
	// ID is the key of the entry in `servers`.
	ID      string
	Include []string
	// Kind is "language" (default) or "linter".
	Kind           string
	RootMarkers    []string
	HasRootMarkers bool
	WorkingDir     string
	HasWorkingDir  bool
	Bin            string
	Args           []string
	// Cwd is the spawn directory template ({root}, {cwd}); empty = the root.
	Cwd string
	// Env holds the configured variables, sorted by name.
	Env                   []EnvVar
	LanguageIDByExtension map[string]string
	// StartupTimeout overrides the top-level initializeTimeoutMs when > 0.
	StartupTimeout time.Duration
	// DiagnosticsWait overrides diagnosticsDocumentWaitTimeoutMs when > 0.
	DiagnosticsWait              time.Duration
	InitializationOptions        map[string]any
	InitializationOptionsCommand []string
	Settings                     map[string]any

	include *includeSet // compiled Include
}

// EnvVar is one configured environment variable: either a template string
// or a command whose trimmed stdout is the value.
type EnvVar struct {
	Name  string
	Value string
	// Sh, when non-nil, is the argv run (without a shell) to get the value.
	Sh []string
}

// Warning is a non-fatal problem found while parsing lsp.json.
type Warning struct {
	// Code is a stable kebab-case code: "bad-duration" or "unknown-field".
	Code string
	// Path is the dotted path of the value inside lsp.json.
	Path string
	// Message is the human-readable text.
	Message string
}

// ConfigError is a fatal problem in lsp.json: a wrong type, a value out of
// range, or two fields that exclude each other.
type ConfigError struct {
	// Path is the dotted path of the offending value ("" for the root).
	Path string
	// Msg says what was expected.
	Msg string
}

func (e *ConfigError) Error() string {
	if e.Path == "" {
		return "lsp.json: " + e.Msg
	}
	return "lsp.json: " + e.Path + ": " + e.Msg
}

// ParseConfig parses the merged lsp.json (plain JSON, comments already
// removed) into a Config with defaults applied. Type, enum and range
// violations and a server with both workingDir and rootMarkers are errors
// (*ConfigError, or a JSON syntax error). An invalid duration string is
// not: it becomes a "bad-duration" warning and the default is used. Unknown
// fields become "unknown-field" warnings. Empty input is an empty config.
func ParseConfig(data []byte) (*Config, error) {
	c := &Config{
		Servers:          map[string]*Server{},
		MaxOpenDocuments: DefaultMaxOpenDocuments,
		Timeouts: Timeouts{
			DiagnosticsDebounce:     DefaultDiagnosticsDebounce,
			DiagnosticsDocumentWait: DefaultDiagnosticsDocumentWait,
			DiagnosticsSilentWait:   DefaultDiagnosticsSilentWait,
			DiagnosticsFullWait:     DefaultDiagnosticsFullWait,
			DiagnosticsRequest:      DefaultDiagnosticsRequest,
			Initialize:              DefaultInitializeTimeout,
		},
		Watch: Watch{Enabled: true, Debounce: DefaultWatchDebounce, MaxBatch: DefaultWatchMaxBatch, Ignore: []string{}, Flush: WatchFlush},
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("lsp.json: invalid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("lsp.json: invalid JSON: unexpected data after the top-level value")
	}
	p := &parser{cfg: c}
	top, err := p.object(root, "")
	if err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(top) {
		v := top[k]
		var err error
		switch k {
		case "$schema":
			_, err = p.str(v, k)
		case "version":
			_, err = p.number(v, k)
		case "servers":
			err = p.servers(v)
		case "enabled":
			c.Enabled, err = p.strings(v, k, false)
			if err == nil && c.Enabled == nil {
				c.Enabled = []string{}
			}
		case "disabled":
			c.Disabled, err = p.strings(v, k, false)
		case "watch":
			err = p.watch(v)
		case "maxOpenDocuments":
			c.MaxOpenDocuments, err = p.positiveInt(v, k)
		case "diagnosticsDebounceMs":
			err = p.duration(v, k, &c.Timeouts.DiagnosticsDebounce)
		case "diagnosticsDocumentWaitTimeoutMs":
			err = p.duration(v, k, &c.Timeouts.DiagnosticsDocumentWait)
		case "diagnosticsSilentWaitTimeoutMs":
			err = p.duration(v, k, &c.Timeouts.DiagnosticsSilentWait)
		case "diagnosticsFullWaitTimeoutMs":
			err = p.duration(v, k, &c.Timeouts.DiagnosticsFullWait)
		case "diagnosticsRequestTimeoutMs":
			err = p.duration(v, k, &c.Timeouts.DiagnosticsRequest)
		case "initializeTimeoutMs":
			err = p.duration(v, k, &c.Timeouts.Initialize)
		default:
			p.unknown(k, fmt.Sprintf("lsp.json: unknown field %q ignored", k))
		}
		if err != nil {
			return nil, err
		}
	}
	// Report in the reference order: top level, then watch, then servers.
	sort.SliceStable(c.Warnings, func(i, j int) bool {
		return warningRank(c.Warnings[i].Path) < warningRank(c.Warnings[j].Path)
	})
	return c, nil
}

func warningRank(path string) int {
	switch {
	case strings.HasPrefix(path, "watch."):
		return 1
	case strings.HasPrefix(path, "servers."):
		return 2
	}
	return 0
}

// ServerIDs returns the configured server ids, sorted.
func (c *Config) ServerIDs() []string {
	return sortedKeys(c.Servers)
}

// CheckExclusive returns the reference error when a server sets both
// workingDir and rootMarkers (even an empty rootMarkers list), else nil.
func CheckExclusive(id string, hasWorkingDir, hasRootMarkers bool) error {
	if hasWorkingDir && hasRootMarkers {
		return &ConfigError{Msg: fmt.Sprintf("server %q: workingDir and rootMarkers are mutually exclusive", id)}
	}
	return nil
}

// CheckEnabled returns the reference error when `enabled` names ids that
// are not configured servers, else nil. Unknown ids are listed in the
// order of enabled; available ids sorted ("none" when empty).
func CheckEnabled(enabled, available []string) error {
	var unknown []string
	for _, id := range enabled {
		if !slices.Contains(available, id) {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	avail := slices.Clone(available)
	sort.Strings(avail)
	list := strings.Join(avail, ", ")
	if list == "" {
		list = "none"
	}
	return &ConfigError{Msg: fmt.Sprintf("unknown server id in enabled: %s (available: %s)", strings.Join(unknown, ", "), list)}
}

type parser struct {
	cfg *Config
}

func (p *parser) unknown(path, msg string) {
	p.cfg.Warnings = append(p.cfg.Warnings, Warning{Code: "unknown-field", Path: path, Message: msg})
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func expected(path, what string, v any) error {
	return &ConfigError{Path: path, Msg: fmt.Sprintf("expected %s, got %s", what, typeName(v))}
}

func (p *parser) object(v any, path string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, expected(path, "an object", v)
	}
	return m, nil
}

func (p *parser) str(v any, path string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", expected(path, "a string", v)
	}
	return s, nil
}

func (p *parser) number(v any, path string) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, expected(path, "a number", v)
	}
	f, err := n.Float64()
	if err != nil {
		return 0, &ConfigError{Path: path, Msg: fmt.Sprintf("invalid number %s", n)}
	}
	return f, nil
}

func (p *parser) positiveInt(v any, path string) (int, error) {
	f, err := p.number(v, path)
	if err != nil {
		return 0, err
	}
	if f < 1 {
		return 0, &ConfigError{Path: path, Msg: fmt.Sprintf("expected a number >= 1, got %s", v)}
	}
	if f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, &ConfigError{Path: path, Msg: fmt.Sprintf("expected an integer, got %s", v)}
	}
	return int(f), nil
}

// strings parses a string array; nonEmpty requires every item to be non-empty.
func (p *parser) strings(v any, path string, nonEmpty bool) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, expected(path, "an array of strings", v)
	}
	out := make([]string, 0, len(arr))
	for i, item := range arr {
		s, ok := item.(string)
		ip := fmt.Sprintf("%s[%d]", path, i)
		if !ok {
			return nil, expected(ip, "a string", item)
		}
		if nonEmpty && s == "" {
			return nil, &ConfigError{Path: ip, Msg: "expected a non-empty string"}
		}
		out = append(out, s)
	}
	return out, nil
}

// duration parses a duration value: a number >= 1 (milliseconds) or a
// string. A bad string is a warning and leaves *dst unchanged.
func (p *parser) duration(v any, path string, dst *time.Duration) error {
	switch t := v.(type) {
	case json.Number:
		f, err := p.number(v, path)
		if err != nil {
			return err
		}
		if f < 1 || f > float64(math.MaxInt64/int64(time.Millisecond)) {
			return &ConfigError{Path: path, Msg: fmt.Sprintf("expected a duration >= 1 (milliseconds), got %s", t)}
		}
		*dst = time.Duration(math.Round(f)) * time.Millisecond
		return nil
	case string:
		d, err := ParseDuration(t)
		if err != nil {
			fallback := "the default " + formatMs(*dst)
			if *dst == 0 {
				fallback = "the top-level value"
			}
			p.cfg.Warnings = append(p.cfg.Warnings, Warning{Code: "bad-duration", Path: path,
				Message: fmt.Sprintf("%s: %v; using %s", path, err, fallback)})
			return nil
		}
		*dst = d
		return nil
	}
	return expected(path, "a duration (number of milliseconds or string)", v)
}

func formatMs(d time.Duration) string {
	return fmt.Sprintf("%dms", d.Milliseconds())
}

func (p *parser) watch(v any) error {
	m, err := p.object(v, "watch")
	if err != nil {
		return err
	}
	w := &p.cfg.Watch
	for _, k := range sortedKeys(m) {
		path := "watch." + k
		switch k {
		case "enabled":
			b, ok := m[k].(bool)
			if !ok {
				return expected(path, "a boolean", m[k])
			}
			w.Enabled = b
		case "debounceMs":
			err = p.duration(m[k], path, &w.Debounce)
		case "maxBatch":
			w.MaxBatch, err = p.positiveInt(m[k], path)
		case "ignore":
			w.Ignore, err = p.strings(m[k], path, false)
		default:
			p.unknown(path, fmt.Sprintf("lsp.json watch: unknown field %q ignored", k))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) servers(v any) error {
	m, err := p.object(v, "servers")
	if err != nil {
		return err
	}
	for _, id := range sortedKeys(m) {
		s, err := p.server(id, m[id])
		if err != nil {
			return err
		}
		p.cfg.Servers[id] = s
	}
	return nil
}

func (p *parser) server(id string, v any) (*Server, error) {
	base := "servers." + id
	m, err := p.object(v, base)
	if err != nil {
		return nil, err
	}
	s := &Server{ID: id, Kind: KindLanguage, include: &includeSet{}}
	for _, k := range sortedKeys(m) {
		path := base + "." + k
		val := m[k]
		switch k {
		case "include":
			if s.Include, err = p.strings(val, path, false); err == nil {
				if s.include, err = compileInclude(s.Include); err != nil {
					err = &ConfigError{Path: base, Msg: err.Error()}
				}
			}
		case "kind":
			var kind string
			if kind, err = p.str(val, path); err == nil {
				if kind != KindLanguage && kind != KindLinter {
					err = &ConfigError{Path: path, Msg: fmt.Sprintf("expected \"language\" or \"linter\", got %q", kind)}
				}
				s.Kind = kind
			}
		case "rootMarkers":
			s.RootMarkers, err = p.strings(val, path, true)
			s.HasRootMarkers = true
		case "workingDir":
			s.WorkingDir, err = p.str(val, path)
			s.HasWorkingDir = true
		case "bin":
			s.Bin, err = p.str(val, path)
		case "args":
			s.Args, err = p.strings(val, path, false)
		case "cwd":
			s.Cwd, err = p.str(val, path)
		case "env":
			s.Env, err = p.env(val, path)
		case "languageIdByExtension":
			s.LanguageIDByExtension, err = p.stringMap(val, path)
		case "startupTimeoutMs":
			err = p.duration(val, path, &s.StartupTimeout)
		case "diagnosticsWaitMs":
			err = p.duration(val, path, &s.DiagnosticsWait)
		case "initializationOptions":
			s.InitializationOptions, err = p.object(val, path)
		case "initializationOptionsCommand":
			s.InitializationOptionsCommand, err = p.strings(val, path, false)
			if err == nil && len(s.InitializationOptionsCommand) == 0 {
				err = &ConfigError{Path: path, Msg: "expected a non-empty argv"}
			}
		case "settings":
			s.Settings, err = p.object(val, path)
		default:
			p.unknown(path, fmt.Sprintf("lsp.json (server %q): unknown field %q ignored", id, k))
		}
		if err != nil {
			return nil, err
		}
	}
	if err := CheckExclusive(id, s.HasWorkingDir, s.HasRootMarkers); err != nil {
		err.(*ConfigError).Path = base
		return nil, err
	}
	return s, nil
}

func (p *parser) stringMap(v any, path string) (map[string]string, error) {
	m, err := p.object(v, path)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(m))
	for k, val := range m {
		s, ok := val.(string)
		if !ok {
			return nil, expected(path+"."+k, "a string", val)
		}
		out[k] = s
	}
	return out, nil
}

func (p *parser) env(v any, path string) ([]EnvVar, error) {
	m, err := p.object(v, path)
	if err != nil {
		return nil, err
	}
	var out []EnvVar
	for _, name := range sortedKeys(m) {
		vp := path + "." + name
		switch val := m[name].(type) {
		case string:
			out = append(out, EnvVar{Name: name, Value: val})
		case map[string]any:
			sh, ok := val["sh"]
			if !ok || len(val) != 1 {
				return nil, &ConfigError{Path: vp, Msg: `expected a string or {"sh": [argv...]}`}
			}
			argv, err := p.strings(sh, vp+".sh", false)
			if err != nil {
				return nil, err
			}
			if len(argv) == 0 {
				return nil, &ConfigError{Path: vp + ".sh", Msg: "expected a non-empty argv"}
			}
			out = append(out, EnvVar{Name: name, Sh: argv})
		default:
			return nil, expected(vp, `a string or {"sh": [argv...]}`, val)
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
