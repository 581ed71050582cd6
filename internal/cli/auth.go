package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/auth"
)

// pigo auth: pi 1.5+'s credential commands (docs/cli.md "Credential commands"): login and
// logout write the agent dir's auth.json; check, print-api-key and print-bearer-token resolve
// a provider's credential as a session would (check prints ready/not_ready/invalid and exits
// 0/1/2). The logic lives in internal/auth; this file is flags, terminal and output.

func init() {
	provModel := []flag{
		{names: []string{"--provider"}, value: true, help: "the provider whose credential to resolve"},
	}
	register(&command{
		name:    "auth",
		summary: "sign in to providers and check or print their credentials (auth.json, as pi 1.6)",
		usage:   "auth login|logout|check|print-api-key|print-bearer-token ...",
		sub: []*command{
			{name: "login", summary: "sign in with an account (browser or device code) or save an API key",
				usage: "auth login PROVIDER [--api-key] [--no-browser]",
				flags: []flag{{names: []string{"--api-key"}, help: "save an API key instead of signing in with an account"},
					{names: []string{"--no-browser"}, help: "do not open a browser; use the provider's other sign-in method (a device code, a pasted code)"}},
				run: runAuthLogin},
			{name: "logout", summary: "remove a provider's stored credentials (environment and models.json stay)",
				usage: "auth logout PROVIDER", run: runAuthLogout},
			{name: "check", summary: "print ready, not_ready or invalid; exit 0, 1 or 2",
				usage: "auth check (--provider P | --model M) [--json] [--credentials] [--no-refresh]",
				flags: append(append([]flag{}, provModel...),
					flag{names: []string{"--json"}, help: "print pi's JSON result"},
					flag{names: []string{"--credentials"}, help: "print the resolved credential when ready (or include it in JSON)"},
					flag{names: []string{"--no-refresh"}, help: "do not refresh an expired OAuth token"}),
				run: runAuthCheck},
			{name: "print-api-key", summary: "print a provider's resolved API key",
				usage: "auth print-api-key (--provider P | --model M)", flags: provModel, run: runAuthPrintKey},
			{name: "print-bearer-token", summary: "print a signed-in provider's OAuth bearer token (refreshed when needed)",
				usage: "auth print-bearer-token (--provider P | --model M) [--min-expiry DURATION]",
				flags: append(append([]flag{}, provModel...), flag{names: []string{"--min-expiry"}, value: true, help: "required remaining lifetime (ms, s, m or h; default 30m)"}),
				run:   runAuthPrintBearer},
		},
	})
}

// authProvider is the provider an auth command names: --provider, or the provider of --model
// (models.json or the catalogue), with models.json's spelling.
func authProvider(c *CLI, cfg *config.Config, a *args, cmd string) (string, bool) {
	p := strings.TrimSpace(a.str("--provider"))
	if m := strings.TrimSpace(a.str("--model")); m != "" {
		flag := m
		if p != "" && !strings.Contains(m, "/") {
			flag = p + "/" + m
		}
		mi, err := cfg.SessionModel(flag)
		if err != nil || mi == nil || mi.Provider == "" || mi.Source == "defaults" {
			fmt.Fprintf(c.Stderr, "Error: Model %q not found. Use --list-models to see available models.\n", m)
			return "", false
		}
		p = mi.Provider
	}
	if p == "" {
		if cmd == "check" {
			fmt.Fprintln(c.Stderr, "Error: Auth checks require --provider <provider> or --model <model>")
		} else {
			fmt.Fprintln(c.Stderr, "Error: Credential printing requires --provider <provider> or --model <model>")
		}
		return "", false
	}
	return canonicalProvider(cfg, p), true
}

// canonicalProvider spells a provider as pi knows it: a built-in id or models.json's key
// (matched case-insensitively, display names too).
func canonicalProvider(cfg *config.Config, ref string) string {
	if info, ok := auth.Provider(ref); ok {
		return info.ID
	}
	for _, info := range auth.Providers() {
		if strings.EqualFold(info.Name, strings.TrimSpace(ref)) {
			return info.ID
		}
	}
	for _, p := range cfg.ModelsJSONProviders() {
		if strings.EqualFold(p, strings.TrimSpace(ref)) {
			return p
		}
	}
	return strings.TrimSpace(ref)
}

// knownProvider reports whether pi would know provider: built in, or in models.json.
func knownProvider(cfg *config.Config, provider string) bool {
	if _, ok := auth.Provider(provider); ok {
		return true
	}
	for _, p := range cfg.ModelsJSONProviders() {
		if p == provider {
			return true
		}
	}
	return false
}

