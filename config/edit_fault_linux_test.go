package config

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// faultChildEnv names the home a child run of TestEditWriteFaultKeepsOldFile writes into.
const faultChildEnv = "PIGO_TEST_FSIZE_FAULT_HOME"

// faultChange is the edit the fault test makes: long enough to exceed the lowered limit.
func faultChange(t *testing.T, c *Config) *Change {
	t.Helper()
	long := `"` + strings.Repeat("x", 4096) + `"`
	ch, err := c.Edit(Settings, Global, EditOp{OpSet, "theme", []byte(long)})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestEditWriteFaultKeepsOldFile injects a real write failure: with RLIMIT_FSIZE below the new
// file's size the kernel refuses the write (EFBIG; SIGXFSZ is ignored), as a full disk would.
// The old file must be intact and no temporary file may be left behind.
//
// The limit is process-wide, so it is lowered in a child process (this test binary, running
// only this test), never in the binary that runs the other tests: there a parallel write —
// the test framework's own log — failed with EFBIG and CI failed (issue 21).
func TestEditWriteFaultKeepsOldFile(t *testing.T) {
	if home := os.Getenv(faultChildEnv); home != "" {
		writeUnderFault(t, home)
		return
	}
	home, cfg := editHome(t, "settings.json")
	path := filepath.Join(home, ".pi", "agent", "settings.json")
	before := mustRead(t, path)
	cmd := exec.Command(os.Args[0], "-test.run=^TestEditWriteFaultKeepsOldFile$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), faultChildEnv+"="+home)
	out, err := cmd.CombinedOutput()
	switch {
	case bytes.Contains(out, []byte("--- SKIP")):
		t.Skipf("the child could not lower the limit:\n%s", out)
	case err != nil:
		t.Fatalf("the child run: %v\n%s", err, out)
	}
	if !bytes.Equal(before, mustRead(t, path)) {
		t.Error("the old file was damaged by a failed write")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if e.Name() != "settings.json" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	// The same change goes through once the fault is gone.
	ch := faultChange(t, cfg)
	if err := ch.Write(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ch.New, mustRead(t, path)) {
		t.Error("retry did not write the change")
	}
}

// writeUnderFault is the child's part: the edit written under a file size limit below its
// size must fail with EFBIG.
func writeUnderFault(t *testing.T, home string) {
	ch := faultChange(t, load(t, home, t.TempDir(), nil))
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	lim := syscall.Rlimit{Cur: uint64(len(ch.New) / 2), Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	err := ch.Write()
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); rerr != nil {
		t.Fatal(rerr)
	}
	if err == nil || !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("want EFBIG from the write, got %v", err)
	}
}
