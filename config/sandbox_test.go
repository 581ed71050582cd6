package config_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// sbTree writes a global sandbox file (home/.pi/agent/NAME) and a project one (proj/.pi/NAME),
// each only when its text is not empty, and returns the root.
func sbTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, text := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func sbLoad(t *testing.T, root string, approve bool) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.Options{
		Home:       filepath.Join(root, "home"),
		ProjectDir: filepath.Join(root, "proj"),
		Approve:    &approve,
		Getenv:     func(string) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const (
	globalSB  = "home/.pi/agent/sandbox.json"
	projectSB = "proj/.pi/sandbox.json"
)

// The two layers used by most cases; positions below refer to these texts.
const globalText = `{
  // global policy
  "fs": {"mode": "readonly", "extraWritablePaths": ["~/.cache"], "denyPaths": ["~/.ssh/"]},
  "network": {"mode": "block"},
  "approvalRules": [
    {"action": "deny", "pattern": "git push *"},
    {"action": "allow", "pattern": "ls *"},
  ],
}`

const projectText = `{
  "fs": {"mode": "workspace-write", "extraWritablePaths": ["build"]},
  "approvalRules": [{"action": "allow", "pattern": "git push *"}]
}`

func TestSandboxPolicyMerge(t *testing.T) {
	type ignored struct{ File, Reason string }
	cases := []struct {
		name     string
		files    map[string]string
		approve  bool
		want     func(root string) sandbox.Policy
		ignored  []ignored
		errMatch string
		errCode  string
	}{
		{
			name:    "no files: the reference defaults",
			approve: true,
			want:    func(string) sandbox.Policy { return sandbox.DefaultPolicy() },
		},
		{
			name:    "global only, with rule origins",
			files:   map[string]string{globalSB: globalText},
			approve: true,
			want: func(root string) sandbox.Policy {
				g := filepath.Join(root, globalSB)
				p := sandbox.DefaultPolicy()
				p.FSMode = "readonly"
				p.ExtraWritablePaths = []string{"~/.cache"}
				p.DenyPaths = []string{"~/.ssh/"}
				p.ApprovalRules = []sandbox.Rule{
					{Action: "deny", Pattern: "git push *", Origin: sandbox.Origin{File: g, Line: 6, Column: 35}},
					{Action: "allow", Pattern: "ls *", Origin: sandbox.Origin{File: g, Line: 7, Column: 36}},
				}
				return p
			},
		},
		{
			name:    "trusted project: replace fs.mode, keep the rest, concatenate extras and rules",
			files:   map[string]string{globalSB: globalText, projectSB: projectText},
			approve: true,
			want: func(root string) sandbox.Policy {
				g, pr := filepath.Join(root, globalSB), filepath.Join(root, projectSB)
				p := sandbox.DefaultPolicy()
				p.FSMode = "workspace-write"
				p.ExtraWritablePaths = []string{"~/.cache", "build"}
				p.DenyPaths = []string{"~/.ssh/"}
				p.ApprovalRules = []sandbox.Rule{
					{Action: "deny", Pattern: "git push *", Origin: sandbox.Origin{File: g, Line: 6, Column: 35}},
					{Action: "allow", Pattern: "ls *", Origin: sandbox.Origin{File: g, Line: 7, Column: 36}},
					{Action: "allow", Pattern: "git push *", Origin: sandbox.Origin{File: pr, Line: 3, Column: 52}},
				}
				return p
			},
		},
		{
			name:    "untrusted project is ignored",
			files:   map[string]string{globalSB: globalText, projectSB: projectText},
			approve: false,
			want: func(root string) sandbox.Policy {
				g := filepath.Join(root, globalSB)
				p := sandbox.DefaultPolicy()
				p.FSMode = "readonly"
				p.ExtraWritablePaths = []string{"~/.cache"}
				p.DenyPaths = []string{"~/.ssh/"}
				p.ApprovalRules = []sandbox.Rule{
					{Action: "deny", Pattern: "git push *", Origin: sandbox.Origin{File: g, Line: 6, Column: 35}},
					{Action: "allow", Pattern: "ls *", Origin: sandbox.Origin{File: g, Line: 7, Column: 36}},
				}
				return p
			},
			ignored: []ignored{{projectSB, "the project is not trusted"}},
		},
		{
			name: "project replaces network and paths, bwrapPath and extraArgs",
			files: map[string]string{
				globalSB:  `{"network": {"mode": "limited", "allowlist": ["a.com"]}, "fs": {"writablePaths": ["."]}}`,
				projectSB: `{"network": {"allowlist": ["b.com", "*.c.org:443"]}, "fs": {"writablePaths": ["/srv"], "denyPaths": [".env"]}, "bwrapPath": "/opt/bwrap", "extraArgs": ["--cap-drop", "ALL"]}`,
			},
			approve: true,
			want: func(string) sandbox.Policy {
				p := sandbox.DefaultPolicy()
				p.NetMode = "limited"
				p.Allowlist = []string{"b.com", "*.c.org:443"}
				p.WritablePaths = []string{"/srv"}
				p.DenyPaths = []string{".env"}
				p.BwrapPath = "/opt/bwrap"
				p.ExtraArgs = []string{"--cap-drop", "ALL"}
				return p
			},
		},
		{
			name:    "foreign dialect is not applied: defaults",
			files:   map[string]string{globalSB: `{"enabled": true, "filesystem": {"denyRead": ["~/.ssh"]}, "network": {"allowedDomains": ["x.com"]}}`},
			approve: true,
			want:    func(string) sandbox.Policy { return sandbox.DefaultPolicy() },
			ignored: []ignored{{globalSB, "written in another extension's format (sandbox-runtime)"}},
		},
		{
			name:    "legacy bwrap.json is not applied: defaults",
			files:   map[string]string{"home/.pi/agent/bwrap.json": `{"mode": "readonly"}`},
			approve: true,
			want:    func(string) sandbox.Policy { return sandbox.DefaultPolicy() },
			ignored: []ignored{{"home/.pi/agent/bwrap.json", "legacy file name (pigo reads sandbox.json)"}},
		},
		{
			name:     "a global layer with errors refuses the policy",
			files:    map[string]string{globalSB: `{"fs": {"mode": "open"}}`},
			approve:  true,
			errMatch: `Invalid bwrap configuration at ROOT/home/.pi/agent/sandbox.json: 1:17: `,
		},
		{
			name:     "a trusted project with a bad allowlist refuses the policy",
			files:    map[string]string{projectSB: `{"network": {"allowlist": ["*"]}}`},
			approve:  true,
			errMatch: `Invalid bwrap configuration at ROOT/proj/.pi/sandbox.json: 1:28: Invalid allowlist entry "*"`,
		},
		{
			name:    "an untrusted project with errors is just ignored",
			files:   map[string]string{projectSB: `{"fs": {"mode": "open"}}`},
			approve: false,
			want:    func(string) sandbox.Policy { return sandbox.DefaultPolicy() },
			ignored: []ignored{{projectSB, "the project is not trusted"}},
		},
		{
			name:     "a syntax error refuses the policy",
			files:    map[string]string{globalSB: `{"fs": `},
			approve:  true,
			errMatch: `Invalid bwrap configuration at ROOT/home/.pi/agent/sandbox.json: 1:`,
			errCode:  "[syntax]",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := sbTree(t, tc.files)
			cfg := sbLoad(t, root, tc.approve)
			pol, eff, err := cfg.SandboxPolicy()
			if tc.errMatch != "" {
				var pe *config.PolicyError
				if !errors.As(err, &pe) {
					t.Fatalf("err = %v, want a *PolicyError", err)
				}
				want := strings.ReplaceAll(tc.errMatch, "ROOT", root)
				if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.errCode) {
					t.Fatalf("err = %q\nwant prefix %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want(root), pol, cmpopts.IgnoreFields(sandbox.Policy{}, "FSModeOrigin", "NetModeOrigin", "AgentDir")); diff != "" {
				t.Errorf("policy (-want +got):\n%s", diff)
			}
			// The agent dir is protected inside the sandbox; the modes say where they were set.
			if want := filepath.Join(root, "home", ".pi", "agent"); pol.AgentDir != want {
				t.Errorf("AgentDir = %q, want %q", pol.AgentDir, want)
			}
			if v := eff.Root.Get("fs").Get("mode"); v != nil && v.File != nil {
				if o := pol.FSModeOrigin; o.File != v.File.Path || o.Line == 0 {
					t.Errorf("FSModeOrigin = %+v, want in %s", o, v.File.Path)
				}
			} else if pol.FSModeOrigin != (sandbox.Origin{}) {
				t.Errorf("default fs.mode has origin %+v", pol.FSModeOrigin)
			}
			var got []ignored
			for _, ig := range eff.Ignored {
				rel, _ := filepath.Rel(root, ig.File.Path)
				got = append(got, ignored{filepath.ToSlash(rel), ig.Reason})
			}
			if diff := cmp.Diff(tc.ignored, got); diff != "" {
				t.Errorf("ignored (-want +got):\n%s", diff)
			}
		})
	}
}

// codes returns "file:line:col code path: message" for the diagnostics with the given codes.
func codes(t *testing.T, cfg *config.Config, root string, want ...string) []string {
	t.Helper()
	var out []string
	for _, d := range cfg.Check() {
		for _, c := range want {
			if d.Code != c {
				continue
			}
			rel, _ := filepath.Rel(root, d.File())
			line, col := d.Pos()
			out = append(out, fmt.Sprintf("%s:%d:%d %s %s %s: %s", filepath.ToSlash(rel), line, col, d.Severity, d.Code, d.Path, d.Message))
		}
	}
	return out
}

func TestSandboxWidening(t *testing.T) {
	const w = "warning sandbox-widened "
	cases := []struct {
		name    string
		global  string
		project string
		approve bool
		want    []string
	}{
		{
			name:    "modes looser than the defaults",
			project: `{"fs": {"mode": "allow-all"}, "network": {"mode": "limited"}}`,
			approve: true,
			want: []string{
				`proj/.pi/sandbox.json:1:17 ` + w + `fs.mode: the project widens the sandbox: fs.mode "allow-all" is looser than "workspace-write" (the default)`,
				`proj/.pi/sandbox.json:1:51 ` + w + `network.mode: the project widens the sandbox: network.mode "limited" is looser than "block" (the default)`,
			},
		},
		{
			name:    "tighter or equal modes are not widenings",
			global:  `{"fs": {"mode": "workspace-write"}, "network": {"mode": "limited"}}`,
			project: `{"fs": {"mode": "readonly", "writablePaths": ["/elsewhere"]}, "network": {"mode": "limited"}}`,
			approve: true,
		},
		{
			name:    "looser than the global file",
			global:  `{"fs": {"mode": "readonly"}}`,
			project: `{"fs": {"mode": "workspace-write"}}`,
			approve: true,
			want: []string{
				`proj/.pi/sandbox.json:1:17 ` + w + `fs.mode: the project widens the sandbox: fs.mode "workspace-write" is looser than "readonly" (the global sandbox.json)`,
			},
		},
		{
			name:   "paths, allowlist and allow rules added; denyPaths dropped",
			global: `{"fs": {"writablePaths": [".", "/tmp"], "extraWritablePaths": ["~/a"], "denyPaths": [".env", "secrets/"]}, "network": {"allowlist": ["a.com"]}, "approvalRules": [{"action": "allow", "pattern": "ls *"}]}`,
			project: `{
  "fs": {"writablePaths": ["./", "/srv"], "extraWritablePaths": ["~/a", "~/b"], "denyPaths": [".env"]},
  "network": {"allowlist": ["a.com", "b.com"]},
  "approvalRules": [{"action": "deny", "pattern": "rm *"}, {"action": "allow", "pattern": "make *"}, {"action": "allow", "pattern": "ls *"}]
}`,
			approve: true,
			want: []string{
				`proj/.pi/sandbox.json:2:34 ` + w + `fs.writablePaths[1]: the project widens the sandbox: fs.writablePaths adds "/srv" (not writable in the global sandbox.json)`,
				`proj/.pi/sandbox.json:2:73 ` + w + `fs.extraWritablePaths[1]: the project widens the sandbox: fs.extraWritablePaths adds "~/b" (writable in every fs mode)`,
				`proj/.pi/sandbox.json:2:94 ` + w + `fs.denyPaths: the project widens the sandbox: fs.denyPaths drops "secrets/" (hidden in the global sandbox.json)`,
				`proj/.pi/sandbox.json:3:38 ` + w + `network.allowlist[1]: the project widens the sandbox: network.allowlist adds "b.com"`,
				`proj/.pi/sandbox.json:4:91 ` + w + `approvalRules[1].pattern: the project widens the sandbox: approval rule allows "make *" to run unsandboxed`,
			},
		},
		{
			name:    "bwrapPath and extraArgs changed",
			global:  `{"extraArgs": ["--cap-drop", "ALL"]}`,
			project: `{"bwrapPath": "/opt/bwrap", "extraArgs": []}`,
			approve: true,
			want: []string{
				`proj/.pi/sandbox.json:1:15 ` + w + `bwrapPath: the project widens the sandbox: bwrapPath "/opt/bwrap" replaces the bwrap found on PATH`,
				`proj/.pi/sandbox.json:1:42 ` + w + `extraArgs: the project widens the sandbox: extraArgs [] replaces ["--cap-drop", "ALL"] (the global sandbox.json)`,
			},
		},
		{
			name:    "an untrusted project is not applied, so it widens nothing",
			project: `{"fs": {"mode": "allow-all"}}`,
			approve: false,
		},
		{
			name:    "a foreign-dialect project file is not applied",
			project: `{"enabled": true, "network": {"allowedDomains": ["*"]}}`,
			approve: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{projectSB: tc.project}
			if tc.global != "" {
				files[globalSB] = tc.global
			}
			root := sbTree(t, files)
			got := codes(t, sbLoad(t, root, tc.approve), root, "sandbox-widened")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSandboxRuleChecks(t *testing.T) {
	// Line 3: the port error sits after an escape (\u0061 is "a"), so the column maps through it.
	const text = `{
  "network": {"allowlist": ["ok.com", "*", "*foo.com", "1.2.3.4:8080",
    "ex\u0061mple.com:0", "fe80::1:80"]},
  "approvalRules": [
    {"action": "allow", "pattern": "ls && rm x"},
    {"action": "deny", "pattern": "git push *  "},
    {"action": "deny", "pattern": " rm *"},
    {"action": "allow", "pattern": "npm test"},
    {"action": "maybe", "pattern": "x"}
  ]
}`
	root := sbTree(t, map[string]string{globalSB: text})
	got := codes(t, sbLoad(t, root, true), root, "bad-allowlist", "bad-approval-rule")
	g := globalSB
	want := []string{
		g + `:2:39 error bad-allowlist network.allowlist[1]: Invalid allowlist entry "*": "*" must be followed by a domain, e.g. "*.example.com"`,
		g + `:2:44 error bad-allowlist network.allowlist[2]: Invalid allowlist entry "*foo.com": "*" must occupy the whole leftmost label, e.g. "*.example.com"`,
		g + `:3:23 error bad-allowlist network.allowlist[4]: Invalid port "0"`,
		g + `:3:27 error bad-allowlist network.allowlist[5]: Invalid allowlist entry "fe80::1:80": IPv6 addresses must be wrapped in brackets, e.g. "[<host>]:<port>"`,
		g + `:5:43 error bad-approval-rule approvalRules[0].pattern: pattern "ls && rm x" spans several commands; each command is matched on its own, so it would never match`,
		g + `:6:46 error bad-approval-rule approvalRules[1].pattern: pattern "git push *  " ends with whitespace; it would never match a command`,
		g + `:7:35 error bad-approval-rule approvalRules[2].pattern: pattern " rm *" starts with whitespace; it would never match a command`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
