package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// RunCommand is `pigo sandbox run`: line runs under pl with opt, interruptible (SIGINT,
// SIGTERM), and what went wrong is said on opt.Stderr, each of the command line's own lines
// after prefix. It returns the exit code: the command's, 124 after its timeout, 130 when
// interrupted, 1 when it could not run (or its code is out of range).
func RunCommand(pl *Plan, line string, opt Options, prefix string) int {
	if n := pl.OffNotice(); n != "" {
		fmt.Fprintln(opt.Stderr, n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := Run(ctx, pl, line, opt)
	w := opt.Stderr
	if w == nil {
		w = io.Discard
	}
	for _, r := range res.Restored {
		fmt.Fprintf(w, "pigo: %s\n", r)
	}
	var te *TimeoutError
	var ae *AbortError
	var se *SetupError
	switch {
	case errors.As(err, &se):
		fmt.Fprintf(w, "%s%v\n", prefix, err)
		return 1
	case errors.As(err, &te):
		fmt.Fprintf(w, "pigo: the command was killed after its timeout of %s (%v)\n", opt.Timeout, err)
		return ExitTimeout
	case errors.As(err, &ae):
		fmt.Fprintf(w, "pigo: the command was interrupted and killed\n")
		return 130
	case err != nil:
		fmt.Fprintf(w, "%s%v\n", prefix, err)
		return 1
	}
	if res.ExitCode != 0 && pl.Sandboxed {
		fmt.Fprintf(w, "pigo: the command ran in the sandbox: %s\n", pl.Limits())
	}
	if res.ExitCode < 0 || res.ExitCode > 255 {
		return 1
	}
	return res.ExitCode
}
