package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestEditWriteFaultKeepsOldFile injects a real write failure: with RLIMIT_FSIZE below the new
// file's size the kernel refuses the write (EFBIG; SIGXFSZ is ignored), as a full disk would.
// The old file must be intact and no temporary file may be left behind.
//
// The limit is set in a child process (this test binary running TestEditWriteFaultChild): in
// the test process itself it would also hold for the testing package's buffered action log,
// whose flush during the window failed the whole package now and then.
func TestEditWriteFaultKeepsOldFile(t *testing.T) {
	home, cfg := editHome(t, "settings.json")
	path := filepath.Join(home, ".pi", "agent", "settings.json")
	before := mustRead(t, path)
	ch, err := cfg.Edit(Settings, Global, faultEdit)
	if err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEditWriteFaultChild$", "-test.v")
	cmd.Env = append(os.Environ(), "PIGO_EDIT_FAULT_HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "write failed with EFBIG") {
		if strings.Contains(string(out), "SKIP") {
			t.Skipf("child: %s", out)
		}
		t.Fatalf("want EFBIG from the write in the child: %v\n%s", err, out)
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
	if err := ch.Write(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ch.New, mustRead(t, path)) {
		t.Error("retry did not write the change")
	}
}

// faultEdit makes the file larger than the limit the child sets.
var faultEdit = EditOp{OpSet, "theme", []byte(`"` + strings.Repeat("x", 4096) + `"`)}

// TestEditWriteFaultChild is the child of TestEditWriteFaultKeepsOldFile (it does nothing in a
// normal run): it writes the edit with RLIMIT_FSIZE below the new file's size.
func TestEditWriteFaultChild(t *testing.T) {
	home := os.Getenv("PIGO_EDIT_FAULT_HOME")
	if home == "" {
		t.Skip("run by TestEditWriteFaultKeepsOldFile")
	}
	cfg := load(t, home, t.TempDir(), nil)
	ch, err := cfg.Edit(Settings, Global, faultEdit)
	if err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	lim := syscall.Rlimit{Cur: uint64(len(ch.New) / 2), Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	err = ch.Write()
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); rerr != nil {
		t.Fatal(rerr)
	}
	if err == nil || !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("want EFBIG from the write, got %v", err)
	}
	fmt.Println("write failed with EFBIG")
}
