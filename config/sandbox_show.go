package config

import (
	"strings"

	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// SandboxShow is `pigo sandbox show`'s report: the policy read from eff with where each value
// was written, and the resolved paths of pl (nil, with planErr, when no plan could be made).
func (c *Config) SandboxShow(pol sandbox.Policy, eff *Effective, pl *sandbox.Plan, planErr error) sandbox.Show {
	out := sandbox.Show{Version: 1, Sandboxed: pol.Sandboxed(), Workspace: c.ProjectDir,
		FS:            sandbox.ShowMode{Mode: pol.FSMode, Origin: showOrigin(effGet(eff, "fs", "mode"))},
		Network:       sandbox.ShowNet{Mode: pol.NetMode, Origin: showOrigin(effGet(eff, "network", "mode")), Allowlist: []sandbox.ShowEntry{}},
		Writable:      []sandbox.ShowPath{},
		Protected:     []string{},
		Placeholders:  []string{},
		ProtectedList: []sandbox.ProtectionRow{},
		UnixSockets:   sandbox.ShowSockets{Allowed: []string{}},
		Deny:          []sandbox.ShowDeny{},
		ExtraArgs:     []sandbox.ShowEntry{},
		Rules:         []sandbox.ShowRule{},
		Ignored:       []sandbox.ShowIgnored{},
	}
	if planErr != nil {
		out.Error = planErr.Error()
	}
	if pl != nil {
		out.Workspace, out.Bwrap, out.Protected = pl.Workspace, pl.Bwrap, pl.Protected
		out.Placeholders = append(out.Placeholders, pl.Placeholders...)
		out.ProtectedList = append(out.ProtectedList, pl.ProtectionRows()...)
		if pl.Sandboxed && pl.NetMode != sandbox.NetAllowAll {
			out.UnixSockets.Blocked = len(pl.UnixSockets) == 0
			out.UnixSockets.Allowed = append(out.UnixSockets.Allowed, pl.UnixSockets...)
		}
	}
	def := sandbox.ShowOrigin{Scope: "default"}
	// writable adds the paths of one list with their resolved form and origin.
	writable := func(paths []string, key string, resolvedList func() []string, extra bool) {
		elems := stringElems(effGet(eff, "fs", key))
		for i, w := range paths {
			p := sandbox.ShowPath{Path: w, Written: w, Extra: extra, Origin: def}
			if pl != nil && pl.Sandboxed {
				if r := resolvedList(); i < len(r) {
					p.Path = r[i]
				}
			}
			if i < len(elems) {
				p.Origin = showOrigin(elems[i])
			}
			out.Writable = append(out.Writable, p)
		}
	}
	switch pol.FSMode {
	case sandbox.FSAllowAll:
		out.Writable = append(out.Writable, sandbox.ShowPath{Path: "/", Written: "/", Origin: out.FS.Origin})
	case sandbox.FSWorkspaceWrite:
		writable(pol.WritablePaths, "writablePaths", func() []string { return pl.Writable }, false)
	}
	writable(pol.ExtraWritablePaths, "extraWritablePaths", func() []string { return pl.Extra }, true)
	deny := stringElems(effGet(eff, "fs", "denyPaths"))
	j, k := 0, 0
	for i, d := range pol.DenyPaths {
		dj := sandbox.ShowDeny{Path: d, Written: d, Dir: strings.HasSuffix(d, "/"), Origin: def}
		if i < len(deny) {
			dj.Origin = showOrigin(deny[i])
		}
		if pl != nil && pl.Sandboxed {
			if k < len(pl.Skipped) && pl.Skipped[k].Path == d {
				dj.Skipped = pl.Skipped[k].Reason
				k++
			} else if j < len(pl.Deny) {
				dj.Path, dj.Dir = pl.Deny[j].Path, pl.Deny[j].Dir
				j++
			}
		}
		out.Deny = append(out.Deny, dj)
	}
	entries := func(values []string, elems []*Value) []sandbox.ShowEntry {
		list := []sandbox.ShowEntry{}
		for i, e := range values {
			ej := sandbox.ShowEntry{Value: e, Origin: def}
			if i < len(elems) {
				ej.Origin = showOrigin(elems[i])
			}
			list = append(list, ej)
		}
		return list
	}
	out.Network.Allowlist = entries(pol.Allowlist, stringElems(effGet(eff, "network", "allowlist")))
	out.ExtraArgs = entries(pol.ExtraArgs, stringElems(effGet(eff, "extraArgs")))
	if pol.BwrapPath != "" {
		out.BwrapPath = &sandbox.ShowEntry{Value: pol.BwrapPath, Origin: showOrigin(effGet(eff, "bwrapPath"))}
	}
	for _, r := range pol.ApprovalRules {
		out.Rules = append(out.Rules, sandbox.ShowRule{Action: r.Action, Pattern: r.Pattern, File: r.Origin.File, Line: r.Origin.Line, Column: r.Origin.Column})
	}
	if eff != nil {
		for _, ig := range eff.Ignored {
			out.Ignored = append(out.Ignored, sandbox.ShowIgnored{File: ig.File.Path, Reason: ig.Reason})
		}
	}
	return out
}

// showOrigin is where v was written, with its scope; the default when it was not.
func showOrigin(v *Value) sandbox.ShowOrigin {
	o := ValueOrigin(v)
	if o.File == "" {
		return sandbox.ShowOrigin{Scope: "default"}
	}
	return sandbox.ShowOrigin{Scope: string(v.File.Scope), File: o.File, Line: o.Line, Column: o.Column}
}

// effGet walks an effective value by keys (nil when absent).
func effGet(eff *Effective, keys ...string) *Value {
	if eff == nil {
		return nil
	}
	v := eff.Root
	for _, k := range keys {
		v = v.Get(k)
	}
	return v
}

// stringElems returns the string elements of an effective array (what the policy read).
func stringElems(v *Value) []*Value {
	if v == nil || v.Kind != jsonc.Array {
		return nil
	}
	var out []*Value
	for _, e := range v.Elems {
		if e.Kind == jsonc.String {
			out = append(out, e)
		}
	}
	return out
}
