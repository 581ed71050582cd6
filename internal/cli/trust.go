package cli

import (
	"bufio"
	"fmt"
	"strings"
)

// askTrust asks the person at the terminal whether to trust a project folder (D5, with
// defaultProjectTrust "ask"), as pi does at session start.
func (c *CLI) askTrust(dir string) (trusted, remember bool) {
	fmt.Fprintf(c.Stderr, "Trust project folder?\n%s\n\nThis lets pigo apply the project's .pi/ settings, sandbox, LSP servers, agents and extensions.\n", dir)
	fmt.Fprint(c.Stderr, "[t] trust  [o] trust this time only  [n] do not trust  [d] do not trust, remember: ")
	line, _ := bufio.NewReader(c.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "t", "trust", "y", "yes":
		return true, true
	case "o", "once":
		return true, false
	case "d":
		return false, true
	}
	return false, false
}
