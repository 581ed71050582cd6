package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree creates files (a trailing "/" makes a directory; "*x" an executable
// script) under a new temp dir and returns it.
func tree(t *testing.T, paths ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range paths {
		exe := strings.HasPrefix(p, "*")
		p = strings.TrimPrefix(p, "*")
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if exe {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mustParse parses js as the config of a trusted project (TestPlanUntrusted covers the rest).
func mustParse(t *testing.T, js string) *Config {
	t.Helper()
	c, err := ParseConfig([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	c.ProjectTrusted = true
	return c
}

// outcome summarises a plan as "id:root" for servers and "id!reason" for
// skipped ones, with the temp dir replaced by "/ws".
func outcome(p *Plan, ws string) []string {
	var out []string
	for _, s := range p.Servers {
		out = append(out, s.ID+":"+strings.Replace(s.Root, ws, "/ws", 1))
	}
	for _, s := range p.Skipped {
		out = append(out, s.ID+"!"+strings.ReplaceAll(s.Reason, ws, "/ws"))
	}
	return out
}

func TestPlanSelection(t *testing.T) {
	ws := tree(t, "*bin/srv", "go.mod", "src/main.go", "src/main_test.go", "other/x.go",
		"mod/sub/go.mod", "mod/sub/pkg/a.go", "mod/go.work", "web/package.json", "web/src/app.ts")
	srv := filepath.Join(ws, "bin/srv")
	tests := []struct {
		name    string
		servers string // JSON of the servers object; bin is added
		top     string // extra top-level JSON members
		cwd     string // relative to ws
		file    string // relative to cwd
		want    []string
	}{
		{"no include = all files", `{"a": {}}`, ``, ``, `src/main.go`, []string{"a:/ws"}},
		{"include with negation", `{"a": {"include": ["**/*.go", "!**/*_test.go"]}}`, ``, ``, `src/main_test.go`,
			[]string{`a!include ["**/*.go" "!**/*_test.go"] does not match the file`}},
		{"include positive", `{"a": {"include": ["**/*.go", "!**/*_test.go"]}}`, ``, ``, `src/main.go`, []string{"a:/ws"}},
		{"only negatives means **", `{"a": {"include": ["!other/**"]}}`, ``, ``, `src/main.go`, []string{"a:/ws"}},
		{"only negatives exclude", `{"a": {"include": ["!other/**"]}}`, ``, ``, `other/x.go`, []string{`a!include ["!other/**"] does not match the file`}},
		{"src/** matches", `{"a": {"include": ["src/**"]}}`, ``, ``, `src/main.go`, []string{"a:/ws"}},
		{"src/** does not match other", `{"a": {"include": ["src/**"]}}`, ``, ``, `other/x.go`, []string{`a!include ["src/**"] does not match the file`}},
		{"* does not cross /", `{"a": {"include": ["*.go"]}}`, ``, ``, `src/main.go`, []string{`a!include ["*.go"] does not match the file`}},
		{"braces and classes", `{"a": {"include": ["src/*.{go,ts}", "[ow]ther/?.go"]}}`, ``, ``, `other/x.go`, []string{"a:/ws"}},
		{"# is a comment", `{"a": {"include": ["#**"]}}`, ``, ``, `src/main.go`, []string{"a:/ws"}},
		{"include relative to root or cwd", `{"a": {"include": ["pkg/*.go"], "rootMarkers": ["go.mod"]}}`, ``, `mod`, `sub/pkg/a.go`, []string{"a:/ws/mod/sub"}},
		{"include relative to cwd", `{"a": {"include": ["sub/pkg/*.go"], "rootMarkers": ["go.mod"]}}`, ``, `mod`, `sub/pkg/a.go`, []string{"a:/ws/mod/sub"}},
		{"rootMarkers: outermost match", `{"a": {"rootMarkers": ["go.mod"]}}`, ``, ``, `mod/sub/pkg/a.go`, []string{"a:/ws"}},
		{"rootMarkers: walk down from cwd", `{"a": {"rootMarkers": ["go.mod", "go.work"]}}`, ``, `mod`, `sub/pkg/a.go`, []string{"a:/ws/mod"}},
		{"rootMarkers: deeper", `{"a": {"rootMarkers": ["go.mod"]}}`, ``, `mod`, `sub/pkg/a.go`, []string{"a:/ws/mod/sub"}},
		{"rootMarkers: directory marker", `{"a": {"rootMarkers": ["src"]}}`, ``, `web`, `src/app.ts`, []string{"a:/ws/web"}},
		{"rootMarkers: none -> cwd", `{"a": {"rootMarkers": ["Cargo.toml"]}}`, ``, `web`, `src/app.ts`, []string{"a:/ws/web"}},
		{"rootMarkers: no glob", `{"a": {"rootMarkers": ["*.json"]}}`, ``, `web`, `src/app.ts`, []string{"a:/ws/web"}},
		{"file outside cwd", `{"a": {"rootMarkers": ["go.mod"]}}`, ``, `web`, `../src/main.go`, []string{"a!file is outside the working directory /ws/web"}},
		{"workingDir relative", `{"a": {"workingDir": "src"}}`, ``, ``, `src/main.go`, []string{"a:/ws/src"}},
		{"workingDir limits the root", `{"a": {"workingDir": "src"}}`, ``, ``, `other/x.go`, []string{"a!file is outside the server root /ws/src"}},
		{"workingDir absolute", `{"a": {"workingDir": "` + filepath.Join(ws, "web") + `"}}`, ``, ``, `web/src/app.ts`, []string{"a:/ws/web"}},
		{"enabled whitelist", `{"a": {}, "b": {}}`, `"enabled": ["b"],`, ``, `src/main.go`, []string{"b:/ws", "a!not listed in enabled"}},
		{"empty enabled = none", `{"a": {}}`, `"enabled": [],`, ``, `src/main.go`, []string{"a!not listed in enabled"}},
		{"disabled", `{"a": {}, "b": {}}`, `"disabled": ["a", "nope"],`, ``, `src/main.go`, []string{"b:/ws", "a!listed in disabled"}},
		{"servers in id order", `{"z": {}, "m": {}, "a": {}}`, ``, ``, `src/main.go`, []string{"a:/ws", "m:/ws", "z:/ws"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var servers map[string]map[string]any
			if err := json.Unmarshal([]byte(tt.servers), &servers); err != nil {
				t.Fatal(err)
			}
			for _, s := range servers {
				s["bin"] = srv
			}
			sj, _ := json.Marshal(servers)
			c := mustParse(t, `{`+tt.top+`"servers":`+string(sj)+`}`)
			p, err := c.Plan(filepath.Join(ws, tt.cwd), tt.file, Env{"PATH": ""})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, outcome(p, ws)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanUnknownEnabled(t *testing.T) {
	c := mustParse(t, `{"enabled": ["nope"], "servers": {"pyright": {"bin": "x"}}}`)
	_, err := c.Plan(t.TempDir(), "a.py", Env{})
	if err == nil || err.Error() != "lsp.json: unknown server id in enabled: nope (available: pyright)" {
		t.Fatalf("err = %v", err)
	}
}

func TestPlanBin(t *testing.T) {
	ws := tree(t, "*tools/srv", "*node_modules/.bin/tsls", "*sub/.venv/bin/pyls", "*venv/bin/pyls", "*path1/gopls", "*path2/gopls",
		"notexec/srv", "sub/pyproject.toml", "sub/a.py", "a.go")
	tests := []struct {
		bin, cwd, file string
		want           string // path relative to ws, or "!reason"
	}{
		{filepath.Join(ws, "tools/srv"), "", "a.go", "tools/srv"},
		{filepath.Join(ws, "tools/missing"), "", "a.go", `!bin "` + filepath.Join(ws, "tools/missing") + `" not found`},
		{"tools/srv", "", "a.go", "tools/srv"},
		{"./tools/srv", "", "a.go", "tools/srv"},
		{"notexec/srv", "", "a.go", `!bin "notexec/srv" not found`},
		{"tsls", "", "a.go", "node_modules/.bin/tsls"},
		{"pyls", "", "sub/a.py", "sub/.venv/bin/pyls"}, // root (sub) before cwd
		{"pyls", "", "a.go", "venv/bin/pyls"},
		{"gopls", "", "a.go", "path1/gopls"}, // PATH order
		{"nothing", "", "a.go", `!bin "nothing" not found`},
	}
	for _, tt := range tests {
		c := mustParse(t, `{"servers": {"s": {"bin": "`+tt.bin+`", "rootMarkers": ["pyproject.toml"]}}}`)
		p, err := c.Plan(filepath.Join(ws, tt.cwd), tt.file, Env{"PATH": filepath.Join(ws, "path1") + ":" + filepath.Join(ws, "path2")})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if len(p.Servers) == 1 {
			got, _ = filepath.Rel(ws, p.Servers[0].Argv[0])
		} else {
			got = "!" + p.Skipped[0].Reason
			if !p.Skipped[0].Error {
				t.Errorf("bin %q: a missing bin should be an error skip", tt.bin)
			}
		}
		if got != tt.want {
			t.Errorf("bin %q: got %q, want %q", tt.bin, got, tt.want)
		}
	}
	c := mustParse(t, `{"servers": {"s": {}}}`)
	p, _ := c.Plan(ws, "a.go", Env{})
	if len(p.Skipped) != 1 || p.Skipped[0].Reason != "no bin configured" {
		t.Errorf("no bin: %+v", p.Skipped)
	}
}

func TestPlanEnvAndOptions(t *testing.T) {
	ws := tree(t, "*bin/srv", "pkg/go.mod", "pkg/a.go")
	script := filepath.Join(ws, "opts.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho '{\"b\": {\"y\": 2, \"z\": [1]}, \"cwd\": \"'\"$(pwd)\"'\", \"tok\": \"'\"$TOKEN\"'\", \"arg\": \"'\"$1\"'\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := mustParse(t, `{"servers": {"s": {"bin": "`+filepath.Join(ws, "bin/srv")+`", "args": ["--stdio"], "rootMarkers": ["go.mod"],
		"cwd": "{root}/..",
		"env": {"VENV": "{root}/.venv", "P": "x${PATH_SUFFIX}", "U": "${UNDEF:-fallback}", "E": "${EMPTY:-dflt}", "N": "${UNDEF}", "C": "{cwd}",
			"TOKEN": {"sh": ["sh", "-c", "printf ' secret\\n'"]}, "WHERE": {"sh": ["pwd"]}},
		"languageIdByExtension": {".go": "golang"},
		"initializationOptions": {"a": "${HOME_X}/bin", "b": {"x": "${TOKEN}", "y": 1, "list": ["${UNDEF}", 42, true]}, "root": "{root}"},
		"initializationOptionsCommand": ["`+script+`", "{root}"],
		"settings": {"s": {"k": "${NOT_INTERPOLATED}"}}}}}`)
	env := Env{"PATH": "/usr/bin:/bin", "PATH_SUFFIX": "-sfx", "EMPTY": "", "HOME_X": "/home/x"}
	p, err := c.Plan(ws, "pkg/a.go", env)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Servers) != 1 {
		t.Fatalf("plan: %+v", p)
	}
	s := p.Servers[0]
	root := filepath.Join(ws, "pkg")
	wantEnv := map[string]string{"VENV": root + "/.venv", "P": "x-sfx", "U": "fallback", "E": "dflt", "N": "", "C": ws,
		"TOKEN": "secret", "WHERE": ws}
	if diff := cmp.Diff(wantEnv, s.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	wantOpts := map[string]any{"a": "/home/x/bin", "root": "{root}",
		"b":   map[string]any{"x": "secret", "y": float64(2), "z": []any{float64(1)}, "list": []any{"", jsonNumber("42"), true}},
		"cwd": root, "tok": "secret", "arg": root}
	if diff := cmp.Diff(wantOpts, s.InitializationOptions); diff != "" {
		t.Errorf("initialization options (-want +got):\n%s", diff)
	}
	if s.Cwd != ws || s.Root != root || s.LanguageID != "golang" || s.Kind != "language" {
		t.Errorf("cwd %q root %q language %q kind %q", s.Cwd, s.Root, s.LanguageID, s.Kind)
	}
	if diff := cmp.Diff([]string{filepath.Join(ws, "bin/srv"), "--stdio"}, s.Argv); diff != "" {
		t.Errorf("argv: %s", diff)
	}
	if s.Settings["s"].(map[string]any)["k"] != "${NOT_INTERPOLATED}" {
		t.Errorf("settings were interpolated: %v", s.Settings)
	}
	if !contains(s.Environ, "TOKEN=secret") || !contains(s.Environ, "PATH_SUFFIX=-sfx") {
		t.Errorf("environ lacks the configured or the process variables: %v", s.Environ)
	}
}

func TestPlanCommandFailures(t *testing.T) {
	ws := tree(t, "*bin/srv", "a.go")
	bin := filepath.Join(ws, "bin/srv")
	tests := []struct{ server, want string }{
		{`"env": {"X": {"sh": ["sh", "-c", "echo boom >&2; exit 3"]}}`, "env X: env command failed (sh -c echo boom >&2; exit 3): exit code 3: boom"},
		{`"env": {"X": {"sh": ["sh", "-c", "echo '  '"]}}`, "env X: env command (sh -c echo '  ') produced empty output"},
		{`"env": {"X": {"sh": ["no-such-command-pigo"]}}`, `env X: env command failed (no-such-command-pigo): "no-such-command-pigo" not found in PATH`},
		{`"initializationOptionsCommand": ["sh", "-c", "exit 4"]`, "initializationOptionsCommand failed (sh -c exit 4): exit code 4: "},
		{`"initializationOptionsCommand": ["sh", "-c", "true"]`, "initializationOptionsCommand (sh -c true) produced empty output"},
		{`"initializationOptionsCommand": ["sh", "-c", "echo '[1]'"]`, "initializationOptionsCommand (sh -c echo '[1]') did not print a JSON object: got array"},
		{`"initializationOptionsCommand": ["sh", "-c", "echo '{bad'"]`, "initializationOptionsCommand (sh -c echo '{bad') did not print a JSON object: invalid character 'b'"},
		{`"initializationOptionsCommand": ["sh", "-c", "sleep 30"], "startupTimeoutMs": 300`, "initializationOptionsCommand failed (sh -c sleep 30): timed out after 300ms"},
	}
	for _, tt := range tests {
		c := mustParse(t, `{"servers": {"s": {"bin": "`+bin+`", `+tt.server+`}}}`)
		p, err := c.Plan(ws, "a.go", Env{"PATH": os.Getenv("PATH")})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Skipped) != 1 || !p.Skipped[0].Error || !strings.HasPrefix(p.Skipped[0].Reason, tt.want) {
			t.Errorf("%s:\n got %+v\nwant reason starting %q", tt.server, p.Skipped, tt.want)
		}
	}
}

func TestLanguageID(t *testing.T) {
	tests := []struct {
		file  string
		byExt map[string]string
		want  string
	}{
		{"a.go", nil, "go"},
		{"a.TS", nil, "typescript"},
		{"a.tsx", nil, "typescriptreact"},
		{"a.go", map[string]string{".go": "custom"}, "custom"},
		{"a.GO", map[string]string{".go": "custom"}, "custom"},
		{"Makefile", nil, "makefile"},
		{"x/go.mod", nil, "go.mod"},
		{"a.unknown", nil, "plaintext"},
		{"README", nil, "plaintext"},
	}
	for _, tt := range tests {
		if got := LanguageID(tt.file, tt.byExt); got != tt.want {
			t.Errorf("LanguageID(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
}

func TestPlanJSONShape(t *testing.T) {
	ws := tree(t, "*bin/srv", "a.go")
	c := mustParse(t, `{"servers": {"gopls": {"bin": "`+filepath.Join(ws, "bin/srv")+`", "env": {"K": "V"}}, "off": {"bin": "x"}}, "disabled": ["off"]}`)
	p, err := c.Plan(ws, "a.go", Env{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	got := strings.ReplaceAll(string(b), ws, "/ws")
	want := `{"file":"/ws/a.go","servers":[{"id":"gopls","kind":"language","root":"/ws","argv":["/ws/bin/srv"],"cwd":"/ws","env":{"K":"V"},"language_id":"go","timeouts":{"startup_ms":45000,"document_wait_ms":5000,"silent_wait_ms":1500,"full_wait_ms":10000,"debounce_ms":150,"request_ms":3000}}],"skipped":[{"id":"off","reason":"listed in disabled"}]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func BenchmarkPlan(b *testing.B) {
	ws := b.TempDir()
	for _, p := range []string{"bin/srv", "mod/sub/go.mod", "mod/sub/pkg/a.go"} {
		full := filepath.Join(ws, p)
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		_ = os.WriteFile(full, []byte("x"), 0o755)
	}
	c, err := ParseConfig([]byte(`{"servers": {
		"gopls": {"bin": "` + filepath.Join(ws, "bin/srv") + `", "include": ["**/*.go", "!**/*_test.go"], "rootMarkers": ["go.work", "go.mod"], "env": {"A": "{root}/${HOME:-x}"}},
		"ts": {"bin": "` + filepath.Join(ws, "bin/srv") + `", "include": ["**/*.{ts,tsx}"]},
		"py": {"bin": "` + filepath.Join(ws, "bin/srv") + `", "include": ["**/*.py"], "workingDir": "mod"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	c.ProjectTrusted = true
	env := Env{"PATH": "/usr/bin", "HOME": "/home/x"}
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Plan(ws, "mod/sub/pkg/a.go", env); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPlanUntrusted: nothing of an untrusted project runs. Bin discovery skips the project's
// bin directories, refuses bins inside the project and PATH entries inside it or relative;
// a bin installed outside the project is still found. The servers run outside the sandbox
// (the argv is the bin itself), so this is what keeps a planted node_modules/.bin/gopls out.
func TestPlanUntrusted(t *testing.T) {
	ws := tree(t, "*node_modules/.bin/gopls", "*.venv/bin/pyls", "*tools/srv", "*projbin/gopls", "a.go")
	outside := tree(t, "*bin/gopls", "*bin/pyls")
	path := filepath.Join(ws, "projbin") + ":" + "rel/bin" + "::" + filepath.Join(outside, "bin")
	tests := []struct{ bin, want string }{
		{"gopls", filepath.Join(outside, "bin/gopls")}, // not node_modules/.bin, not projbin, not "" or "rel/bin"
		{"pyls", filepath.Join(outside, "bin/pyls")},
		{"./tools/srv", `!bin "./tools/srv" is inside the project, which is not trusted: it is not run (trust the project to use it)`},
		{filepath.Join(ws, "tools/srv"), `!bin "` + filepath.Join(ws, "tools/srv") + `" is inside the project, which is not trusted: it is not run (trust the project to use it)`},
	}
	for _, trusted := range []bool{false, true} {
		for _, tt := range tests {
			c, err := ParseConfig([]byte(`{"servers": {"s": {"bin": "` + tt.bin + `"}}}`))
			if err != nil {
				t.Fatal(err)
			}
			c.ProjectTrusted = trusted
			p, err := c.Plan(ws, "a.go", Env{"PATH": path})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(p.Servers) == 1 {
				got = p.Servers[0].Argv[0]
			} else {
				got = "!" + p.Skipped[0].Reason
			}
			if !trusted && got != tt.want {
				t.Errorf("untrusted, bin %q: got %q, want %q", tt.bin, got, tt.want)
			}
			if trusted && (strings.HasPrefix(got, "!") || !strings.HasPrefix(got, ws)) {
				t.Errorf("trusted, bin %q: got %q, want the project's own", tt.bin, got)
			}
		}
	}
}

// TestPlanDefersCommands: with DeferCommands (lsp plan) no {sh} env value and no
// initializationOptionsCommand runs; they are listed instead. Without it they run.
func TestPlanDefersCommands(t *testing.T) {
	ws := tree(t, "*bin/srv", "a.go")
	marker := filepath.Join(ws, "ran")
	c := mustParse(t, `{"servers": {"s": {"bin": "`+filepath.Join(ws, "bin/srv")+`",
		"env": {"PLAIN": "{root}/x", "T": {"sh": ["sh", "-c", "touch `+marker+`; echo tok"]}},
		"initializationOptions": {"a": 1},
		"initializationOptionsCommand": ["sh", "-c", "touch `+marker+`.init; echo '{}'"]}}}`)
	c.DeferCommands = true
	p, err := c.Plan(ws, "a.go", Env{"PATH": os.Getenv("PATH")})
	if err != nil || len(p.Servers) != 1 {
		t.Fatalf("%v %+v", err, p)
	}
	for _, m := range []string{marker, marker + ".init"} {
		if _, err := os.Stat(m); err == nil {
			t.Errorf("planning ran a command (%s exists)", m)
		}
	}
	s := p.Servers[0]
	want := []string{"env T: sh -c touch " + marker + "; echo tok", "initializationOptionsCommand: sh -c touch " + marker + ".init; echo '{}'"}
	if d := cmp.Diff(want, s.Deferred); d != "" {
		t.Errorf("deferred (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"PLAIN": ws + "/x"}, s.Env); d != "" {
		t.Errorf("env (-want +got):\n%s", d)
	}
	c.DeferCommands = false
	p, _ = c.Plan(ws, "a.go", Env{"PATH": os.Getenv("PATH")})
	if len(p.Servers) != 1 || p.Servers[0].Env["T"] != "tok" || len(p.Servers[0].Deferred) != 0 {
		t.Errorf("starting plan: %+v", p)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("the start plan did not run the env command")
	}
}
