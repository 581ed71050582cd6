package lsp

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakePlan plans the fake server (this test binary) in the given mode.
func fakePlan(t *testing.T, mode string, tweak func(*ServerPlan)) (*Plan, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	text := "line one\nline two\nline three\naé𝄞x\nlast\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := ServerPlan{
		ID: "fake", Kind: KindLanguage, Root: dir, Argv: []string{exe}, Cwd: dir,
		Env: map[string]string{"FAKE_VAR": "v1"}, LanguageID: PlainText,
		Timeouts: PlanTimeouts{StartupMs: 5000, DocumentWaitMs: 5000, SilentWaitMs: 1500, FullWaitMs: 10000, DebounceMs: 150, RequestMs: 2000},
		// atexit_sleep_ms: a race-enabled fake would otherwise linger 1s at exit.
		Environ: append(os.Environ(), "PIGO_LSP_FAKE="+mode, "FAKE_VAR=v1", "GORACE=atexit_sleep_ms=0"),
	}
	if tweak != nil {
		tweak(&sp)
	}
	return &Plan{File: file, Servers: []ServerPlan{sp}}, file
}

func messages(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

func TestFakeServerConversation(t *testing.T) {
	plan, _ := fakePlan(t, "normal", func(sp *ServerPlan) {
		sp.Settings = map[string]any{"fake": map[string]any{"opt": true}}
		sp.InitializationOptions = map[string]any{"k": "v"}
	})
	ds, err := Diagnostics(context.Background(), plan, "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	root := fileURI(filepath.Dir(plan.File))
	want := []string{
		`a.txt:1:1: error: configuration=[true,null] [fake]`,
		`a.txt:2:1: warning: registerCapability=null [fake]`,
		`a.txt:2:2: info: workDoneProgress=null [fake]`,
		`a.txt:3:1: hint: unknown-request-error=-32601 [fake]`,
		`a.txt:4:8: error: after-utf16 [fake]`,
		`a.txt:5:1: error: env=v1 [fake]`,
		`a.txt:6:1: error: init={"k":"v"} root=` + root + ` [fake]`,
		`a.txt:7:1: error: didChangeConfiguration={"fake":{"opt":true}} [fake]`,
	}
	if diff := cmp.Diff(want, messages(ds)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestFakeServerMisbehaves(t *testing.T) {
	short := func(sp *ServerPlan) {
		sp.Timeouts = PlanTimeouts{StartupMs: 1500, DocumentWaitMs: 1000, SilentWaitMs: 300, FullWaitMs: 1500, DebounceMs: 100, RequestMs: 500}
	}
	tests := []struct {
		mode    string
		wantErr string // substring; "" = no error
		wantN   int    // -1: at least one
	}{
		{"noinit", "no answer to initialize within 1.5s", 0},
		{"malformed", `invalid Content-Length "abc"`, 0},
		{"badjson", "body is not a JSON-RPC message", 0},
		{"crash", "server stopped (exit status 3): the server closed its output; server stderr: boom: fake crash", 0},
		{"flood", "", -1},
		{"silent", "", 0},
		{"hangshutdown", "shutdown:", 0},
		{"late", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			plan, _ := fakePlan(t, tt.mode, short)
			switch tt.mode {
			case "late":
				plan.Servers[0].Timeouts.SilentWaitMs = 5000
			case "flood":
				// The shutdown answer queues behind the flood: give it time.
				plan.Servers[0].Timeouts.RequestMs = 10000
			}
			ds, err := Diagnostics(context.Background(), plan, "a.txt")
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
			if tt.wantErr != "" && !strings.HasPrefix(err.Error(), `server "fake": `) {
				t.Errorf("error %q does not name the server", err)
			}
			if tt.wantN >= 0 && len(ds) != tt.wantN {
				t.Errorf("got %d diagnostics %v, want %d", len(ds), messages(ds), tt.wantN)
			}
			if tt.wantN < 0 && len(ds) == 0 {
				t.Errorf("got no diagnostics")
			}
			if tt.mode == "late" && len(ds) == 1 && ds[0].Message != "late" {
				t.Errorf("got %v, want the late publish", messages(ds))
			}
		})
	}
}

func TestStartMissingBinary(t *testing.T) {
	_, err := Start(context.Background(), &ServerPlan{ID: "x", Argv: []string{"/nonexistent/server"}, Cwd: t.TempDir(),
		Timeouts: PlanTimeouts{StartupMs: 1000, RequestMs: 500}})
	if err == nil || !strings.Contains(err.Error(), "starting /nonexistent/server") {
		t.Fatalf("err = %v", err)
	}
}

func TestDiagnosticsContextCancel(t *testing.T) {
	plan, _ := fakePlan(t, "silent", nil)
	ctx, cancel := context.WithCancel(context.Background())
	plan.Servers[0].Timeouts.DocumentWaitMs = 60000
	plan.Servers[0].Timeouts.FullWaitMs = 60000
	done := make(chan error, 1)
	go func() { _, err := Diagnostics(ctx, plan, "a.txt"); done <- err }()
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled (or nil if cancelled before the wait)", err)
	}
}

// findGopls returns gopls from PATH or $(go env GOPATH)/bin.
func findGopls(t *testing.T) string {
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "gopls")
		if isExecutable(p) {
			return p
		}
	}
	t.Skip("gopls not found on PATH or in $(go env GOPATH)/bin; install it with: go install golang.org/x/tools/gopls@v0.23.0 (the version .ci/run installs)")
	return ""
}

func TestGoplsTypeError(t *testing.T) {
	if testing.Short() {
		t.Skip("starts gopls")
	}
	gopls := findGopls(t)
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("main.go", "package main\n\nfunc main() {\n\tvar n int = \"text\"\n\t_ = n\n}\n")
	cfg, err := ParseConfig([]byte(`{"servers": {"gopls": {"bin": "` + gopls + `", "include": ["**/*.go"], "rootMarkers": ["go.mod"],
		"diagnosticsWaitMs": "30s", "initializeTimeoutMs": 60000}}, "diagnosticsFullWaitTimeoutMs": "60s", "initializeTimeoutMs": "60s"}`))
	if err != nil {
		t.Fatal(err)
	}
	env := OSEnv()
	env["GOFLAGS"] = "-mod=mod"
	plan, err := cfg.Plan(dir, "main.go", env)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Servers) != 1 {
		t.Fatalf("plan: %+v", plan)
	}
	ds, err := Diagnostics(context.Background(), plan, "main.go")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ds {
		if d.Severity == "error" {
			got = append(got, d.String())
		}
	}
	if len(got) == 0 {
		t.Fatalf("no error diagnostics; all: %v", messages(ds))
	}
	// `var n int = "text"`: the string literal is at line 4, byte column 14.
	if !strings.HasPrefix(got[0], "main.go:4:14: error: ") || !strings.HasSuffix(got[0], " [gopls]") {
		t.Errorf("got %q, want main.go:4:14: error: ... [gopls]", got[0])
	}
}
