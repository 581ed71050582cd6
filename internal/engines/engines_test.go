package engines

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain: invoked with ENGINES_TEST_LIMITS set, the test binary applies SetLimits and prints
// its limits, for TestSetLimits to read (the limits must not bound the test process itself).
func TestMain(m *testing.M) {
	if os.Getenv("ENGINES_TEST_LIMITS") != "" {
		if err := SetLimits(7*time.Second, 256<<20); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		b, _ := os.ReadFile("/proc/self/limits")
		os.Stdout.Write(b)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLocate: $PIGO_ENGINES first (an error when it names no program), then beside the
// running executable, then PATH; ErrNotFound says how to install it.
func TestLocate(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, Name)
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvPath, prog)
	if p, err := Find(); err != nil || p != prog {
		t.Fatalf("with $%s: %q %v", EnvPath, p, err)
	}
	t.Setenv(EnvPath, dir)
	if _, err := Find(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "names "+dir+", which is not a program") {
		t.Fatalf("$%s naming a directory: %v", EnvPath, err)
	}
	t.Setenv(EnvPath, "")
	t.Setenv("PATH", dir)
	if p, err := Find(); err != nil || p != prog {
		t.Fatalf("on PATH: %q %v", p, err)
	}
	if !Installed() {
		t.Fatal("Installed is false with the helper on PATH")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(filepath.Dir(exe), Name)
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := Find(); err != nil || p != beside {
		os.Remove(beside)
		t.Fatalf("beside the executable, before PATH: %q %v", p, err)
	}
	os.Remove(beside)
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "go install github.com/pigo-agent/pigo/cmd/pigo-engines@latest") {
		t.Fatalf("nowhere: %v", err)
	}
	if Installed() {
		t.Fatal("Installed is true with no helper")
	}
}

// TestCommandEnvironment: the helper gets no variable of pigo's (no credential reaches it)
// but GOMAXPROCS=1.
func TestCommandEnvironment(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, Name)
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n/usr/bin/env\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvPath, prog)
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	cmd, err := Command(t.Context(), "x")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "sk-secret") || !strings.Contains(string(out), "GOMAXPROCS=1") {
		t.Fatalf("the helper's environment:\n%s", out)
	}
}

// TestMainDispatch: the engine named first runs with the rest of the arguments; an unknown one
// is a usage error naming the engines.
func TestMainDispatch(t *testing.T) {
	var got []string
	s := map[string]Server{
		"b": func(args []string, stdin io.Reader, stdout, stderr io.Writer) int { got = args; return 3 },
		"a": func([]string, io.Reader, io.Writer, io.Writer) int { return 0 },
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"b", "x", "y"}, s, strings.NewReader(""), &out, &errb); code != 3 || strings.Join(got, ",") != "x,y" {
		t.Fatalf("b: exit %d, args %q", code, got)
	}
	if code := Main([]string{"c"}, s, strings.NewReader(""), &out, &errb); code != 64 || !strings.Contains(errb.String(), "(ENGINE: a, b)") {
		t.Fatalf("an unknown engine: exit %d, %q", code, errb.String())
	}
}

// TestSetLimits: the CPU limit (soft, hard one second more) and the address space beyond what
// the process had mapped.
func TestSetLimits(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "ENGINES_TEST_LIMITS=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var cpu, as []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "Max cpu time"):
			cpu = f[3:5]
		case strings.HasPrefix(l, "Max address space"):
			as = f[3:5]
		}
	}
	if strings.Join(cpu, " ") != "7 8" {
		t.Errorf("cpu time: %q, want 7 8", cpu)
	}
	if len(as) != 2 || as[0] != as[1] || as[0] == "unlimited" {
		t.Errorf("address space: %q", as)
	}
}

// TestErrNotFoundText: the text a tool's error and pigo tools' users read, byte for byte.
func TestErrNotFoundText(t *testing.T) {
	const want = "this needs the pigo-engines helper, which is not installed beside pigo or on PATH (go install github.com/pigo-agent/pigo/cmd/pigo-engines@latest, or set $PIGO_ENGINES)"
	if ErrNotFound.Error() != want {
		t.Fatalf("ErrNotFound:\n%s\nwant\n%s", ErrNotFound, want)
	}
}
