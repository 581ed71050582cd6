package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/auth"
)

// pigo auth: pi 1.5+'s credential commands (docs/cli.md "Credential commands"): login and
// logout write the agent dir's auth.json; check, print-api-key and print-bearer-token resolve
// a provider's credential as a session would (check prints ready/not_ready/invalid and exits
// 0/1/2). The logic lives in internal/auth; this file is flags, terminal and output.
var authCmd = command{
	name:    "auth",
	summary: "sign in to providers and check or print their credentials (auth.json, as pi 1.6)",
	usage:   "auth login|logout|check|print-api-key|print-bearer-token ...",
	sub: []*command{
		{name: "login", summary: "sign in with an account (browser or device code) or save an API key",
			usage: "auth login PROVIDER [--api-key] [--no-browser]",
			flags: []*flag{{names: []string{"--api-key"}, help: "save an API key instead of signing in with an account"},
				{names: []string{"--no-browser"}, help: "do not open a browser; use the provider's other sign-in method (a device code, a pasted code)"}},
			run: runAuthLogin},
		{name: "logout", summary: "remove a provider's stored credentials (environment and models.json stay)",
			usage: "auth logout PROVIDER", run: runAuthLogout},
		{name: "check", summary: "print ready, not_ready or invalid; exit 0, 1 or 2",
			usage: "auth check (--provider P | --model M) [--json] [--credentials] [--no-refresh]",
			flags: []*flag{&providerFlag,
				{names: []string{"--json"}, help: "print pi's JSON result"},
				{names: []string{"--credentials"}, help: "print the resolved credential when ready (or include it in JSON)"},
				{names: []string{"--no-refresh"}, help: "do not refresh an expired OAuth token"}},
			run: runAuthCheck},
		{name: "print-api-key", summary: "print a provider's resolved API key",
			usage: "auth print-api-key (--provider P | --model M)", flags: []*flag{&providerFlag}, run: runAuthPrintKey},
		{name: "print-bearer-token", summary: "print a signed-in provider's OAuth bearer token (refreshed when needed)",
			usage: "auth print-bearer-token (--provider P | --model M) [--min-expiry DURATION]",
			flags: []*flag{&providerFlag, {names: []string{"--min-expiry"}, value: true, help: "required remaining lifetime (ms, s, m or h; default 30m)"}},
			run:   runAuthPrintBearer},
	},
}

// &providerFlag is the provider flag of the auth commands that resolve one credential.
var providerFlag = flag{names: []string{"--provider"}, value: true, help: "the provider whose credential to resolve"}

// authProvider is the provider an auth command names (config.AuthProvider), or prints why not.
func authProvider(c *CLI, cfg *config.Config, a *args, cmd string) (string, bool) {
	p, err := cfg.AuthProvider(a.str("--provider"), a.str("--model"))
	switch {
	case err != nil:
		fmt.Fprintf(c.Stderr, "Error: %v\n", err)
		return "", false
	case p == "" && cmd == "check":
		fmt.Fprintln(c.Stderr, "Error: Auth checks require --provider <provider> or --model <model>")
		return "", false
	case p == "":
		fmt.Fprintln(c.Stderr, "Error: Credential printing requires --provider <provider> or --model <model>")
		return "", false
	}
	return p, true
}

func runAuthCheck(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return 2
	}
	cfg, code := c.load(a)
	if code != ExitOK {
		return 2
	}
	provider, ok := authProvider(c, cfg, a, "check")
	if !ok {
		return 2
	}
	res, problem := cfg.CheckAuth(provider, a.has("--no-refresh"), a.has("--credentials"))
	if problem != nil {
		fmt.Fprintf(c.Stderr, "pigo auth check: %v\n", problem)
	}
	switch {
	case a.has("--json"):
		b, _ := json.Marshal(res)
		fmt.Fprintln(c.Stdout, string(b))
	case format == "json":
		c.writeJSON(struct {
			Version     int    `json:"version"`
			Status      string `json:"status"`
			Provider    string `json:"provider"`
			AuthType    string `json:"auth_type,omitempty"`
			Reason      string `json:"reason,omitempty"`
			Credentials string `json:"credentials,omitempty"`
		}{1, res.Status, res.Provider, res.AuthType, res.Reason, res.Credentials})
	case res.Credentials != "":
		fmt.Fprintln(c.Stdout, res.Credentials)
	default:
		fmt.Fprintln(c.Stdout, res.Status)
	}
	switch res.Status {
	case "ready":
		return 0
	case "not_ready":
		return 1
	}
	return 2
}

