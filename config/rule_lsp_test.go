package config_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lspCodes are the diagnostics checkLSPRules produces.
var lspCodes = map[string]bool{"bad-glob": true, "bad-duration": true, "lsp-exclusive": true, "lsp-unknown-server": true, "legacy-shape": true}

func TestLSPRules(t *testing.T) {
	yes := true
	tests := []struct {
		name    string
		global  string
		project string
		approve *bool
		// want: "scope:line:col severity code: message" (scope g or p)
		want []string
	}{
		{
			name: "clean",
			global: `{"servers": {"gopls": {"bin": "gopls", "include": ["**/*.go", "!**/*_test.go"], "rootMarkers": ["go.mod"]}},
 "enabled": ["gopls"], "initializeTimeoutMs": "5s", "watch": {"debounceMs": 300, "ignore": ["dist/**"]}}`,
		},
		{
			name:   "bad glob: at the end of the string when the pattern is cut short",
			global: "{\"servers\": {\"a\": {\"include\": [\n  \"**/*.go\",\n  \"src/{a,b\"\n]}}}",
			want:   []string{"g:3:12 error bad-glob: invalid glob \"src/{a,b\": unclosed `{`"},
		},
		{
			name:   "bad glob: escapes inside the string are mapped back to bytes",
			global: "{\"servers\": {\"a\": {\"include\": [\"\\u0061/[\"]}}}",
			want:   []string{`g:1:41 error bad-glob: invalid glob "a/[": unexpected end of input`},
		},
		{
			name:   "bad glob: a problem mid-string, after an escape",
			global: "{\"servers\": {\"a\": {\"include\": [\"\\t[b-a]x\"]}}}",
			want:   []string{`g:1:40 error bad-glob: invalid glob "\t[b-a]x": range hi character is less than lo`},
		},
		{
			name:   "bad glob in watch.ignore",
			global: `{"watch": {"ignore": ["[z-"]}}`,
			want:   []string{`g:1:27 error bad-glob: invalid glob "[z-": unexpected end of input`},
		},
		{
			name:   "bad durations are warnings: the default is used",
			global: "{\n  \"diagnosticsDebounceMs\": \"soon\",\n  \"initializeTimeoutMs\": \"0\",\n  \"watch\": {\"debounceMs\": \"1x\"},\n  \"diagnosticsFullWaitTimeoutMs\": \"1.5s\"\n}",
			want: []string{
				`g:2:28 warning bad-duration: diagnosticsDebounceMs: invalid duration "soon": expected a number of milliseconds or a number with a unit ms, s, m or h (e.g. "300ms", "5s"); the default (150ms) is used`,
				`g:3:26 warning bad-duration: initializeTimeoutMs: invalid duration "0": must be at least 1ms; the default (45000ms) is used`,
				`g:4:27 warning bad-duration: watch.debounceMs: invalid duration "1x": expected a number of milliseconds or a number with a unit ms, s, m or h (e.g. "300ms", "5s"); the default (300ms) is used`,
			},
		},
		{
			name:   "workingDir and rootMarkers: at the second key",
			global: "{\"servers\": {\n  \"a\": {\"rootMarkers\": [], \"workingDir\": \"sub\"},\n  \"b\": {\"workingDir\": \"x\",\n        \"rootMarkers\": [\"go.mod\"]}\n}}",
			want: []string{
				`g:2:28 error lsp-exclusive: lsp.json: server "a": workingDir and rootMarkers are mutually exclusive`,
				`g:4:9 error lsp-exclusive: lsp.json: server "b": workingDir and rootMarkers are mutually exclusive`,
			},
		},
		{
			name:   "unknown id in enabled: each at its element",
			global: `{"servers": {"gopls": {"bin": "gopls"}}, "enabled": ["nope", "gopls", "zz"]}`,
			want: []string{
				`g:1:54 error lsp-unknown-server: lsp.json: unknown server id in enabled: nope (available: gopls)`,
				`g:1:71 error lsp-unknown-server: lsp.json: unknown server id in enabled: zz (available: gopls)`,
			},
		},
		{
			name:    "enabled may name a server of the other layer",
			global:  `{"servers": {"gopls": {"bin": "gopls"}}}`,
			project: `{"servers": {"ts": {"bin": "tsserver"}}, "enabled": ["gopls", "ts"]}`,
			approve: &yes,
		},
		{
			name:    "global enabled naming a project server is fine when the project applies",
			global:  `{"enabled": ["ts"]}`,
			project: `{"servers": {"ts": {"bin": "tsserver"}}}`,
			approve: &yes,
		},
		{
			name:    "global enabled naming a server of an untrusted project",
			global:  `{"enabled": ["ts"]}`,
			project: `{"servers": {"ts": {"bin": "tsserver"}}}`,
			want:    []string{`g:1:14 error lsp-unknown-server: lsp.json: unknown server id in enabled: ts (available: none)`},
		},
		{
			name:   "the seed's per-server enabled",
			global: "{\"servers\": {\"a\": {\"bin\": \"x\",\n  \"enabled\": false}}}",
			want:   []string{`g:2:3 warning legacy-shape: servers.a.enabled is the seed's older per-server switch: it is ignored`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if tt.global != "" {
				files[agentDir+"lsp.json"] = tt.global
			}
			if tt.project != "" {
				files["proj/.pi/lsp.json"] = tt.project
			}
			root := writeTree(t, files)
			cfg := loadTree(t, root, tt.approve)
			var got []string
			for _, d := range cfg.Check() {
				if !lspCodes[d.Code] {
					continue
				}
				scope := "g"
				if strings.HasPrefix(d.File(), filepath.Join(root, "proj")) {
					scope = "p"
				}
				l, c := d.Pos()
				got = append(got, fmt.Sprintf("%s:%d:%d %s %s: %s", scope, l, c, d.Severity, d.Code, d.Message))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLSPConfig(t *testing.T) {
	yes := true
	root := writeTree(t, map[string]string{
		agentDir + "lsp.json":  `{"servers": {"gopls": {"bin": "gopls", "args": ["serve"]}, "ts": {"bin": "tsserver"}}, "initializeTimeoutMs": "2s"}`,
		"proj/.pi/lsp.json":    `{"servers": {"gopls": {"bin": "/opt/gopls"}}, "disabled": ["ts"]}`,
		"proj/.pi/unused.json": `{}`,
	})
	lc, eff, err := loadTree(t, root, &yes).LSPConfig()
	if err != nil {
		t.Fatal(err)
	}
	if len(eff.Layers) != 2 {
		t.Errorf("layers = %d, want 2", len(eff.Layers))
	}
	got := fmt.Sprintf("bin=%s args=%v ids=%v disabled=%v init=%v", lc.Servers["gopls"].Bin, lc.Servers["gopls"].Args, lc.ServerIDs(), lc.Disabled, lc.Timeouts.Initialize)
	want := "bin=/opt/gopls args=[] ids=[gopls ts] disabled=[ts] init=2s"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
