package jsonc

import (
	"os"
	"path/filepath"
	"testing"
)

// seedFromFiles adds the files matching the globs (relative to this package) to a fuzz corpus,
// so that fuzzing starts from the check corpus and the examples.
func seedFromFiles(f *testing.F, globs ...string) {
	for _, g := range globs {
		names, _ := filepath.Glob(g)
		for _, name := range names {
			if data, err := os.ReadFile(name); err == nil && len(data) < 1<<16 {
				f.Add(data)
			}
		}
	}
}
