package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "project")
	os.MkdirAll(filepath.Join(tree, ".pi"), 0o755)
	secret := filepath.Join(root, "secret")
	os.WriteFile(secret, []byte("s3cr3t"), 0o600)
	ok := filepath.Join(tree, ".pi", "ok.json")
	os.WriteFile(ok, []byte("{}"), 0o644)
	os.Symlink(ok, filepath.Join(tree, ".pi", "inside.json"))
	os.Symlink(secret, filepath.Join(tree, ".pi", "outside.json"))
	os.Symlink("/dev/zero", filepath.Join(tree, ".pi", "zero.json"))
	fifo := filepath.Join(tree, ".pi", "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tree, ".pi", "big.json"), make([]byte, 2000), 0o644)
	within := Options{Max: 1000, Within: Real(tree), WithinName: "the project"}
	cases := map[string]string{ // file → substring of the refusal ("" = read)
		"ok.json":      "",
		"inside.json":  "",
		"outside.json": "outside the project",
		"zero.json":    "character device",
		"fifo.json":    "named pipe",
		"big.json":     "too large",
		".":            "is a directory",
	}
	for name, want := range cases {
		done := make(chan struct{})
		var data []byte
		var err error
		go func() { defer close(done); data, err = Read(filepath.Join(tree, ".pi", name), within) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: Read blocked", name)
		}
		var r *Refusal
		switch {
		case want == "" && (err != nil || string(data) != "{}"):
			t.Errorf("%s: %q, %v", name, data, err)
		case want != "" && (!errors.As(err, &r) || !strings.Contains(r.Reason, want)):
			t.Errorf("%s: got %v, want a refusal containing %q", name, err, want)
		case strings.Contains(string(data), "s3cr3t"):
			t.Errorf("%s: the secret was read", name)
		}
	}
	// Without Within, a link anywhere is followed (a user's own dotfiles).
	if data, err := Read(filepath.Join(tree, ".pi", "outside.json"), Options{}); err != nil || string(data) != "s3cr3t" {
		t.Errorf("global read: %q %v", data, err)
	}
}
