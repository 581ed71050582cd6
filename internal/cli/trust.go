package cli

import "github.com/pigo-agent/pigo/config"

// askTrust asks the person at the terminal whether to trust a project folder
// (config.AskTrustTerminal). The answer holds for the rest of the command line, so a command
// that loads the configuration twice asks once.
func (c *CLI) askTrust(dir string) (trusted, remember bool) {
	if a, ok := c.trustAnswers[dir]; ok {
		return a[0], a[1]
	}
	trusted, remember = config.AskTrustTerminal(c.Stdin, c.Stderr, dir)
	if c.trustAnswers == nil {
		c.trustAnswers = map[string][2]bool{}
	}
	c.trustAnswers[dir] = [2]bool{trusted, remember}
	return trusted, remember
}
