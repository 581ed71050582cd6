// Command pigo-cue is pigo's evaluator of users' CUE extension files: pigo runs it for each
// extensions/*.cue file (see internal/cuehelper), so that pigo itself does not link CUE.
package main

import (
	"os"

	"github.com/pigo-agent/pigo/internal/cuehelper"
	"github.com/pigo-agent/pigo/internal/cueschema"
)

func main() {
	os.Exit(cuehelper.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cueschema.Evaluate))
}
