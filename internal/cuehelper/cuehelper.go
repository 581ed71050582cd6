// Package cuehelper evaluates a user's CUE extension file in the pigo-cue helper process.
//
// pigo does not link CUE: its package initialisation cost every pigo process milliseconds, and
// the JSON and Markdown kinds are checked by internal/validate's compiled tables. Only a CUE
// file a user writes (extensions/*.cue) needs the evaluator, so pigo runs cmd/pigo-cue for it:
// the helper reads the source on stdin, evaluates it against #Extension under CPU and memory
// limits (a comprehension can run for minutes and take gigabytes, and CUE's evaluator cannot be
// interrupted), and answers with the value's tree (offsets into the source) or the
// diagnostics, as JSON on stdout.
//
// The helper is found as $PIGO_CUE, else beside the pigo executable, else on PATH.
package cuehelper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// Name is the helper's executable name.
const Name = "pigo-cue"

const (
	// EnvPath names the helper explicitly.
	EnvPath = "PIGO_CUE"
	// envCPU gives the child its CPU limit in seconds (tests lower it).
	envCPU = "PIGO_CUE_CPU"
)

// Limits of one evaluation: CPU time (the wall clock gets three times as much, for a busy
// machine) and memory beyond what the helper had when it started. A real extension needs
// milliseconds and a few megabytes.
var (
	CPU    = 5 * time.Second
	Memory = uint64(1 << 30)
)

// ErrNotFound is returned when no helper is installed.
var ErrNotFound = errors.New("evaluating a CUE extension needs the " + Name + " helper, which is not installed beside pigo or on PATH (go install github.com/pigo-agent/pigo/cmd/" + Name + "@latest)")

// ErrLimit is returned when the evaluation exceeded the limits.
var ErrLimit = errors.New("limit")

// LimitMessage says which limits stopped an evaluation.
func LimitMessage() string {
	return fmt.Sprintf("evaluating the file exceeds pigo's limits for CUE extensions (%v of CPU, %d MiB of memory); it is not applied", CPU, Memory>>20)
}

// Diag is one diagnostic of an evaluation (offsets into the source; Start < 0: the whole file).
type Diag struct {
	Start    int           `json:"start"`
	End      int           `json:"end"`
	Severity diag.Severity `json:"severity"`
	Code     string        `json:"code"`
	Path     string        `json:"path,omitempty"`
	Message  string        `json:"message"`
	Hint     string        `json:"hint,omitempty"`
}

// Result is what an evaluation found: the value as a tree when the file evaluated cleanly,
// else its diagnostics (Syntax: the file does not compile).
type Result struct {
	Root   *jsonc.Node `json:"root,omitempty"`
	Diags  []Diag      `json:"diags,omitempty"`
	Syntax bool        `json:"syntax,omitempty"`
}

// List turns the result's diagnostics into diagnostics of src.
func (r *Result) List(src *diag.Source) diag.List {
	var out diag.List
	for _, d := range r.Diags {
		sp := diag.FileSpan(src)
		if d.Start >= 0 && d.Start <= len(src.Text) && d.End <= len(src.Text) {
			sp = diag.At(src, d.Start, d.End)
		}
		out.Add(sp, d.Severity, d.Code, d.Path, d.Message).Hint = d.Hint
	}
	return out
}

// FromList records diagnostics for the answer.
func FromList(l diag.List) []Diag {
	var out []Diag
	for _, d := range l {
		start, end := d.Start, d.End
		if !d.HasPos() {
			start, end = -1, -1
		}
		out = append(out, Diag{start, end, d.Severity, d.Code, d.Path, d.Message, d.Hint})
	}
	return out
}

// Find returns the helper's path.
func Find() (string, error) {
	p, err := engines.Locate(Name, EnvPath)
	if err != nil {
		if os.Getenv(EnvPath) != "" {
			return "", fmt.Errorf("%w (%v)", ErrNotFound, err)
		}
		return "", ErrNotFound
	}
	return p, nil
}

// Eval evaluates one CUE extension file in the helper.
func Eval(name string, src []byte) (*Result, error) {
	exe, err := Find()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*CPU)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "eval", name)
	secs := max(1, int(CPU/time.Second))
	cmd.Env = append(os.Environ(), envCPU+"="+strconv.Itoa(secs), "GOMAXPROCS=1")
	cmd.Stdin = bytes.NewReader(src)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, ErrLimit
	case errors.As(err, &ee):
		if ee.ExitCode() == exitLimit || ee.ExitCode() < 0 {
			return nil, ErrLimit // killed by a limit (a signal) or out of memory
		}
		return nil, fmt.Errorf("%s: %v: %s", Name, err, strings.TrimSpace(stderr.String()))
	case err != nil:
		return nil, fmt.Errorf("%s: %v", Name, err)
	}
	var r Result
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("%s: unreadable answer: %v", Name, err)
	}
	return &r, nil
}

// exitLimit is the helper's exit code when Go's runtime ran out of memory (it reports that as
// a crash, exit 2) — any crash of the evaluator is taken as a limit.
const exitLimit = 2

// Main is the helper's main: `pigo-cue eval NAME` with the source on stdin. It sets its own
// limits, evaluates with eval and writes the answer. It returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, eval func(name string, src []byte) *Result) int {
	if len(args) != 2 || args[0] != "eval" {
		fmt.Fprintf(stderr, "usage: %s eval NAME < FILE.cue\n(%s is pigo's evaluator of CUE extension files; pigo runs it)\n", Name, Name)
		return 64
	}
	if statm, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(statm)); len(f) > 0 {
			if pages, err := strconv.ParseUint(f[0], 10, 64); err == nil {
				as := pages*uint64(os.Getpagesize()) + Memory
				_ = unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: as, Max: as})
			}
		}
	}
	cpu := uint64(CPU / time.Second)
	if n, err := strconv.ParseUint(os.Getenv(envCPU), 10, 64); err == nil && n > 0 {
		cpu = n
	}
	_ = unix.Setrlimit(unix.RLIMIT_CPU, &unix.Rlimit{Cur: cpu, Max: cpu + 1})
	src, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	b, err := json.Marshal(eval(args[1], src))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if _, err := stdout.Write(b); err != nil {
		return 1
	}
	return 0
}
