package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// load reads the configuration of a home (agent dir home/.pi/agent) and a project dir.
func load(t *testing.T, home, proj string, approve *bool) *Config {
	t.Helper()
	c, err := Load(Options{Home: home, ProjectDir: proj, Approve: approve, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// decode turns JSON text into a value for order-insensitive object comparison (arrays keep
// their order).
func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	return v
}

// TestOverlayRules runs every merge rule of D4 on real files in temporary directories through
// Load and Effective.
func TestOverlayRules(t *testing.T) {
	cases := []struct {
		name            string
		kind            Kind
		global, project string // file contents; "" = absent
		approve         *bool
		want            string
	}{
		{"settings deep merge, project wins", Settings,
			`{"theme": "dark", "terminal": {"showImages": true, "clearOnShrink": false}, "quietStartup": true}`,
			`{"theme": "light", "terminal": {"clearOnShrink": true}}`, nil,
			`{"theme": "light", "terminal": {"showImages": true, "clearOnShrink": true}, "quietStartup": true}`},
		{"settings arrays replace", Settings,
			`{"enabledModels": ["a/*", "b/*"], "defaultTools": ["read", "bash"]}`,
			`{"enabledModels": ["c/*"]}`, nil,
			`{"enabledModels": ["c/*"], "defaultTools": ["read", "bash"]}`},
		{"resource lists project first", Settings,
			`{"packages": ["npm:g"], "extensions": ["/g.ts"], "skills": ["/gs"], "prompts": ["/gp"], "themes": ["/gt"]}`,
			`{"packages": ["npm:p"], "extensions": ["/p.ts"], "skills": ["/ps"], "prompts": ["/pp"], "themes": ["/pt"]}`, nil,
			`{"packages": ["npm:p", "npm:g"], "extensions": ["/p.ts", "/g.ts"], "skills": ["/ps", "/gs"], "prompts": ["/pp", "/gp"], "themes": ["/pt", "/gt"]}`},
		{"defaultProjectTrust and httpProxy global only", Settings,
			`{"defaultProjectTrust": "never", "httpProxy": "http://g:1"}`,
			`{"defaultProjectTrust": "always", "httpProxy": "http://p:1", "theme": "x"}`, ptr(true),
			`{"defaultProjectTrust": "never", "httpProxy": "http://g:1", "theme": "x"}`},
		{"global-only keys dropped from a project-only stack", Settings,
			``, `{"defaultProjectTrust": "always", "httpProxy": "http://p:1", "theme": "x"}`, ptr(true),
			`{"theme": "x"}`},
		{"global-only keys absent globally stay absent", Settings,
			`{"theme": "y"}`, `{"httpProxy": "http://p:1"}`, ptr(true),
			`{"theme": "y"}`},
		{"personalExtensions rules", Settings,
			`{"personalExtensions": {"fileIo": "opencode", "fileIoByModel": [{"models": ["g/*"], "fileIo": "opencode"}],
			  "disabledTools": ["web_*"], "enabledTools": ["web_search"], "codemodeOnlyTools": ["aft_*"]}}`,
			`{"personalExtensions": {"fileIo": "claude-code", "fileIoByModel": [{"models": ["p/*"], "fileIo": "claude-code"}],
			  "disabledTools": ["talk-*"], "enabledTools": ["talk-send"], "codemodeOnlyTools": ["lsp-*"]}}`, nil,
			`{"personalExtensions": {"fileIo": "claude-code",
			  "fileIoByModel": [{"models": ["p/*"], "fileIo": "claude-code"}, {"models": ["g/*"], "fileIo": "opencode"}],
			  "disabledTools": ["web_*", "talk-*"], "enabledTools": ["web_search", "talk-send"], "codemodeOnlyTools": ["aft_*", "lsp-*"]}}`},
		{"sandbox replace-if-present and concatenation", Sandbox,
			`{"fs": {"mode": "readonly", "writablePaths": [".", "/tmp"], "extraWritablePaths": ["~/.cache"], "denyPaths": ["~/.ssh/"]},
			  "network": {"mode": "limited", "allowlist": ["github.com"], "mihomoPath": "/g/mihomo"},
			  "bwrapPath": "/g/bwrap", "extraArgs": ["--g"],
			  "approvalRules": [{"action": "allow", "pattern": "git status *"}]}`,
			`{"fs": {"mode": "workspace-write", "extraWritablePaths": ["~/.config"]},
			  "network": {"allowlist": ["gitlab.com"]},
			  "extraArgs": ["--p"],
			  "approvalRules": [{"action": "deny", "pattern": "git push *"}]}`, nil,
			`{"fs": {"mode": "workspace-write", "writablePaths": [".", "/tmp"], "extraWritablePaths": ["~/.cache", "~/.config"], "denyPaths": ["~/.ssh/"]},
			  "network": {"mode": "limited", "allowlist": ["gitlab.com"], "mihomoPath": "/g/mihomo"},
			  "bwrapPath": "/g/bwrap", "extraArgs": ["--p"],
			  "approvalRules": [{"action": "allow", "pattern": "git status *"}, {"action": "deny", "pattern": "git push *"}]}`},
		{"sandbox project without the key keeps global", Sandbox,
			`{"fs": {"denyPaths": ["/a"]}, "bwrapPath": "/g"}`, `{"fs": {"mode": "readonly"}}`, nil,
			`{"fs": {"denyPaths": ["/a"], "mode": "readonly"}, "bwrapPath": "/g"}`},
		{"lsp top level replace, servers by id, watch per field", LSP,
			`{"enabled": ["gopls", "ts"], "maxOpenDocuments": 10, "initializeTimeoutMs": "5s",
			  "servers": {"gopls": {"bin": "gopls", "args": ["serve"], "include": ["**/*.go"]}, "ts": {"bin": "tsls"}},
			  "watch": {"enabled": true, "debounceMs": 1000, "ignore": [".git", "node_modules"]}}`,
			`{"maxOpenDocuments": 20,
			  "servers": {"gopls": {"bin": "/opt/gopls"}, "py": {"bin": "pyright"}},
			  "watch": {"enabled": false, "maxBatch": 100, "ignore": ["node_modules", "dist"]}}`, nil,
			`{"enabled": ["gopls", "ts"], "maxOpenDocuments": 20, "initializeTimeoutMs": "5s",
			  "servers": {"gopls": {"bin": "/opt/gopls"}, "ts": {"bin": "tsls"}, "py": {"bin": "pyright"}},
			  "watch": {"enabled": false, "debounceMs": 1000, "maxBatch": 100, "ignore": [".git", "node_modules", "dist"]}}`},
		{"lsp project without servers or watch keeps global", LSP,
			`{"servers": {"a": {"bin": "a", "args": ["x"]}}, "watch": {"ignore": ["x"]}}`, `{"disabled": ["a"]}`, nil,
			`{"servers": {"a": {"bin": "a", "args": ["x"]}}, "watch": {"ignore": ["x"]}, "disabled": ["a"]}`},
		{"untrusted project not applied", Settings,
			`{"theme": "dark"}`, `{"theme": "light"}`, ptr(false),
			`{"theme": "dark"}`},
		{"untrusted by default (ask, no terminal)", Sandbox,
			`{"fs": {"mode": "readonly"}}`, `{"fs": {"mode": "allow-all"}}`, nil,
			`{"fs": {"mode": "readonly"}}`},
		{"a layer with errors is left out", Sandbox,
			`{"fs": {"mode": "readonly"}}`, `{"fs": {"mode": 42}}`, ptr(true),
			`{"fs": {"mode": "readonly"}}`},
		{"a foreign dialect is left out", LSP,
			`{"servers": {"a": {"bin": "a"}}}`, `{"servers": [{"name": "x"}]}`, ptr(true),
			`{"servers": {"a": {"bin": "a"}}}`},
		{"no layer at all", Models, ``, ``, nil, `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, proj := t.TempDir(), t.TempDir()
			if c.global != "" {
				write(t, filepath.Join(home, ".pi", "agent", FileName(c.kind)), c.global)
			}
			if c.project != "" {
				write(t, filepath.Join(proj, ".pi", FileName(c.kind)), c.project)
			}
			approve := c.approve
			if approve == nil && c.name != "untrusted by default (ask, no terminal)" {
				approve = ptr(true)
			}
			cfg := load(t, home, proj, approve)
			e, err := cfg.Effective(c.kind)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decode(t, c.want), decode(t, string(e.JSON()))); diff != "" {
				t.Errorf("effective %s (-want +got):\n%s\ngot %s", c.kind, diff, e.JSON())
			}
		})
	}
}

// TestOverlayIgnoredReasons checks that every ignored layer is listed with its reason.
func TestOverlayIgnoredReasons(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".pi", "agent", "settings.json"), `{"theme": "dark"}`)
	write(t, filepath.Join(proj, ".pi", "settings.json"), `{"theme": "light"}`)
	write(t, filepath.Join(home, ".pi", "agent", "bwrap.json"), `{"mode": "readonly"}`)
	write(t, filepath.Join(proj, ".pi", "sandbox.json"), `{"mode": "readonly"}`)
	cfg := load(t, home, proj, ptr(false))
	reasons := func(k Kind) []string {
		e, err := cfg.Effective(k)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ig := range e.Ignored {
			out = append(out, filepath.Base(ig.File.Path)+": "+ig.Reason)
		}
		return out
	}
	if diff := cmp.Diff([]string{"settings.json: the project is not trusted"}, reasons(Settings)); diff != "" {
		t.Error(diff)
	}
	got := reasons(Sandbox)
	if len(got) != 2 || !strings.Contains(got[0], "bwrap.json: legacy file name") || !strings.Contains(got[1], "sandbox.json: written in another extension's format (seed-flat-bwrap)") {
		t.Errorf("sandbox reasons: %q", got)
	}
}

// TestOverlayProvenance checks blame's view of leaves: file, line, column, rule and the values
// replaced, including the reference's LSP watch example.
func TestOverlayProvenance(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	gpath := filepath.Join(home, ".pi", "agent", "lsp.json")
	ppath := filepath.Join(proj, ".pi", "lsp.json")
	write(t, gpath, "{\n  \"watch\": {\n    \"enabled\": true,\n    \"debounceMs\": 1000,\n    \"ignore\": [\".git\", \"node_modules\"]\n  },\n  \"servers\": {\"gopls\": {\"bin\": \"gopls\", \"args\": [\"serve\"]}}\n}\n")
	write(t, ppath, "{\n  \"watch\": {\n    \"enabled\": false,\n    \"maxBatch\": 100,\n    \"ignore\": [\"node_modules\", \"dist\"]\n  },\n  \"servers\": {\n    \"gopls\": {\"bin\": \"/opt/gopls\"}\n  }\n}\n")
	cfg := load(t, home, proj, ptr(true))
	e, err := cfg.Effective(LSP)
	if err != nil {
		t.Fatal(err)
	}
	leaves, ok := e.Blame(nil)
	if !ok {
		t.Fatal("no leaves")
	}
	type row struct {
		Path, Value, File string
		Line, Col         int
		Rule              string
		Replaced          []string
	}
	var got []row
	for _, l := range leaves {
		r := row{l.Path, string(l.Value), filepath.Base(filepath.Dir(l.File)), l.Line, l.Column, l.Rule, nil}
		for _, rp := range l.Replaced {
			r.Replaced = append(r.Replaced, string(rp.Value)+"@"+filepath.Base(filepath.Dir(rp.File))+":"+itoa(rp.Line))
		}
		got = append(got, r)
	}
	want := []row{
		{"watch.enabled", "false", ".pi", 3, 16, RuleReplace, []string{"true@agent:3"}},
		{"watch.debounceMs", "1000", "agent", 4, 19, RuleOnly, nil},
		{"watch.ignore[0]", `".git"`, "agent", 5, 16, RuleUnion, nil},
		{"watch.ignore[1]", `"node_modules"`, "agent", 5, 24, RuleUnion, nil},
		{"watch.ignore[2]", `"dist"`, ".pi", 5, 32, RuleUnion, nil},
		{"watch.maxBatch", "100", ".pi", 4, 17, RuleOnly, nil},
		// A server is replaced by id: the leaves of the new entry show the whole entry it replaced.
		{"servers.gopls.bin", `"/opt/gopls"`, ".pi", 8, 22, RuleReplace, []string{`{"bin":"gopls","args":["serve"]}@agent:7`}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("blame (-want +got):\n%s", diff)
	}
	// The whole gopls entry was replaced: the entry records the global one.
	gopls := e.Lookup([]PathStep{{Key: "servers"}, {Key: "gopls"}})
	if gopls == nil || gopls.Rule != RuleReplace || len(gopls.Replaced) != 1 || string(gopls.Replaced[0].JSON()) != `{"bin":"gopls","args":["serve"]}` {
		t.Errorf("servers.gopls provenance: %+v", gopls)
	}
	if e.Root.Get("servers").Rule != RuleEntries {
		t.Errorf("servers rule = %s", e.Root.Get("servers").Rule)
	}
	// The reference's watch result, as far as the file keys go (flushMs is not configurable).
	if diff := cmp.Diff(decode(t, `{"enabled":false,"debounceMs":1000,"maxBatch":100,"ignore":[".git","node_modules","dist"]}`),
		decode(t, string(e.Root.Get("watch").JSON()))); diff != "" {
		t.Error(diff)
	}
}

// TestOverlayGlobalOnlyProvenance: a project's httpProxy is shown as ignored under "global".
func TestOverlayGlobalOnlyProvenance(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".pi", "agent", "settings.json"), `{"httpProxy": "http://g:1"}`)
	write(t, filepath.Join(proj, ".pi", "settings.json"), `{"httpProxy": "http://p:1"}`)
	e, err := load(t, home, proj, ptr(true)).Effective(Settings)
	if err != nil {
		t.Fatal(err)
	}
	leaves, _ := e.Blame([]PathStep{{Key: "httpProxy"}})
	if len(leaves) != 1 || leaves[0].Rule != RuleGlobal || leaves[0].Scope != Global || len(leaves[0].Replaced) != 1 ||
		!leaves[0].Replaced[0].Ignored || string(leaves[0].Replaced[0].Value) != `"http://p:1"` {
		t.Errorf("httpProxy blame: %+v", leaves)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
