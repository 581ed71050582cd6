package auth

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// The lock is the one pi takes (proper-lockfile): a directory named after the real path of
// auth.json plus ".lock", created with mkdir (atomic), its mtime refreshed while held, and
// taken over when older than staleAfter. pigo and pi processes therefore exclude each other.
const (
	staleAfter   = 30 * time.Second
	touchEvery   = 5 * time.Second
	lockDeadline = 30 * time.Second
)

// ErrLocked is returned when another process held auth.json's lock for the whole wait.
var ErrLocked = errors.New("another process holds the lock")

type lock struct {
	dir  string
	stop chan struct{}
	done chan struct{}
}

// acquire takes the lock of file (which must exist), waiting with backoff for another holder
// up to lockDeadline or until ctx ends.
func acquire(ctx context.Context, file string) (*lock, error) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return nil, err
	}
	dir := real + ".lock"
	deadline := time.Now().Add(lockDeadline)
	for retry := 0; ; retry++ {
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			l := &lock{dir: dir, stop: make(chan struct{}), done: make(chan struct{})}
			go l.keepFresh()
			return l, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if st, serr := os.Stat(dir); serr == nil && time.Since(st.ModTime()) > staleAfter {
			// A holder that died: take its lock over (proper-lockfile removes it and retries).
			_ = os.Remove(dir)
			continue
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, dir)
		}
		delay := min(time.Duration(10<<min(retry, 7))*time.Millisecond, time.Second)
		delay = min(time.Duration(float64(delay)*(1+rand.Float64())), left)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// keepFresh updates the lock's mtime so other processes do not take it over as stale while a
// slow refresh runs.
func (l *lock) keepFresh() {
	defer close(l.done)
	t := time.NewTicker(touchEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			now := time.Now()
			_ = os.Chtimes(l.dir, now, now)
		}
	}
}

func (l *lock) release() {
	close(l.stop)
	<-l.done
	_ = os.Remove(l.dir)
}
