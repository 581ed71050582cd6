package mcpclient

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
)

// TerminalPrompt is the sign-in conversation of `pigo mcp login` on a terminal: the URL is
// printed on out and opened with open; when in is set (a person at the terminal), the redirect
// URL can be pasted there if the browser cannot reach this machine.
func TerminalPrompt(name string, in io.Reader, out, errOut io.Writer, open func(string)) SignInPrompt {
	p := SignInPrompt{ShowURL: func(u string) {
		fmt.Fprintf(out, "Sign in to MCP server %q in your browser:\n%s\n", name, u)
		open(u)
	}}
	if in == nil {
		return p
	}
	p.PastedURL = func(ctx context.Context) string {
		fmt.Fprint(errOut, "If the browser cannot reach this machine, paste the URL it was redirected to: ")
		line := make(chan string, 1)
		go func() {
			r := bufio.NewReader(in)
			s, _ := r.ReadString('\n')
			line <- s
		}()
		select {
		case s := <-line:
			return s
		case <-ctx.Done():
			return ""
		}
	}
	return p
}

// Browser opens a URL in the user's browser: $BROWSER (read with getenv), else xdg-open or
// open when installed. Failures are ignored: the URL is printed too.
func Browser(getenv func(string) string) func(u string) {
	return func(u string) {
		prog := getenv("BROWSER")
		if prog == "" {
			for _, p := range []string{"xdg-open", "open"} {
				if _, err := exec.LookPath(p); err == nil {
					prog = p
					break
				}
			}
		}
		if prog == "" {
			return
		}
		cmd := exec.Command(prog, u)
		if cmd.Start() == nil {
			go func() { _ = cmd.Wait() }()
		}
	}
}
