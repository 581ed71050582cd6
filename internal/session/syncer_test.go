package session

import (
	"errors"
	"os"
	"sync"
	"testing"
	"time"
)

// TestAppendDoesNotWaitForTheDisk: an append writes its line at once and returns while the
// fsync runs; Close waits for the fsync of the last line (an append blocked on every fsync
// before: 0.6–36 ms an entry).
func TestAppendDoesNotWaitForTheDisk(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var synced []int64 // file size at each fsync
	syncFile = func(f *os.File) error {
		<-release
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		mu.Lock()
		synced = append(synced, fi.Size())
		mu.Unlock()
		return nil
	}
	defer func() { syncFile = (*os.File).Sync }()
	s := New(t.TempDir(), t.TempDir(), Options{})
	appended := make(chan error)
	go func() {
		for _, m := range []string{"q1", "a1", "q2", "a2"} {
			msg := user(m)
			if m[0] == 'a' {
				msg = assistant(m)
			}
			if _, err := s.AppendMessage(msg); err != nil {
				appended <- err
				return
			}
		}
		appended <- nil
	}()
	select {
	case err := <-appended:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("appends wait for an fsync that has not finished")
	}
	if l := readLines(t, s.Path()); len(l) != 5 {
		t.Fatalf("the lines are written before their fsync: %d lines %q", len(l), l)
	}
	closed := make(chan error)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
		t.Fatal("Close returned before the pending fsync ran")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(s.Path())
	mu.Lock()
	defer mu.Unlock()
	if len(synced) == 0 || synced[len(synced)-1] != fi.Size() {
		t.Fatalf("the last fsync did not cover the whole file: fsyncs at sizes %v, file %d", synced, fi.Size())
	}
}

// TestSyncErrorIsReported: a failed fsync is returned by the next append and by Close.
func TestSyncErrorIsReported(t *testing.T) {
	failed := errors.New("disk gone")
	syncFile = func(*os.File) error { return failed }
	defer func() { syncFile = (*os.File).Sync }()
	s := New(t.TempDir(), t.TempDir(), Options{})
	if _, err := s.AppendMessage(user("q")); err != nil {
		t.Fatal(err)
	}
	s.AppendMessage(assistant("a")) // the first flush: its fsync fails in the background
	var err error
	for i := 0; i < 200 && err == nil; i++ {
		time.Sleep(5 * time.Millisecond)
		_, err = s.AppendMessage(user("again"))
	}
	if !errors.Is(err, failed) {
		t.Fatalf("append after a failed fsync: %v", err)
	}
	if err := s.Close(); !errors.Is(err, failed) {
		t.Fatalf("Close after a failed fsync: %v", err)
	}
}
