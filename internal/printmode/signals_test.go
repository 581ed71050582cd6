package printmode

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestSignalDuringRunCancels: from Run's beginning to its end, SIGINT or SIGTERM cancels the
// run's context (signal.NotifyContext's behaviour), and a second one is taken too, not acted
// on. One watcher, as a process has one (a second would be sent the same signals).
func TestSignalDuringRunCancels(t *testing.T) {
	w := watchSignals()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		ctx, stop := w.begin()
		if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%v did not cancel the run", sig)
		}
		if err := syscall.Kill(syscall.Getpid(), sig); err != nil { // taken: the test lives on
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		stop()
	}
}

// TestSignalOutsideRunEndsTheProcess: before Run begins (the handling is registered on a
// goroutine from NewFrontend on) and after it ends, a signal ends the process by its default
// action, as when nothing was registered. Each case runs in a child process.
func TestSignalOutsideRunEndsTheProcess(t *testing.T) {
	if c := os.Getenv("PIGO_SIGNAL_CASE"); c != "" {
		w := watchSignals()
		<-w.ready
		if c == "after" {
			ctx, stop := w.begin()
			stop()
			if ctx.Err() == nil {
				os.Exit(4)
			}
		}
		syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
		time.Sleep(10 * time.Second)
		os.Exit(0) // not reached when the signal ended the process
	}
	for _, c := range []string{"before", "after"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalOutsideRunEndsTheProcess$")
		cmd.Env = append(os.Environ(), "PIGO_SIGNAL_CASE="+c)
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%s Run: the child was not ended by the signal: %v", c, err)
		}
		ws := ee.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Errorf("%s Run: the child ended with %v, want killed by SIGTERM", c, ws)
		}
	}
}
