package talk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/engines"
)

func openTestStore(t *testing.T) *Store {
	t.Helper()
	st, err := OpenStore(filepath.Join(t.TempDir(), "talk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestStoreThroughHelper: every operation of the store, through the pigo-engines helper, with
// values exactly as written (non-ASCII, HTML characters JSON.stringify leaves alone).
func TestStoreThroughHelper(t *testing.T) {
	st := openTestStore(t)
	if err := st.WriteJSON("ns", "b", map[string]string{"body": "héllo <b> & 😀"}); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteJSON("ns", "a", 1); err != nil {
		t.Fatal(err)
	}
	keys, values, err := st.Values("ns")
	if err != nil || strings.Join(keys, ",") != "a,b" || string(values[0]) != "1" || string(values[1]) != `{"body":"héllo <b> & 😀"}` {
		t.Fatalf("Values: %q %q %v", keys, values, err)
	}
	var got map[string]string
	if ok, err := st.ReadJSON("ns", "b", &got); !ok || err != nil || got["body"] != "héllo <b> & 😀" {
		t.Fatalf("ReadJSON: %v %v %q", ok, err, got)
	}
	if ok, err := st.ReadJSON("ns", "missing", &got); ok || err != nil {
		t.Fatalf("ReadJSON of a missing key: %v %v", ok, err)
	}
	var n int
	if ok, err := st.ReadJSON("ns", "b", &n); ok || err != nil {
		t.Fatalf("ReadJSON of a value of another shape: %v %v", ok, err)
	}
	if has, err := st.HasKeys("ns"); !has || err != nil {
		t.Fatalf("HasKeys: %v %v", has, err)
	}
	if had, err := st.RemoveKey("ns", "a"); !had || err != nil {
		t.Fatalf("RemoveKey: %v %v", had, err)
	}
	if had, err := st.RemoveKey("ns", "a"); had || err != nil {
		t.Fatalf("RemoveKey again: %v %v", had, err)
	}
	if keys, err := st.ListKeys("ns"); err != nil || strings.Join(keys, ",") != "b" {
		t.Fatalf("ListKeys: %q %v", keys, err)
	}
	if err := st.RemoveNamespace("ns"); err != nil {
		t.Fatal(err)
	}
	if has, err := st.HasKeys("ns"); has || err != nil {
		t.Fatalf("HasKeys after RemoveNamespace: %v %v", has, err)
	}
	for _, l := range []string{"one", "", "three\nlines"} {
		if err := st.AppendLog("audit", l); err != nil {
			t.Fatal(err)
		}
	}
	if lines, err := st.ReadLog("audit"); err != nil || len(lines) != 3 || lines[2] != "three\nlines" || lines[1] != "" {
		t.Fatalf("ReadLog: %q %v", lines, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ListKeys("ns"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("a call after Close: %v", err)
	}
}

// TestStoreWithoutHelper: no helper installed is engines.ErrNotFound, which says how to
// install it.
func TestStoreWithoutHelper(t *testing.T) {
	t.Setenv(engines.EnvPath, "")
	t.Setenv("PATH", t.TempDir())
	_, err := OpenStore(filepath.Join(t.TempDir(), "talk.db"))
	if !errors.Is(err, engines.ErrNotFound) || !strings.Contains(err.Error(), "go install github.com/pigo-agent/pigo/cmd/pigo-engines@latest") {
		t.Fatalf("got %v", err)
	}
}

// TestStoreOpenFailure: the server's failure to open the file is OpenStore's error, and no
// helper is left behind.
func TestStoreOpenFailure(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "talk.db"), 0o755); err != nil { // a directory where the file goes
		t.Fatal(err)
	}
	_, err := OpenStore(filepath.Join(dir, "talk.db"))
	if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "talk.db")+": ") {
		t.Fatalf("got %v", err)
	}
}

// TestStoreHelperKilled: a helper that dies fails the call that was waiting and every later
// one with the same error, at once, and Close still returns.
func TestStoreHelperKilled(t *testing.T) {
	st := openTestStore(t)
	if err := st.WriteJSON("ns", "k", 1); err != nil {
		t.Fatal(err)
	}
	st.cmd.Process.Kill()
	_, err := st.ListKeys("ns")
	if err == nil || !strings.Contains(err.Error(), "pigo-engines (talk store): ") {
		t.Fatalf("after the kill: %v", err)
	}
	if _, err2 := st.HasKeys("ns"); err2 == nil || err2.Error() != err.Error() {
		t.Fatalf("a later call: %v, want %v", err2, err)
	}
	done := make(chan struct{})
	go func() { st.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs after the helper died")
	}
}

// TestStoreHelperHung: a helper that stops answering is killed after callWait; the call fails
// instead of waiting for ever. The helper here answers the opening, then sleeps (a real one,
// SIGSTOPped, was flaky: a process group left orphaned with a stopped member is sent SIGCONT).
func TestStoreHelperHung(t *testing.T) {
	old := callWait
	callWait = 300 * time.Millisecond
	defer func() { callWait = old }()
	fake := filepath.Join(t.TempDir(), engines.Name)
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nprintf '\\001\\002ok'\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(engines.EnvPath, fake)
	st, err := OpenStore(filepath.Join(t.TempDir(), "talk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	_, err = st.ListKeys("ns")
	if err == nil || !strings.Contains(err.Error(), "pigo-engines (talk store): ") {
		t.Fatalf("a helper that does not answer: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the call took %v", d)
	}
}

// TestStoreConcurrentCalls: calls from many goroutines at once share the one helper; each
// gets its own answer (the frames of two calls never interleave).
func TestStoreConcurrentCalls(t *testing.T) {
	st := openTestStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				key := fmt.Sprintf("k%d-%d", g, i)
				if err := st.WriteJSON("ns", key, g*1000+i); err != nil {
					errs <- err
					return
				}
				var v int
				if ok, err := st.ReadJSON("ns", key, &v); !ok || err != nil || v != g*1000+i {
					errs <- fmt.Errorf("%s: %v %v %d", key, ok, err, v)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if keys, err := st.ListKeys("ns"); err != nil || len(keys) != 32*20 {
		t.Fatalf("%d keys, %v", len(keys), err)
	}
}
