package commands

import (
	"bytes"
	"io/fs"
	"testing"
)

// TestSourceIsFS: Source gives every embedded file, byte for byte as FS.ReadFile does, and
// nothing for a name FS does not hold.
func TestSourceIsFS(t *testing.T) {
	names, err := fs.Glob(FS, "*")
	if err != nil || len(names) == 0 {
		t.Fatal(names, err)
	}
	for _, name := range names {
		want, err := FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := Source(name); got == nil || !bytes.Equal(got, want) {
			t.Errorf("Source(%q) is not the embedded file: add its //go:embed var to embed.go", name)
		}
	}
	if Source("missing.cue") != nil {
		t.Error("Source of a missing file is not nil")
	}
}
