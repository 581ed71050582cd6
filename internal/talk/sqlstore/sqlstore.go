// Package sqlstore is the talk mailbox's SQLite store, run in the pigo-engines helper (internal/engines).
package sqlstore

import (
	"fmt"
	"io"
)

// Serve is the engine's server (engines.Server). Not built yet.
func Serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "sqlstore: not built yet")
	return 2
}
