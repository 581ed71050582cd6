package jsonedit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Lock takes the edit lock of the file at path: an exclusive flock on a lock file next to it
// (".NAME.lock", created once and never removed, since removing a lock file races with the
// next locker). Every pigo edit of a file holds its lock from reading the file to writing it,
// so concurrent edits apply one after the other instead of overwriting each other. It waits up
// to timeout for another holder. unlock releases the lock.
func Lock(path string, timeout time.Duration) (unlock func(), err error) {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	name := filepath.Join(dir, "."+filepath.Base(target)+".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing the descriptor releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("%s: cannot lock: %v", name, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%s: another pigo has been editing %s for %v; try again", name, path, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
