package sandbox

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// Show is the effective sandbox as `pigo sandbox show` reports it: the policy with where each
// value came from and, when a plan could be made, the resolved paths. The configuration fills
// it (it knows the origins); the JSON shape is cli.md's.
type Show struct {
	Version   int        `json:"version"`
	Sandboxed bool       `json:"sandboxed"`
	Workspace string     `json:"workspace"`
	Bwrap     string     `json:"bwrap,omitempty"`
	FS        ShowMode   `json:"fs"`
	Network   ShowNet    `json:"network"`
	Writable  []ShowPath `json:"writable"`
	Protected []string   `json:"protected"`
	// Placeholders are missing protected paths covered by an empty read-only tmpfs.
	Placeholders []string `json:"placeholders"`
	// ProtectedList is the one protected list (bash and the file tools), each entry with
	// how bash is kept from it.
	ProtectedList []ProtectionRow `json:"protected_list"`
	UnixSockets   ShowSockets     `json:"unix_sockets"`
	Deny          []ShowDeny      `json:"deny"`
	ExtraArgs     []ShowEntry     `json:"extra_args"`
	BwrapPath     *ShowEntry      `json:"bwrap_path,omitempty"`
	Rules         []ShowRule      `json:"rules"`
	Ignored       []ShowIgnored   `json:"ignored"`
	// Error is why no plan could be made (no bwrap, HOME unset); the paths are then as written.
	Error string `json:"error,omitempty"`
}

