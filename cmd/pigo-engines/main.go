// Command pigo-engines runs the engines pigo's start does not link (internal/engines): pigo
// starts it for web_fetch's page extraction, codemode's JavaScript and talk's SQLite mailbox.
package main

import (
	"os"

	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/engines/allengines"
)

func main() {
	os.Exit(engines.Main(os.Args[1:], allengines.Servers, os.Stdin, os.Stdout, os.Stderr))
}
