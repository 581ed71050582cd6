package config

import (
	"bytes"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestEditWriteFaultKeepsOldFile injects a real write failure: with RLIMIT_FSIZE below the new
// file's size the kernel refuses the write (EFBIG; SIGXFSZ is ignored), as a full disk would.
// The old file must be intact and no temporary file may be left behind.
func TestEditWriteFaultKeepsOldFile(t *testing.T) {
	home, cfg := editHome(t, "settings.json")
	path := filepath.Join(home, ".pi", "agent", "settings.json")
	before := mustRead(t, path)
	long := `"` + strings.Repeat("x", 4096) + `"`
	ch, err := cfg.Edit(Settings, Global, EditOp{OpSet, "theme", []byte(long)})
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
