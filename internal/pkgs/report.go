package pkgs

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Listed is one configured package as `pigo list` shows it (JSON: cli.md's shape).
type Listed struct {
	Source    string `json:"source"`
	Scope     string `json:"scope"`
	Filtered  bool   `json:"filtered"`
	Installed string `json:"installed_path,omitempty"`
}

// WriteList prints the configured packages as pi's `list` does: the user's, then the
// project's, each with where it is installed.
func WriteList(w io.Writer, list []Listed) {
	if len(list) == 0 {
		fmt.Fprintln(w, "No packages installed.")
		return
	}
	for i, scope := range []string{"user", "project"} {
		head := false
		for _, p := range list {
			if p.Scope != scope {
				continue
			}
			if !head {
				if i == 1 && slices.ContainsFunc(list, func(x Listed) bool { return x.Scope == "user" }) {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%s packages:\n", strings.ToUpper(scope[:1])+scope[1:])
				head = true
			}
			d := p.Source
			if p.Filtered {
				d += " (filtered)"
			}
			fmt.Fprintf(w, "  %s\n", d)
			if p.Installed != "" {
				fmt.Fprintf(w, "    %s\n", p.Installed)
			}
		}
	}
}

// Updates is what `pigo update` did: the packages updated ("SOURCE FROM -> TO") and the ones
// that failed ("SOURCE: error"); Target is the one package asked for ("" for all).
type Updates struct {
	Target          string
	Updated, Failed []string
}

// Write prints the failures on errw (each after prefix) and the summary on w.
func (u Updates) Write(w, errw io.Writer, prefix string) {
	for _, f := range u.Failed {
		fmt.Fprintf(errw, "%s%s\n", prefix, f)
	}
	switch {
	case len(u.Updated) > 0:
		word := "packages"
		if len(u.Updated) == 1 {
			word = "package"
		}
		fmt.Fprintf(w, "Updated %d %s:\n", len(u.Updated), word)
		for _, x := range u.Updated {
			fmt.Fprintf(w, "  %s\n", x)
		}
	case len(u.Failed) > 0:
	case u.Target != "":
		fmt.Fprintf(w, "%s is already up to date\n", u.Target)
	default:
		fmt.Fprintln(w, "Packages are already up to date")
	}
}
