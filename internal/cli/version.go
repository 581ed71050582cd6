package cli

import "fmt"

func init() {
	register(&command{
		name:    "version",
		summary: "print pigo's version",
		usage:   "version",
		run: func(c *CLI, a *args) int {
			fmt.Fprintf(c.Stdout, "pigo %s\n", Version)
			return ExitOK
		},
	})
}
