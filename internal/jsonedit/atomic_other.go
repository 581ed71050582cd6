//go:build !linux

package jsonedit

import (
	"io/fs"
	"os"
)

// commit puts tmp at target, checking just before that target is still the file that was read.
func commit(tmp, target string, old *state) error {
	if old == nil {
		if _, err := os.Lstat(target); err == nil {
			return ErrChanged
		}
	} else if !old.same(target) {
		return ErrChanged
	}
	return os.Rename(tmp, target)
}

func links(fs.FileInfo) uint64 { return 1 }

func keepOwner(*os.File, fs.FileInfo) error { return nil }
