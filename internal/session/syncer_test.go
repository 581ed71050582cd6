package session

import (
	"errors"
	"os"
	"slices"
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

// TestAppendsGatherForOneFsync: the appends of a burst share one fsync, made syncDelay after
// the first of them (not beside the tools a turn's last entry started), or at once by Close;
// every line is still covered by an fsync that began after it was written.
func TestAppendsGatherForOneFsync(t *testing.T) {
	var mu sync.Mutex
	var synced []int64 // file size at each fsync
	syncFile = func(f *os.File) error {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		mu.Lock()
		synced = append(synced, fi.Size())
		mu.Unlock()
		return nil
	}
	defer func() { syncFile, syncDelay = (*os.File).Sync, 200*time.Millisecond }()
	count := func() []int64 {
		mu.Lock()
		defer mu.Unlock()
		return append([]int64(nil), synced...)
	}
	burst := func(s *Session) {
		for _, m := range []string{"q1", "a1", "q2", "a2", "q3", "a3"} {
			msg := user(m)
			if m[0] == 'a' {
				msg = assistant(m)
			}
			if _, err := s.AppendMessage(msg); err != nil {
				t.Fatal(err)
			}
		}
	}

	// A long delay: nothing is fsynced during the burst; Close fsyncs it all at once.
	syncDelay = time.Hour
	s := New(t.TempDir(), t.TempDir(), Options{})
	burst(s)
	time.Sleep(50 * time.Millisecond)
	if got := count(); len(got) != 0 {
		t.Fatalf("fsynced during the burst: %v", got)
	}
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(s.Path())
	if got := count(); len(got) != 1 || got[0] != fi.Size() {
		t.Fatalf("Close: fsyncs at sizes %v, file %d; want one of the whole file", got, fi.Size())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Close waited %v for the gathering delay", d)
	}

	// A short delay: the burst is fsynced soon after (once, unless the machine is slow),
	// without Close.
	mu.Lock()
	synced = nil
	mu.Unlock()
	syncDelay = 20 * time.Millisecond
	s = New(t.TempDir(), t.TempDir(), Options{})
	defer s.Close()
	burst(s)
	fi, _ = os.Stat(s.Path())
	for i := 0; i < 500 && len(count()) == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	for i := 0; i < 500 && !slices.Contains(count(), fi.Size()); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if got := count(); len(got) == 0 || got[len(got)-1] != fi.Size() {
		t.Fatalf("after the delay: fsyncs at sizes %v, file %d; want the whole file fsynced", got, fi.Size())
	}
}
