package toolkit

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// spillFiles counts dir's files.
func spillFiles(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestPiSpillOnlyWhenTruncated: with pi's naming the full-output file is made once the output
// is truncated, as pi's OutputAccumulator makes it, and holds every byte from the first;
// output that stays under the limits never makes one (it was made at the first byte and
// removed afterwards: a file made and removed in the temp directory per command).
func TestPiSpillOnlyWhenTruncated(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		spill  bool
	}{
		{"small", []string{"a\n", "b\n", "c"}, false},
		{"exactly the limits", []string{strings.Repeat("x\n", MaxLines)}, false},
		{"bytes at the limit", []string{strings.Repeat("y", MaxBytes)}, false},
		{"one line too many", []string{strings.Repeat("x\n", MaxLines), "z"}, true},
		{"lines in pieces", func() []string {
			var c []string
			for i := 1; i <= MaxLines+5; i++ {
				c = append(c, strconv.Itoa(i)+"\n")
			}
			return c
		}(), true},
		{"one byte too many", []string{strings.Repeat("y", MaxBytes), "!"}, true},
		{"one large write", []string{strings.Repeat("long line ", 20000)}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			a := &Accumulator{SpillDir: dir, prefix: "pi-bash"}
			var all bytes.Buffer
			for i, ch := range c.chunks {
				a.Write([]byte(ch))
				all.WriteString(ch)
				if i == 0 && len(c.chunks) > 1 && spillFiles(t, dir) != 0 {
					t.Fatalf("a file after the first chunk (%d bytes)", len(ch))
				}
			}
			out := a.Finish()
			files := spillFiles(t, dir)
			if !c.spill {
				if files != 0 || out.FullOutputPath != "" || out.Truncation.Truncated {
					t.Fatalf("files %v, path %q, truncated %v", files, out.FullOutputPath, out.Truncation.Truncated)
				}
				return
			}
			if files != 1 || out.FullOutputPath == "" || !out.Truncation.Truncated {
				t.Fatalf("files %v, path %q, truncated %v", files, out.FullOutputPath, out.Truncation.Truncated)
			}
			got, err := os.ReadFile(out.FullOutputPath)
			if err != nil || !bytes.Equal(got, all.Bytes()) {
				t.Fatalf("the file holds %d bytes, the output was %d (%v)", len(got), all.Len(), err)
			}
		})
	}
	// Without pi's naming the file is made at the first byte, as before.
	dir := t.TempDir()
	a := &Accumulator{SpillDir: dir}
	a.Write([]byte("a"))
	if n := spillFiles(t, dir); n != 1 {
		t.Fatalf("%d files after the first byte, want 1", n)
	}
	a.Finish()
}