func runAuthPrintKey(c *CLI, a *args) int {
	return c.printCredential(a, func(cfg *config.Config, provider string) (string, error) {
		return cfg.PrintableAPIKey(provider)
	})
}

func runAuthPrintBearer(c *CLI, a *args) int {
	min := 30 * time.Minute
	if a.has("--min-expiry") {
		// Compiled here, once a process at most: a package-level sync.OnceValue is two
		// allocations of every pigo process's init (D25.49).
		m := regexp.MustCompile(`(?i)^(\d+)(ms|s|m|h)$`).FindStringSubmatch(a.str("--min-expiry"))
		if m == nil {
			fmt.Fprintln(c.Stderr, "Error: --min-expiry must use a duration such as 30m or 1h")
			return 1
		}
		n, _ := strconv.Atoi(m[1])
		unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour}[strings.ToLower(m[2])]
		min = time.Duration(n) * unit
	}
	return c.printCredential(a, func(cfg *config.Config, provider string) (string, error) {
		return cfg.BearerToken(provider, min)
	})
}

// printCredential prints the credential get resolves for the provider the flags name.
func (c *CLI) printCredential(a *args, get func(*config.Config, string) (string, error)) int {
	cfg, code := c.load(a)
	if code != ExitOK {
		return 1
	}
	provider, ok := authProvider(c, cfg, a, "print")
	if !ok {
		return 1
	}
	v, err := get(cfg, provider)
	if err != nil {
		fmt.Fprintf(c.Stderr, "Error: %v\n", err)
		return 1
	}
	fmt.Fprintln(c.Stdout, v)
	return 0
}

func runAuthLogout(c *CLI, a *args) int {
	if len(a.pos) != 1 || strings.HasPrefix(a.pos[0], "-") {
		fmt.Fprintln(c.Stderr, "Usage: pigo auth logout <provider>")
		return 1
	}
	cfg, code := c.load(a)
	if code != ExitOK {
		return 1
	}
	msg, err := cfg.Logout(a.pos[0])
	if err != nil {
		fmt.Fprintln(c.Stderr, err)
		return 1
	}
	fmt.Fprintln(c.Stdout, msg)
	return 0
}

func runAuthLogin(c *CLI, a *args) int {
	const usage = "Usage: pigo auth login <provider> [--api-key] [--no-browser]"
	if len(a.pos) != 1 || strings.HasPrefix(a.pos[0], "-") {
		fmt.Fprintln(c.Stderr, usage)
		return 1
	}
	if a.has("--api-key") && a.has("--no-browser") {
		fmt.Fprintln(c.Stderr, "--no-browser only applies to account sign-in; omit it with --api-key.")
		return 1
	}
	cfg, code := c.load(a)
	if code != ExitOK {
		return 1
	}
	provider := cfg.CanonicalProvider(a.pos[0])
	if !cfg.KnownProvider(provider) {
		fmt.Fprintf(c.Stderr, "Unknown provider %q.\n", a.pos[0])
		fmt.Fprintf(c.Stderr, "Providers: %s\n", strings.Join(auth.LoginProviders(cfg.ModelsJSONProviders()), ", "))
		return 1
	}
	in, inIsFile := c.Stdin.(*os.File)
	if !c.Terminal || !inIsFile || !IsTerminal(in) {
		fmt.Fprintln(c.Stderr, `"pigo auth login <provider> [--api-key] [--no-browser]" requires an interactive terminal`)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	msg, err := cfg.Login(ctx, provider, a.has("--api-key"), a.has("--no-browser"), in, c.Stdout)
	if err != nil {
		fmt.Fprintln(c.Stderr, err)
		return 1
	}
	fmt.Fprintln(c.Stdout, msg)
	return 0
}
