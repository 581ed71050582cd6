package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pigo-agent/pigo/internal/cli"
	"github.com/pigo-agent/pigo/internal/cuehelper"
	"github.com/pigo-agent/pigo/internal/cueschema"
	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/engines/allengines"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"pigo": func() {
			c := &cli.CLI{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
			os.Exit(c.Main(os.Args[1:]))
		},
		// pigo runs the CUE evaluator as a helper process, found on PATH.
		cuehelper.Name: func() {
			os.Exit(cuehelper.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cueschema.Evaluate))
		},
		// and web_fetch's extractor, codemode's VM and talk's store in the engines helper.
		engines.Name: func() {
			os.Exit(engines.Main(os.Args[1:], allengines.Servers, os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: one behaviour per script.
// UPDATE_GOLDEN=1 rewrites the expected output (cmp) files inside the scripts.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		UpdateScripts:       os.Getenv("UPDATE_GOLDEN") == "1",
		RequireExplicitExec: true,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits, "llmserve": cmdLLMServe, "llmreqs": cmdLLMReqs, "sleep": cmdSleep, "mkfifo": cmdMkfifo, "mcpservers": cmdMCPServers, "freeport": cmdFreePort, "waitport": cmdWaitPort},
		Condition: func(cond string) (bool, error) {
			if cond == "mcpservers" {
				return mcpServersInstalled(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			// A clean HOME per script: no user config unless the script writes one.
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("PI_CODING_AGENT_DIR", "")
			env.Setenv("NO_COLOR", "1")
			return os.MkdirAll(filepath.Join(env.WorkDir, "home"), 0o755)
		},
	})
}

// exits N PROGRAM ARGS... runs a program like exec and fails unless it exits with status N;
// stdout and stderr are kept for the checks that follow (cli.md's exit codes are a contract).
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}
