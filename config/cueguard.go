package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"cuelang.org/go/cue"
	"golang.org/x/sys/unix"

	"github.com/pigo-agent/pigo/internal/validate"
)

// A user's CUE extension is a program: a comprehension or a list.Range can run for minutes and
// take gigabytes, and CUE's evaluator cannot be interrupted. So before pigo evaluates one, a
// child process (this same executable, entered through guardEnv) evaluates it first under
// resource limits; only a file that finishes there is evaluated in-process, where the same
// deterministic evaluation is then known to stay within the same bounds.
const (
	guardEnv    = "PIGO_CUE_GUARD"
	guardCPUEnv = "PIGO_CUE_GUARD_CPU"
	// GuardMemory bounds the memory of the child's evaluation.
	GuardMemory = 1 << 30
)

// GuardCPU bounds the CPU time of the child's evaluation (the wall clock gets three times as
// much, for a busy machine). A real extension needs milliseconds.
var GuardCPU = 5 * time.Second

func init() {
	if name := os.Getenv(guardEnv); name != "" {
		os.Exit(guardChild(name, os.Stdin))
	}
}

// guardChild evaluates one CUE extension read from r, as checkCUE does, under its own limits.
// Its exit code is 0 when the evaluation finished (whatever its diagnostics).
func guardChild(name string, r io.Reader) int {
	if statm, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(statm)); len(f) > 0 {
			if pages, err := strconv.ParseUint(f[0], 10, 64); err == nil {
				as := pages*uint64(os.Getpagesize()) + GuardMemory
				_ = unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: as, Max: as})
			}
		}
	}
	cpu := uint64(GuardCPU / time.Second)
	if n, err := strconv.ParseUint(os.Getenv(guardCPUEnv), 10, 64); err == nil && n > 0 {
		cpu = n
	}
	_ = unix.Setrlimit(unix.RLIMIT_CPU, &unix.Rlimit{Cur: cpu, Max: cpu + 1})
	src, err := io.ReadAll(r)
	if err != nil {
		return 3
	}
	s, err := validate.Load()
	if err != nil {
		return 3
	}
	v := s.Context().CompileBytes(src, cue.Filename(name))
	if v.Err() == nil {
		if u := s.Def("#Extension").Unify(v); u.Validate(cue.Concrete(true)) == nil {
			validate.NodeOf(v, src)
		}
	}
	return 0
}

func errGuard() error {
	return fmt.Errorf("evaluating the file exceeds pigo's limits for CUE extensions (%v of CPU, %d MiB of memory); it is not applied", GuardCPU, GuardMemory>>20)
}

// guardCUE runs the child evaluation of src. It returns an error when the child was stopped by
// a limit, nil when it finished or when no child can be started (then pigo evaluates
// in-process as before).
func guardCUE(name string, src []byte) error {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*GuardCPU)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	secs := max(1, int(GuardCPU/time.Second))
	cmd.Env = append(os.Environ(), guardEnv+"="+name, guardCPUEnv+"="+strconv.Itoa(secs), "GOMAXPROCS=1")
	cmd.Stdin = bytes.NewReader(src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil, errors.As(err, &ee):
		return errGuard()
	}
	return nil
}