type authCheckResult struct {
	Status      string `json:"status"`
	Provider    string `json:"provider"`
	AuthType    string `json:"authType,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Credentials string `json:"credentials,omitempty"`
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
	res := authCheckResult{Provider: provider}
	var cred string
	switch {
	case !knownProvider(cfg, provider):
		res.Status, res.Reason = "not_ready", "provider_not_found"
	default:
		r, err := cfg.Credential(provider, "")
		switch {
		case err != nil:
			fmt.Fprintf(c.Stderr, "pigo auth check: %v\n", err)
			res.Status, res.Reason = "invalid", "invalid_state"
		case r.Type == "":
			res.Status, res.Reason = "not_ready", "credentials_not_configured"
		case r.Type == auth.TypeOAuth && !a.has("--no-refresh"):
			oc, err := oauthSource(cfg, provider).Credential(context.Background(), false, 0)
			if err != nil {
				fmt.Fprintf(c.Stderr, "pigo auth check: %v\n", err)
				res.Status, res.Reason = "invalid", "invalid_state"
			} else {
				res.Status, res.AuthType, cred = "ready", auth.TypeOAuth, oc.Access
			}
		default:
			res.Status, res.AuthType = "ready", r.Type
			cred = r.APIKey
			if cred == "" {
				cred = bearerOf(r.Headers)
			}
		}
	}
	if a.has("--credentials") && res.Status == "ready" {
		if cred == "" {
			res = authCheckResult{Status: "not_ready", Provider: provider, Reason: "credential_not_available"}
		} else {
			res.Credentials = cred
		}
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

func bearerOf(h map[string]string) string {
	for k, v := range h {
		if strings.EqualFold(k, "authorization") {
			if m := regexp.MustCompile(`(?i)^Bearer\s+(.+)$`).FindStringSubmatch(v); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

func oauthSource(cfg *config.Config, provider string) *auth.Source {
	return &auth.Source{Store: auth.NewStore(cfg.AgentDir), Provider: provider, Flow: auth.FlowFor(provider)}
}

func runAuthPrintKey(c *CLI, a *args) int {
	cfg, code := c.load(a)
	if code != ExitOK {
		return 1
	}
	provider, ok := authProvider(c, cfg, a, "print")
	if !ok {
		return 1
	}
	if !knownProvider(cfg, provider) {
		fmt.Fprintf(c.Stderr, "Error: Unknown provider %q. Use --list-models to see available providers.\n", provider)
		return 1
	}
	r, err := cfg.Credential(provider, "")
	if err != nil {
		fmt.Fprintf(c.Stderr, "Error: %v\n", err)
		return 1
	}
	if r.Type == auth.TypeOAuth {
		fmt.Fprintf(c.Stderr, "Error: Provider %q is configured with OAuth, not an API key\n", provider)
		return 1
	}
	key := r.APIKey
	if key == "" {
		key = bearerOf(r.Headers)
	}
	if key == "" {
		fmt.Fprintln(c.Stderr, "Error: No usable API key is configured")
		return 1
	}
	fmt.Fprintln(c.Stdout, key)
	return 0
}

var durationRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(\d+)(ms|s|m|h)$`) })

