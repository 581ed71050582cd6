package config

import (
	"fmt"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// PolicyError is a sandbox.json layer that would apply but has errors: running a command under
// a half-read policy could be looser than the user wrote, so the run is refused (fail closed).
type PolicyError struct {
	// File is the layer at fault.
	File *File
	// First is its first error.
	First diag.Diagnostic
}

// Error returns the reference text ("Invalid bwrap configuration at <path>: <detail>") with the
// first error's position.
func (e *PolicyError) Error() string {
	line, col := e.First.Pos()
	return fmt.Sprintf("Invalid bwrap configuration at %s: %d:%d: %s [%s] (run pigo check for all problems)",
		e.File.Path, line, col, e.First.Message, e.First.Code)
}

// SandboxPolicy returns the effective sandbox policy for commands: the reference defaults, then
// the global sandbox.json, then a trusted project's .pi/sandbox.json, merged by the schema's
// rules (Effective). Each approval rule carries the file, line and column of its pattern.
//
// Layers that are not applied (an untrusted project, a foreign dialect, the legacy bwrap.json
// name or flat shape) leave the defaults in place; they are listed in Effective.Ignored so
// that the caller says so. A layer that would apply but has errors is an error
// (*PolicyError): the policy is refused rather than half applied.
func (c *Config) SandboxPolicy() (sandbox.Policy, *Effective, error) {
	eff, err := c.Effective(Sandbox)
	if err != nil {
		return sandbox.Policy{}, nil, err
	}
	var bad []*File
	for _, ig := range eff.Ignored {
		f := ig.File
		if !f.Legacy && f.Dialect == "" && (f.Scope != Project || c.Trusted) {
			bad = append(bad, f) // unreadable or unparsable
		}
	}
	for _, f := range eff.Layers {
		if f.Diags.HasErrors() {
			bad = append(bad, f)
		}
	}
	for _, f := range bad {
		pe := &PolicyError{File: f}
		for _, d := range append(diag.List(nil), f.Diags...).Sort() {
			if d.Severity == diag.Error {
				pe.First = d
				break
			}
		}
		if pe.First.Message == "" {
			pe.First = diag.Diagnostic{Span: diag.FileSpan(f.Src), Code: "io", Message: "the file could not be read"}
		}
		return sandbox.Policy{}, eff, pe
	}
	p := policyOf(eff.Root)
	p.AgentDir = c.AgentDir // never writable from inside (global sandbox.json, trust.json)
	return p, eff, nil
}

// ValueOrigin says where an effective value was written; the zero Origin means the default.
func ValueOrigin(v *Value) sandbox.Origin {
	if v == nil || v.File == nil || v.Node == nil || v.File.Src == nil {
		return sandbox.Origin{}
	}
	line, col := v.File.Src.Position(v.Node.Start)
	return sandbox.Origin{File: v.File.Path, Line: line, Column: col}
}

// policyOf reads a (merged or single-layer) sandbox.json value over the defaults. Values of the
// wrong type are left at their defaults: the schema reports them.
func policyOf(root *Value) sandbox.Policy {
	p := sandbox.DefaultPolicy()
	if root == nil || root.Kind != jsonc.Object {
		return p
	}
	fs, net := root.Get("fs"), root.Get("network")
	if s, ok := strValue(fs.Get("mode")); ok {
		p.FSMode = s
		p.FSModeOrigin = ValueOrigin(fs.Get("mode"))
	}
	if l, ok := strList(fs.Get("writablePaths")); ok {
		p.WritablePaths = l
	}
	if l, ok := strList(fs.Get("extraWritablePaths")); ok {
		p.ExtraWritablePaths = l
	}
	if l, ok := strList(fs.Get("denyPaths")); ok {
		p.DenyPaths = l
	}
	if s, ok := strValue(net.Get("mode")); ok {
		p.NetMode = s
		p.NetModeOrigin = ValueOrigin(net.Get("mode"))
	}
	if l, ok := strList(net.Get("allowUnixSockets")); ok {
		p.AllowUnixSockets = l
	}
	if l, ok := strList(net.Get("allowlist")); ok {
		p.Allowlist = l
	}
	if s, ok := strValue(net.Get("mihomoPath")); ok {
		p.MihomoPath = s
	}
	if s, ok := strValue(net.Get("slirp4netnsPath")); ok {
		p.Slirp4netnsPath = s
	}
	if s, ok := strValue(root.Get("bwrapPath")); ok {
		p.BwrapPath = s
	}
	if l, ok := strList(root.Get("extraArgs")); ok {
		p.ExtraArgs = l
	}
	if rules := root.Get("approvalRules"); rules != nil && rules.Kind == jsonc.Array {
		for _, e := range rules.Elems {
			action, ok1 := strValue(e.Get("action"))
			pattern, ok2 := strValue(e.Get("pattern"))
			if !ok1 || !ok2 {
				continue
			}
			p.ApprovalRules = append(p.ApprovalRules, sandbox.Rule{Action: action, Pattern: pattern, Origin: ValueOrigin(e.Get("pattern"))})
		}
	}
	return p
}

func strValue(v *Value) (string, bool) {
	if v == nil || v.Node == nil || v.Kind != jsonc.String {
		return "", false
	}
	return v.Node.Str, true
}

// strList reads an array of strings; a non-array is absent and non-string elements are skipped.
func strList(v *Value) ([]string, bool) {
	if v == nil || v.Kind != jsonc.Array {
		return nil, false
	}
	out := []string{}
	for _, e := range v.Elems {
		if s, ok := strValue(e); ok {
			out = append(out, s)
		}
	}
	return out, true
}
