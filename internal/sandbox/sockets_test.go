package sandbox

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// freshSocketDirs is what a listing made now gives: the old code's listing, sorted.
func freshSocketDirs(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		for _, pre := range tmpSocketPrefixes {
			if strings.HasPrefix(e.Name(), pre) {
				out = append(out, dir+"/"+e.Name())
			}
		}
	}
	return out
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// timedDir is a directory on a filesystem whose times prove a kept listing (the test's temp
// directory, else /dev/shm), or the test is skipped.
func timedDir(t *testing.T) string {
	t.Helper()
	for _, base := range []string{os.TempDir(), "/dev/shm"} {
		d, err := os.MkdirTemp(base, "tmplisting-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		c := &tmpListing{dir: d}
		time.Sleep(2 * tickMargin)
		c.list()
		if c.valid {
			return d
		}
	}
	t.Skip("no directory on a filesystem with nanosecond times")
	return ""
}

// TestTmpListingKeptUntilChanged: a listing is kept while the directory is unchanged and
// dropped by every kind of change to its names; a listing made in the moment after a change
// is not kept (a later change could carry the same time).
func TestTmpListingKeptUntilChanged(t *testing.T) {
	dir := timedDir(t)
	for _, n := range []string{"tmux-0", "ssh-abc", "other", "dbus-1"} {
		must(t, os.Mkdir(filepath.Join(dir, n), 0o700))
	}
	c := &tmpListing{dir: dir}
	c.list()
	if c.valid {
		t.Fatal("a listing made just after a change was kept")
	}
	time.Sleep(2 * tickMargin)
	want := freshSocketDirs(t, dir)
	if got := sorted(c.list()); !slices.Equal(got, want) || !c.valid {
		t.Fatalf("list = %v (kept %v), want %v kept", got, c.valid, want)
	}
	if got, ok := c.current(); !ok || !slices.Equal(sorted(got), want) {
		t.Fatalf("current = %v, %v; want %v", got, ok, want)
	}
	changes := []func(){
		func() { must(t, os.Mkdir(filepath.Join(dir, "screen-2"), 0o700)) },
		func() { must(t, os.Remove(filepath.Join(dir, "tmux-0"))) },
		func() { must(t, os.Rename(filepath.Join(dir, "other"), filepath.Join(dir, "ssh-new"))) },
		func() { must(t, os.WriteFile(filepath.Join(dir, "plain"), nil, 0o600)) },
		func() { must(t, os.Chmod(dir, 0o755)) },
	}
	for i, change := range changes {
		time.Sleep(2 * tickMargin)
		c.list()
		if !c.valid {
			t.Fatalf("change %d: an unchanged directory's listing was not kept", i)
		}
		change()
		if got, ok := c.current(); ok {
			t.Fatalf("change %d: the kept listing %v held after the change", i, got)
		}
		if got, want := sorted(c.dirs()), freshSocketDirs(t, dir); !slices.Equal(got, want) {
			t.Fatalf("change %d: dirs = %v, want %v", i, got, want)
		}
	}
}

// TestTmpListingEqualsFresh: whatever is done to the directory and whenever, the listing
// used (kept or new) equals a listing made at that moment.
func TestTmpListingEqualsFresh(t *testing.T) {
	dir := timedDir(t)
	c := &tmpListing{dir: dir}
	rng := rand.New(rand.NewSource(1))
	names := []string{"tmux-0", "tmux-1000", "ssh-a", "ssh-b", "dbus-x", "screen-1", "a", "b", "sshx", "tmux"}
	kept := 0
	for i := 0; i < 400; i++ {
		n := filepath.Join(dir, names[rng.Intn(len(names))])
		switch rng.Intn(4) {
		case 0:
			os.Mkdir(n, 0o700)
		case 1:
			os.Remove(n)
		case 2:
			os.Rename(n, filepath.Join(dir, names[rng.Intn(len(names))]))
		}
		if rng.Intn(3) == 0 {
			time.Sleep(time.Duration(rng.Intn(int(3 * tickMargin))))
		}
		if _, ok := c.current(); ok {
			kept++
		}
		if got, want := sorted(c.dirs()), freshSocketDirs(t, dir); !slices.Equal(got, want) {
			t.Fatalf("step %d: dirs = %v, want %v", i, got, want)
		}
	}
	if kept == 0 {
		t.Error("no listing was ever kept")
	}
	t.Logf("%d of 400 uses found the listing kept", kept)
}