func runAuthPrintBearer(c *CLI, a *args) int {
	min := 30 * time.Minute
	if a.has("--min-expiry") {
		m := durationRe().FindStringSubmatch(a.str("--min-expiry"))
		if m == nil {
			fmt.Fprintln(c.Stderr, "Error: --min-expiry must use a duration such as 30m or 1h")
			return 1
		}
		n, _ := strconv.Atoi(m[1])
		unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour}[strings.ToLower(m[2])]
		min = time.Duration(n) * unit
	}
	cfg, code := c.load(a)
	if code != ExitOK {
		return 1
	}
	provider, ok := authProvider(c, cfg, a, "print")
	if !ok {
		return 1
	}
	if !knownProvider(cfg, provider) {
		fmt.Fprintf(c.Stderr, "Error: Unknown provider %q. Use --list-models to see available providers.\n", provider)
		return 1
	}
	r, err := cfg.Credential(provider, "")
	if err != nil {
		fmt.Fprintf(c.Stderr, "Error: %v\n", err)
		return 1
	}
	if r.Type != auth.TypeOAuth {
		fmt.Fprintf(c.Stderr, "Error: Provider %q is not configured with an OAuth bearer token\n", provider)
		return 1
	}
	oc, err := oauthSource(cfg, provider).Credential(context.Background(), false, min)
	if err != nil {
		fmt.Fprintf(c.Stderr, "Error: %v\n", err)
		return 1
	}
	fmt.Fprintln(c.Stdout, oc.Access)
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
	store := auth.NewStore(cfg.AgentDir)
	f, err := store.Load()
	if err != nil {
		fmt.Fprintf(c.Stderr, "Could not read stored credentials: %v\n", err)
		return 1
	}
	ref := a.pos[0]
	provider := canonicalProvider(cfg, ref)
	known := knownProvider(cfg, provider)
	cred := f.Get(provider)
	if cred == nil && f.Get(ref) != nil {
		provider, cred = ref, f.Get(ref)
	}
	name := providerName(provider)
	if !known && cred == nil {
		fmt.Fprintf(c.Stderr, "Unknown provider %q.\n", ref)
		stored := f.Providers()
		sort.Strings(stored)
		list := strings.Join(stored, ", ")
		if list == "" {
			list = "none"
		}
		fmt.Fprintf(c.Stderr, "Stored credentials: %s\n", list)
		return 1
	}
	if cred == nil {
		fmt.Fprintf(c.Stdout, "No stored credentials for %s. Environment variables and models.json config are unchanged.\n", name)
		return 0
	}
	if _, err := store.Delete(context.Background(), provider); err != nil {
		fmt.Fprintf(c.Stderr, "Logout failed: %v\n", err)
		return 1
	}
	if cred.Type == auth.TypeOAuth {
		fmt.Fprintf(c.Stdout, "Logged out of %s.\n", name)
	} else {
		fmt.Fprintf(c.Stdout, "Removed stored API key for %s. Environment variables and models.json config are unchanged.\n", name)
	}
	return 0
}