// ShowOrigin is where a value was written: a file position, or the default.
type ShowOrigin struct {
	Scope  string `json:"scope"` // default | global | project
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

func (o ShowOrigin) String() string {
	if o.File == "" {
		return "default"
	}
	return fmt.Sprintf("%s:%d:%d", o.File, o.Line, o.Column)
}

// ShowMode is an axis's mode and its origin.
type ShowMode struct {
	Mode   string     `json:"mode"`
	Origin ShowOrigin `json:"origin"`
}

// ShowNet is the network axis: its mode and allowlist.
type ShowNet struct {
	Mode      string      `json:"mode"`
	Origin    ShowOrigin  `json:"origin"`
	Allowlist []ShowEntry `json:"allowlist"`
}

// ShowEntry is one value of a list with its origin.
type ShowEntry struct {
	Value  string     `json:"value"`
	Origin ShowOrigin `json:"origin"`
}

// ShowPath is one writable path.
type ShowPath struct {
	Path    string     `json:"path"`    // resolved (as written when no plan could be made)
	Written string     `json:"written"` // as in the file
	Extra   bool       `json:"extra"`   // from fs.extraWritablePaths
	Origin  ShowOrigin `json:"origin"`
}

// ShowDeny is one fs.denyPaths entry.
type ShowDeny struct {
	Path    string     `json:"path"`
	Written string     `json:"written"`
	Dir     bool       `json:"dir"`               // a tmpfs hides a directory; else /dev/null over a file
	Skipped string     `json:"skipped,omitempty"` // why it is not mounted
	Origin  ShowOrigin `json:"origin"`
}

// ShowSockets says whether host Unix sockets are reachable from inside.
type ShowSockets struct {
	Blocked bool     `json:"blocked"` // the seccomp filter refuses socket(AF_UNIX)
	Allowed []string `json:"allowed"` // network.allowUnixSockets, resolved
}

// ShowRule is one approval rule and where it is written.
type ShowRule struct {
	Action  string `json:"action"`
	Pattern string `json:"pattern"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

// ShowIgnored is a sandbox file that is not applied, and why.
type ShowIgnored struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// WriteText prints the report as `pigo sandbox show` does.
func (s Show) WriteText(w io.Writer) {
	state := "off: both axes are allow-all, commands run directly"
	if s.Sandboxed {
		state = "on"
		if s.Bwrap != "" {
			state += " (bwrap " + s.Bwrap + ")"
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "sandbox:\t%s\n", state)
	fmt.Fprintf(tw, "workspace:\t%s\n", s.Workspace)
	fmt.Fprintf(tw, "fs:\t%s\t%s\n", s.FS.Mode, s.FS.Origin)
	fmt.Fprintf(tw, "network:\t%s\t%s\n", s.Network.Mode, s.Network.Origin)
	if s.BwrapPath != nil {
		fmt.Fprintf(tw, "bwrapPath:\t%s\t%s\n", s.BwrapPath.Value, s.BwrapPath.Origin)
	}
	tw.Flush()
	section := func(title string, n int, rows func(tw *tabwriter.Writer)) {
		fmt.Fprintln(w, title)
		if n == 0 {
			fmt.Fprintln(w, "  (none)")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		rows(tw)
		tw.Flush()
	}
	// Resolved paths vary in length (they hold the workspace), so these rows are not aligned.
	fmt.Fprintln(w, "writable:")
	if len(s.Writable) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, p := range s.Writable {
		what := "fs.writablePaths"
		switch {
		case p.Extra:
			what = "fs.extraWritablePaths"
		case s.FS.Mode == FSAllowAll:
			what = "fs.mode allow-all"
		}
		fmt.Fprintf(w, "  %s  (%q from %s, %s)\n", p.Path, p.Written, what, p.Origin)
	}
	// The one protected list, printed once: the file tools ask before writing any entry
	// (headless: refused); the note says how bash is kept from it.
	fmt.Fprintln(w, "protected (file tools ask before writing; bash cannot write them):")
	if len(s.ProtectedList) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, p := range s.ProtectedList {
		note := map[string]string{
			"placeholder": "  (missing: an empty read-only placeholder, so it cannot be created)",
			"missing":     "  (missing)",
			"writable":    "  (file tools only: fs.mode allow-all leaves it writable to bash)",
			"off":         "  (file tools only: the sandbox is off)",
			"bash only":   "  (bash only: " + p.Why + ")",
		}[p.Bash]
		fmt.Fprintf(w, "  %s%s\n", p.Path, note)
	}
	if s.Sandboxed && s.Network.Mode != NetAllowAll {
		switch {
		case s.UnixSockets.Blocked:
			fmt.Fprintln(w, "unix sockets: refused (seccomp filter); socket directories hidden")
		case len(s.UnixSockets.Allowed) > 0:
			fmt.Fprintf(w, "unix sockets: only %s (network.allowUnixSockets); socket directories hidden\n", strings.Join(s.UnixSockets.Allowed, ", "))
		}
	}
	fmt.Fprintln(w, "deny:")
	if len(s.Deny) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, d := range s.Deny {
		how := "a file: /dev/null over it"
		if d.Dir {
			how = "a directory: an empty tmpfs over it"
		}
		if d.Skipped != "" {
			how = "skipped: " + d.Skipped
		}
		fmt.Fprintf(w, "  %s  (%q, %s; %s)\n", d.Path, d.Written, how, d.Origin)
	}
	section("allowlist:", len(s.Network.Allowlist), func(tw *tabwriter.Writer) {
		for _, e := range s.Network.Allowlist {
			fmt.Fprintf(tw, "  %s\t%s\n", e.Value, e.Origin)
		}
	})
	if len(s.ExtraArgs) > 0 {
		section("extra bwrap args:", len(s.ExtraArgs), func(tw *tabwriter.Writer) {
			for _, e := range s.ExtraArgs {
				fmt.Fprintf(tw, "  %s\t%s\n", e.Value, e.Origin)
			}
		})
	}
	section("approval rules (the last matching rule decides):", len(s.Rules), func(tw *tabwriter.Writer) {
		for _, r := range s.Rules {
			fmt.Fprintf(tw, "  %s\t%q\t%s:%d:%d\n", r.Action, r.Pattern, r.File, r.Line, r.Column)
		}
	})
	for _, ig := range s.Ignored {
		fmt.Fprintf(w, "not applied: %s: %s\n", ig.File, ig.Reason)
	}
	if s.Error != "" {
		fmt.Fprintf(w, "no plan: %s\n", s.Error)
	}
}

// Limits describes a sandboxed plan in one line, for a command that failed.
func (pl *Plan) Limits() string {
	var fs strings.Builder
	fs.WriteString("fs=" + pl.FSMode)
	writable := append(append([]string{}, pl.Writable...), pl.Extra...)
	var ro []string
	for _, p := range pl.Protected {
		if _, err := os.Lstat(p); err == nil {
			ro = append(ro, p)
		}
	}
	if pl.FSMode != FSAllowAll {
		w := "none"
		if len(writable) > 0 {
			w = strings.Join(writable, ", ")
		}
		fs.WriteString(" (writable: " + w)
		if len(ro) > 0 {
			fs.WriteString("; read-only inside: " + strings.Join(ro, ", "))
		}
		fs.WriteString(")")
	}
	var hidden []string
	for _, d := range pl.Deny {
		hidden = append(hidden, d.Path)
	}
	if len(hidden) > 0 {
		fs.WriteString(", hidden: " + strings.Join(hidden, ", "))
	}
	net := "network=" + pl.NetMode
	if pl.NetMode == NetLimited {
		net += " (allowlist: " + strings.Join(pl.Allowlist, ", ") + ")"
	}
	return fs.String() + ", " + net
}

// WriteText prints the decision as `pigo sandbox approve` does: the decision, each command
// with the rule that decided it, and the suggested rules.
func (ap Approval) WriteText(w io.Writer) {
	fmt.Fprintf(w, "decision: %s\n", ap.Decision)
	if ap.Error != "" {
		fmt.Fprintf(w, "  %s\n", ap.Error)
	}
	width := 0
	for _, cd := range ap.Commands {
		width = max(width, len(cd.Text))
	}
	width = min(width, 48)
	for _, cd := range ap.Commands {
		why := "no rule matched"
		if cd.Rule != nil {
			why = fmt.Sprintf("%s %q at %s:%d:%d", cd.Rule.Action, cd.Rule.Pattern, cd.Rule.File, cd.Rule.Line, cd.Rule.Column)
		} else if cd.Opaque {
			why = "runs a script pigo cannot read"
		}
		text := strings.ReplaceAll(cd.Text, "\n", `\n`)
		fmt.Fprintf(w, "  %-5s %-*s  %s\n", cd.Decision, width, text, why)
	}
	if ap.Redirect {
		fmt.Fprintln(w, "  the line writes to a file (output redirection): it cannot be allowed without asking")
	}
	if len(ap.Suggestions) > 0 {
		fmt.Fprintln(w, "suggested rules (allow forever):")
		for _, s := range ap.Suggestions {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
}
