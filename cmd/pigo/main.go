// Command pigo validates, explains and runs a pi-style agent configuration: see `pigo help`.
package main

import (
	"os"

	"github.com/pigo-agent/pigo/internal/cli"
	"github.com/pigo-agent/pigo/internal/gcstart"
	"github.com/pigo-agent/pigo/internal/stackgrow"
)

func main() {
	stackgrow.Grow() // before the command's deep calls: the runtime copies a stack of three frames
	gcstart.Defer(gcstart.Limit)
	c := &cli.CLI{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Terminal: cli.IsTerminal(os.Stdin) && cli.IsTerminal(os.Stdout)}
	os.Exit(c.Main(os.Args[1:]))
}