func providerName(id string) string {
	if info, ok := auth.Provider(id); ok {
		return info.Name
	}
	return id
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
	provider := canonicalProvider(cfg, a.pos[0])
	if !knownProvider(cfg, provider) {
		fmt.Fprintf(c.Stderr, "Unknown provider %q.\n", a.pos[0])
		fmt.Fprintf(c.Stderr, "Providers: %s\n", strings.Join(auth.LoginProviders(cfg.ModelsJSONProviders()), ", "))
		return 1
	}
	in, inIsFile := c.Stdin.(*os.File)
	if !c.Terminal || !inIsFile || !IsTerminal(in) {
		fmt.Fprintln(c.Stderr, `"pigo auth login <provider> [--api-key] [--no-browser]" requires an interactive terminal`)
		return 1
	}
	method, err := auth.LoginMethod(provider, a.has("--api-key"), knownCustom(cfg, provider))
	if err != nil {
		fmt.Fprintln(c.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ui := &terminalLogin{c: c, in: bufio.NewReader(in), fd: int(in.Fd()), provider: provider, browser: !a.has("--no-browser"), apiKey: method == auth.TypeAPIKey}
	cred, err := auth.Login(ctx, auth.NewStore(cfg.AgentDir), provider, method, ui)
	name := providerName(provider)
	if err != nil {
		if ctx.Err() != nil || err.Error() == "Login cancelled" {
			fmt.Fprintln(c.Stderr, "Login cancelled.")
		} else {
			fmt.Fprintf(c.Stderr, "Failed to log in to %s: %v\n", name, err)
		}
		return 1
	}
	if cred.Type == auth.TypeOAuth {
		fmt.Fprintf(c.Stdout, "Logged in to %s. Credentials saved to %s\n", name, auth.Path(cfg.AgentDir))
	} else {
		fmt.Fprintf(c.Stdout, "Saved API key for %s. Credentials saved to %s\n", name, auth.Path(cfg.AgentDir))
	}
	return 0
}

func knownCustom(cfg *config.Config, provider string) bool {
	if _, ok := auth.Provider(provider); ok {
		return false
	}
	return knownProvider(cfg, provider)
}

// terminalLogin is the sign-in conversation on a terminal (pi's: the browser sign-in first,
// --no-browser picks the other method; URLs and device codes printed; the pasted redirect URL
// read while the loopback callback waits).
type terminalLogin struct {
	c        *CLI
	in       *bufio.Reader
	fd       int
	provider string
	browser  bool
	apiKey   bool
	skipped  []string
}

func (t *terminalLogin) say(s string) { fmt.Fprintln(t.c.Stdout, s) }

func (t *terminalLogin) Notify(n auth.Notice) {
	switch n.Kind {
	case auth.NoticeAuthURL:
		t.say("Open this URL to sign in:\n  " + n.URL)
		if n.Instructions != "" {
			t.say(n.Instructions)
		}
		if t.browser {
			openBrowser(n.URL)
		}
		rerun := fmt.Sprintf(`"pigo auth login %s --no-browser"`, t.provider)
		if len(t.skipped) == 1 {
			t.say(fmt.Sprintf("To use %q instead, run %s", t.skipped[0], rerun))
		} else if len(t.skipped) > 1 {
			t.say(fmt.Sprintf("Other sign-in methods: %s. Run %s to choose one.", quoteAll(t.skipped), rerun))
		}
	case auth.NoticeDeviceCode:
		t.say(fmt.Sprintf("Open %s and enter code: %s", n.VerificationURI, n.UserCode))
		if t.browser {
			openBrowser(n.VerificationURI)
		}
		t.say("Waiting for authentication...")
	default:
		t.say(n.Message)
	}
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func (t *terminalLogin) Prompt(ctx context.Context, p auth.Prompt) (string, error) {
	switch p.Kind {
	case auth.PromptSelect:
		return t.selectMethod(ctx, p)
	case auth.PromptSecret:
		return t.secret(ctx, p.Message+": ")
	}
	msg := p.Message
	if p.Placeholder != "" {
		msg += " (" + p.Placeholder + ")"
	}
	return t.question(ctx, msg+": ")
}

func (t *terminalLogin) selectMethod(ctx context.Context, p auth.Prompt) (string, error) {
	if len(p.Options) == 0 {
		return "", errors.New("no sign-in method")
	}
	first, others := p.Options[0], p.Options[1:]
	if t.apiKey {
		return t.choose(ctx, p.Message, p.Options)
	}
	if t.browser {
		for _, o := range others {
			t.skipped = append(t.skipped, o.Label)
		}
		return first.ID, nil
	}
	switch len(others) {
	case 0:
		return first.ID, nil
	case 1:
		t.say(p.Message + " " + others[0].Label)
		return others[0].ID, nil
	}
	return t.choose(ctx, p.Message, others)
}

func (t *terminalLogin) choose(ctx context.Context, msg string, opts []auth.Option) (string, error) {
	t.say(msg)
	for i, o := range opts {
		t.say(fmt.Sprintf("  %d. %s", i+1, o.Label))
	}
	for {
		ans, err := t.question(ctx, fmt.Sprintf("Select 1-%d: ", len(opts)))
		if err != nil {
			return "", err
		}
		if n, err := strconv.Atoi(strings.TrimSpace(ans)); err == nil && n >= 1 && n <= len(opts) {
			return opts[n-1].ID, nil
		}
		t.say(fmt.Sprintf("Enter a number from 1 to %d.", len(opts)))
	}
}

// question reads one line; a cancelled ctx (the browser callback came first) abandons it.
func (t *terminalLogin) question(ctx context.Context, prompt string) (string, error) {
	fmt.Fprint(t.c.Stdout, prompt)
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := t.in.ReadString('\n')
		ch <- line{strings.TrimRight(s, "\r\n"), err}
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(t.c.Stdout)
		return "", errors.New("Login cancelled")
	case l := <-ch:
		if l.err != nil && (l.err != io.EOF || l.s == "") {
			return "", errors.New("Login cancelled")
		}
		return l.s, nil
	}
}

// secret reads a line with echo off.
func (t *terminalLogin) secret(ctx context.Context, prompt string) (string, error) {
	old, err := unix.IoctlGetTermios(t.fd, unix.TCGETS)
	if err == nil {
		raw := *old
		raw.Lflag &^= unix.ECHO
		_ = unix.IoctlSetTermios(t.fd, unix.TCSETS, &raw)
		defer func() {
			_ = unix.IoctlSetTermios(t.fd, unix.TCSETS, old)
			fmt.Fprintln(t.c.Stdout)
		}()
	}
	return t.question(ctx, prompt)
}

// openBrowser opens url in the desktop's browser when there is a desktop (never blocks, never
// fails the sign-in: the URL is printed anyway).
func openBrowser(url string) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return
	}
	if p, err := exec.LookPath("xdg-open"); err == nil {
		cmd := exec.Command(p, url)
		if cmd.Start() == nil {
			go func() { _ = cmd.Wait() }()
		}
	}
}
