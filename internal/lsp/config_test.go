package lsp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"300ms", 300 * time.Millisecond, false},
		{"5s", 5 * time.Second, false},
		{"1m", time.Minute, false},
		{"2h", 2 * time.Hour, false},
		{"1.5s", 1500 * time.Millisecond, false},
		{"500", 500 * time.Millisecond, false},
		{" 5s ", 5 * time.Second, false},
		{"5 s", 5 * time.Second, false},
		{".5s", 500 * time.Millisecond, false},
		{"abc", 0, true},
		{"0", 0, true},
		{"0.4", 0, true},
		{"-5s", 0, true},
		{"5d", 0, true},
		{"", 0, true},
		{"1e3", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, bad=%v", tt.in, got, err, tt.want, tt.bad)
		}
		if (ValidateDuration(tt.in) != nil) != tt.bad {
			t.Errorf("ValidateDuration(%q) disagrees", tt.in)
		}
	}
}

func TestParseConfigDefaults(t *testing.T) {
	for _, in := range []string{"", "{}"} {
		c, err := ParseConfig([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		want := Timeouts{150 * time.Millisecond, 5 * time.Second, 1500 * time.Millisecond, 10 * time.Second, 3 * time.Second, 45 * time.Second}
		if diff := cmp.Diff(want, c.Timeouts); diff != "" {
			t.Errorf("timeouts (-want +got):\n%s", diff)
		}
		if c.MaxOpenDocuments != 32 || !c.Watch.Enabled || c.Watch.Debounce != 300*time.Millisecond || c.Watch.MaxBatch != 500 || c.Watch.Flush != time.Second {
			t.Errorf("defaults: %+v", c)
		}
		if c.Enabled != nil || len(c.Servers) != 0 || len(c.Warnings) != 0 {
			t.Errorf("defaults: %+v", c)
		}
	}
}

func TestParseConfigValues(t *testing.T) {
	c, err := ParseConfig([]byte(`{"version": 1, "diagnosticsDebounceMs": "5s", "initializeTimeoutMs": 10000,
		"diagnosticsDocumentWaitTimeoutMs": "1s", "maxOpenDocuments": 8, "enabled": [], "disabled": ["nope"],
		"watch": {"enabled": false, "debounceMs": "1m", "maxBatch": 100, "ignore": [".git"]},
		"servers": {"gopls": {"include": ["**/*.go"], "kind": "language", "rootMarkers": ["go.mod"], "bin": "gopls",
			"args": ["serve"], "cwd": "{root}", "env": {"A": "{root}/x", "B": {"sh": ["echo", "b"]}},
			"languageIdByExtension": {".go": "go"}, "startupTimeoutMs": "45s", "diagnosticsWaitMs": 1500,
			"initializationOptions": {"x": 1}, "initializationOptionsCommand": ["node", "o.mjs"], "settings": {"gopls": {}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Timeouts.DiagnosticsDebounce != 5*time.Second || c.Timeouts.Initialize != 10*time.Second || c.Timeouts.DiagnosticsDocumentWait != time.Second {
		t.Errorf("timeouts: %+v", c.Timeouts)
	}
	if c.MaxOpenDocuments != 8 || c.Enabled == nil || len(c.Enabled) != 0 || c.Watch.Enabled || c.Watch.Debounce != time.Minute || c.Watch.MaxBatch != 100 {
		t.Errorf("top level: %+v", c)
	}
	s := c.Servers["gopls"]
	want := &Server{ID: "gopls", Include: []string{"**/*.go"}, Kind: "language", RootMarkers: []string{"go.mod"}, HasRootMarkers: true,
		Bin: "gopls", Args: []string{"serve"}, Cwd: "{root}",
		Env:                   []EnvVar{{Name: "A", Value: "{root}/x"}, {Name: "B", Sh: []string{"echo", "b"}}},
		LanguageIDByExtension: map[string]string{".go": "go"}, StartupTimeout: 45 * time.Second, DiagnosticsWait: 1500 * time.Millisecond,
		InitializationOptions: map[string]any{"x": jsonNumber("1")}, InitializationOptionsCommand: []string{"node", "o.mjs"},
		Settings: map[string]any{"gopls": map[string]any{}}}
	if diff := cmp.Diff(want, s, cmp.AllowUnexported(Server{}), cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".include" }, cmp.Ignore())); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`not json`, "lsp.json: invalid JSON"},
		{`[]`, "lsp.json: expected an object, got array"},
		{`{"enabled": 42, "initializeTimeoutMs": -1}`, "lsp.json: enabled: expected an array of strings, got number"},
		{`{"initializeTimeoutMs": -1}`, "lsp.json: initializeTimeoutMs: expected a duration >= 1 (milliseconds), got -1"},
		{`{"initializeTimeoutMs": 0}`, "lsp.json: initializeTimeoutMs: expected a duration >= 1"},
		{`{"watch": {"maxBatch": 0}}`, "lsp.json: watch.maxBatch: expected a number >= 1, got 0"},
		{`{"maxOpenDocuments": 0}`, "lsp.json: maxOpenDocuments: expected a number >= 1, got 0"},
		{`{"maxOpenDocuments": 1.5}`, "lsp.json: maxOpenDocuments: expected an integer, got 1.5"},
		{`{"enabled": ["pyright", 1, null]}`, "lsp.json: enabled[1]: expected a string, got number"},
		{`{"servers": {"a": {"bin": 42}}}`, "lsp.json: servers.a.bin: expected a string, got number"},
		{`{"servers": {"a": {"kind": "formatter"}}}`, `lsp.json: servers.a.kind: expected "language" or "linter", got "formatter"`},
		{`{"servers": {"a": {"workingDir": "x", "rootMarkers": ["go.mod"]}}}`, `lsp.json: servers.a: server "a": workingDir and rootMarkers are mutually exclusive`},
		{`{"servers": {"a": {"workingDir": "x", "rootMarkers": []}}}`, `workingDir and rootMarkers are mutually exclusive`},
		{`{"servers": {"a": {"rootMarkers": [""]}}}`, `lsp.json: servers.a.rootMarkers[0]: expected a non-empty string`},
		{`{"servers": {"a": {"env": {"X": 1}}}}`, `lsp.json: servers.a.env.X: expected a string or {"sh": [argv...]}, got number`},
		{`{"servers": {"a": {"env": {"X": {"sh": []}}}}}`, `lsp.json: servers.a.env.X.sh: expected a non-empty argv`},
		{`{"servers": {"a": {"env": {"X": {"cmd": ["x"]}}}}}`, `lsp.json: servers.a.env.X: expected a string or {"sh": [argv...]}`},
		{`{"servers": {"a": {"include": ["{a,b"]}}}`, `lsp.json: servers.a: include[0]: bad pattern "{a,b"`},
		{`{"servers": {"a": {"initializationOptions": []}}}`, `lsp.json: servers.a.initializationOptions: expected an object, got array`},
		{`{"servers": {"a": {"startupTimeoutMs": true}}}`, `lsp.json: servers.a.startupTimeoutMs: expected a duration`},
		{`{"watch": {"enabled": "yes"}}`, `lsp.json: watch.enabled: expected a boolean, got string`},
		{`{} {}`, `unexpected data after the top-level value`},
	}
	for _, tt := range tests {
		_, err := ParseConfig([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseConfig(%s) error = %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestParseConfigWarnings(t *testing.T) {
	c, err := ParseConfig([]byte(`{"bogus": 1, "diagnosticsDebounceMs": "abc", "initializeTimeoutMs": "0",
		"watch": {"debounceMs": "soon", "extra": true},
		"servers": {"clangd": {"enabled": false, "bin": "clangd", "diagnosticsWaitMs": "later"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{
		{"unknown-field", "bogus", `lsp.json: unknown field "bogus" ignored`},
		{"bad-duration", "diagnosticsDebounceMs", `diagnosticsDebounceMs: invalid duration "abc": expected a number of milliseconds or a number with a unit ms, s, m or h (e.g. "300ms", "5s"); using the default 150ms`},
		{"bad-duration", "initializeTimeoutMs", `initializeTimeoutMs: invalid duration "0": must be at least 1ms; using the default 45000ms`},
		{"bad-duration", "watch.debounceMs", `watch.debounceMs: invalid duration "soon": expected a number of milliseconds or a number with a unit ms, s, m or h (e.g. "300ms", "5s"); using the default 300ms`},
		{"unknown-field", "watch.extra", `lsp.json watch: unknown field "extra" ignored`},
		{"bad-duration", "servers.clangd.diagnosticsWaitMs", `servers.clangd.diagnosticsWaitMs: invalid duration "later": expected a number of milliseconds or a number with a unit ms, s, m or h (e.g. "300ms", "5s"); using the top-level value`},
		{"unknown-field", "servers.clangd.enabled", `lsp.json (server "clangd"): unknown field "enabled" ignored`},
	}
	if diff := cmp.Diff(want, c.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if c.Timeouts.DiagnosticsDebounce != DefaultDiagnosticsDebounce || c.Timeouts.Initialize != DefaultInitializeTimeout || c.Watch.Debounce != DefaultWatchDebounce {
		t.Errorf("bad durations did not fall back to the defaults: %+v", c.Timeouts)
	}
	if c.Servers["clangd"].DiagnosticsWait != 0 {
		t.Errorf("server diagnosticsWaitMs: %v", c.Servers["clangd"].DiagnosticsWait)
	}
}

func TestCheckEnabled(t *testing.T) {
	tests := []struct {
		enabled, available []string
		want               string
	}{
		{[]string{"gopls"}, []string{"gopls", "pyright"}, ""},
		{[]string{"nope"}, []string{"pyright", "gopls"}, "lsp.json: unknown server id in enabled: nope (available: gopls, pyright)"},
		{[]string{"b", "a"}, nil, "lsp.json: unknown server id in enabled: b, a (available: none)"},
		{nil, nil, ""},
	}
	for _, tt := range tests {
		err := CheckEnabled(tt.enabled, tt.available)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckEnabled(%v, %v) = %q, want %q", tt.enabled, tt.available, got, tt.want)
		}
	}
	if err := CheckExclusive("a", true, false); err != nil {
		t.Error(err)
	}
	if err := CheckExclusive("a", true, true); err == nil || err.Error() != `lsp.json: server "a": workingDir and rootMarkers are mutually exclusive` {
		t.Errorf("CheckExclusive = %v", err)
	}
}

func jsonNumber(s string) any { return json.Number(s) }
