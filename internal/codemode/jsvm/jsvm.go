// Package jsvm is codemode's QuickJS VM, run in the pigo-engines helper (internal/engines).
package jsvm

import (
	"fmt"
	"io"
)

// Serve is the engine's server (engines.Server). Not built yet.
func Serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "jsvm: not built yet")
	return 2
}
