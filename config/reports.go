package config

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// The reports of `pigo config path|blame|set|unset|add`: what they show, their JSON shapes
// (cli.md) and their text. The command line parses the flags and maps the outcome to an exit
// code.

// PathReport is `pigo config path`: every file of the kinds asked, global and project.
type PathReport struct {
	Version      int         `json:"version"`
	DefaultScope string      `json:"default_scope"`
	Trusted      bool        `json:"trusted"`
	TrustReason  string      `json:"trust_reason"`
	Files        []PathEntry `json:"files"`
	// untrusted is true when the project's files are not applied because it is not trusted.
	untrusted bool
}

// PathEntry is one file of a PathReport.
type PathEntry struct {
	Kind    string `json:"kind"`
	Scope   string `json:"scope"`
	Path    string `json:"path"`
	Exists  bool   `json:"exists"`
	Applied bool   `json:"applied"`
	Legacy  bool   `json:"legacy,omitempty"`
}

// PathReport lists the files of kinds, with the seed's older bwrap.json where it exists.
func (c *Config) PathReport(kinds []Kind) PathReport {
	out := PathReport{Version: 1, DefaultScope: string(c.DefaultScope()), Trusted: c.ProjectTrustedQuietly(), TrustReason: c.TrustReason,
		Files: []PathEntry{}, untrusted: !c.Trusted}
	if !c.HasProject {
		out.TrustReason = "no project overlay yet"
	}
	for _, k := range kinds {
		for _, s := range []Scope{Global, Project} {
			p := c.Path(k, s)
			e := PathEntry{Kind: string(k), Scope: string(s), Path: p}
			if f := c.Layer(k, s); f != nil {
				e.Exists, e.Applied = true, f.Applied
			}
			out.Files = append(out.Files, e)
			if k == Sandbox {
				old := filepath.Join(filepath.Dir(p), "bwrap.json")
				if _, err := os.Lstat(old); err == nil {
					out.Files = append(out.Files, PathEntry{Kind: string(k), Scope: string(s), Path: old, Exists: true, Legacy: true})
				}
			}
		}
	}
	return out
}

// WriteText prints the report as a table and the default scope.
func (r PathReport) WriteText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tSCOPE\tPATH\tSTATE")
	for _, e := range r.Files {
		state := "missing"
		switch {
		case e.Legacy:
			state = "legacy name, not read (pigo config migrate sandbox)"
		case e.Exists && e.Applied:
			state = "exists"
		case e.Exists && e.Scope == "project" && r.untrusted:
			state = "exists, not applied (untrusted project)"
		case e.Exists:
			state = "exists, not applied (see pigo check)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Kind, e.Scope, e.Path, state)
	}
	tw.Flush()
	fmt.Fprintf(w, "default scope: %s (project trusted: %v, %s)\n", r.DefaultScope, r.Trusted, r.TrustReason)
}

// BlameReport is `pigo config blame FILE [KEY]`.
type BlameReport struct {
	Version int           `json:"version"`
	File    string        `json:"file"`
	Key     string        `json:"key,omitempty"`
	Leaves  []BlameLeaf   `json:"leaves"`
	Ignored []BlameIgnore `json:"ignored"`
	// Found is false when KEY is not set in the effective configuration.
	Found  bool `json:"-"`
	layers int
}

// BlameIgnore is a layer left out of the effective configuration, and why.
type BlameIgnore struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// BlameReport blames the leaves under key (path is key parsed) of the kind k.
func (e *Effective) BlameReport(k Kind, key string, path []PathStep) BlameReport {
	leaves, found := e.Blame(path)
	out := BlameReport{Version: 1, File: string(k), Key: key, Leaves: leaves, Ignored: []BlameIgnore{}, Found: found, layers: len(e.Layers)}
	if out.Leaves == nil {
		out.Leaves = []BlameLeaf{}
	}
	for _, ig := range e.Ignored {
		out.Ignored = append(out.Ignored, BlameIgnore{File: ig.File.Path, Reason: ig.Reason})
	}
	return out
}

// WriteText prints each leaf with where it was written and what it replaced.
func (r BlameReport) WriteText(w io.Writer) {
	for _, l := range r.Leaves {
		fmt.Fprintf(w, "%s = %s\n    %s:%d:%d  [%s]\n", l.Path, l.Value, l.File, l.Line, l.Column, l.Rule)
		for _, x := range l.Replaced {
			verb := "replaced"
			if x.Ignored {
				verb = "ignored (read from the global file only)"
			}
			fmt.Fprintf(w, "    %s %s at %s:%d:%d\n", verb, x.Value, x.File, x.Line, x.Column)
		}
	}
	if r.layers == 0 && len(r.Leaves) == 0 {
		fmt.Fprintf(w, "no %s layer applies: every value is the default\n", FileName(Kind(r.File)))
	}
	for _, ig := range r.Ignored {
		fmt.Fprintf(w, "ignored: %s: %s\n", ig.File, ig.Reason)
	}
}

// ParseValue reads a VALUE argument: JSON, or a bare string when it does not parse as JSON.
func ParseValue(s string) []byte {
	t := strings.TrimSpace(s)
	if t != "" && json.Valid([]byte(t)) {
		return []byte(t)
	}
	b, _ := json.Marshal(s)
	return b
}

// Summarize says in one line what the edits do.
func Summarize(ops []EditOp) string {
	var parts []string
	for _, o := range ops {
		switch o.Op {
		case OpSet:
			parts = append(parts, fmt.Sprintf("set %s = %s", o.Path, o.Value))
		case OpUnset:
			parts = append(parts, "unset "+o.Path)
		case OpAdd:
			parts = append(parts, fmt.Sprintf("added %s to %s", o.Value, o.Path))
		}
	}
	return strings.Join(parts, "; ")
}

// DroppedBy are the global values a project edit removes from the effective configuration,
// because the new project entry replaces a whole global one (not the values being set).
func (ch *Change) DroppedBy(c *Config, ops []EditOp) []string {
	var dropped []string
	for _, d := range ch.Dropped(c) {
		if !slices.ContainsFunc(ops, func(o EditOp) bool { return strings.HasPrefix(d, o.Path+" = ") }) {
			dropped = append(dropped, d)
		}
	}
	return dropped
}
