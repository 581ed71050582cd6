// Package extract is the web_fetch page extractor, run in the pigo-engines helper (internal/engines).
package extract

import (
	"fmt"
	"io"
)

// Serve is the engine's server (engines.Server). Not built yet.
func Serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "extract: not built yet")
	return 2
}
