package tui

import (
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// originText says where an effective value was written ("default" when nowhere).
func originText(v *config.Value) string {
	o := config.ValueOrigin(v)
	if o.File == "" {
		return "default"
	}
	return fmt.Sprintf("%s:%d:%d", o.File, o.Line, o.Column)
}

// shortOrigin is originText with the home directory written as ~.
func (m *Model) shortOrigin(v *config.Value) string { return m.short(originText(v)) }

// effValue walks the effective sandbox.json by keys (nil when absent).
func (m *Model) effValue(keys ...string) *config.Value {
	if m.snap.sandEff == nil || m.snap.sandEff.Root == nil {
		return nil
	}
	v := m.snap.sandEff.Root
	for _, k := range keys {
		if v == nil {
			return nil
		}
		v = v.Get(k)
	}
	return v
}

// listLines renders a policy list with the origin of each element (the policy keeps the
// effective array's string elements in order).
func (m *Model) listLines(title string, values []string, keys ...string) []string {
	out := []string{fmt.Sprintf("%s (%d)", title, len(values))}
	var elems []*config.Value
	if v := m.effValue(keys...); v != nil && v.Kind == jsonc.Array {
		for _, e := range v.Elems {
			if e.Kind == jsonc.String {
				elems = append(elems, e)
			}
		}
	}
	for i, s := range values {
		origin := "default"
		if i < len(elems) {
			origin = m.shortOrigin(elems[i])
		}
		out = append(out, fmt.Sprintf("  %-28s %s", s, origin))
	}
	return out
}

// policyLines is the effective policy with origins, in plain text.
func (m *Model) policyLines() []string {
	if m.snap == nil {
		return nil
	}
	if m.snap.policyErr != nil {
		return []string{"the sandbox policy cannot be read (commands are refused): " + m.snap.policyErr.Error()}
	}
	p := m.snap.policy
	out := []string{
		fmt.Sprintf("fs.mode       %-16s %s", p.FSMode, m.shortOrigin(m.effValue("fs", "mode"))),
		fmt.Sprintf("network.mode  %-16s %s", p.NetMode, m.shortOrigin(m.effValue("network", "mode"))),
	}
	if !p.Sandboxed() {
		out = append(out, "both axes allow-all: commands run unsandboxed")
	}
	out = append(out, fmt.Sprintf("approval rules (%d, the last match wins per command)", len(p.ApprovalRules)))
	for _, r := range p.ApprovalRules {
		origin := "default"
		if r.Origin.File != "" {
			origin = fmt.Sprintf("%s:%d:%d", m.short(r.Origin.File), r.Origin.Line, r.Origin.Column)
		}
		out = append(out, fmt.Sprintf("  %-5s %-22s %s", r.Action, r.Pattern, origin))
	}
	out = append(out, m.listLines("fs.writablePaths", p.WritablePaths, "fs", "writablePaths")...)
	out = append(out, m.listLines("fs.extraWritablePaths", p.ExtraWritablePaths, "fs", "extraWritablePaths")...)
	out = append(out, m.listLines("fs.denyPaths", p.DenyPaths, "fs", "denyPaths")...)
	out = append(out, m.listLines("network.allowlist", p.Allowlist, "network", "allowlist")...)
	if len(p.ExtraArgs) > 0 {
		out = append(out, m.listLines("extraArgs", p.ExtraArgs, "extraArgs")...)
	}
	if m.snap.sandEff != nil {
		for _, ig := range m.snap.sandEff.Ignored {
			out = append(out, fmt.Sprintf("not applied: %s: %s", m.short(ig.File.Path), ig.Reason))
		}
	}
	return out
}

func (m *Model) sandboxView() []string {
	if m.snap == nil {
		return nil
	}
	cur := ""
	if m.sbFocus {
		cur = "▏"
	}
	text := m.sbIn.String()
	if text == "" && !m.sbFocus {
		text = "(press i to type a command line)"
	}
	out := []string{trunc("$ "+text+cur, m.width)}
	if ap := m.approval; ap != nil {
		out = append(out, m.st.title.Render("decision: ")+m.st.word(ap.Decision).Render(ap.Decision))
		if ap.Error != "" {
			out = append(out, trunc("  "+ap.Error, m.width))
		}
		for _, cd := range ap.Commands {
			why := "no rule matched"
			if cd.Rule != nil {
				why = fmt.Sprintf("%s %q at %s:%d:%d", cd.Rule.Action, cd.Rule.Pattern, m.short(cd.Rule.File), cd.Rule.Line, cd.Rule.Column)
				if cd.Rule.File == "" {
					why = fmt.Sprintf("%s %q (default rule)", cd.Rule.Action, cd.Rule.Pattern)
				}
			} else if cd.Opaque {
				why = "runs a script pigo cannot read"
			}
			t := strings.ReplaceAll(cd.Text, "\n", `\n`)
			out = append(out, "  "+m.st.word(cd.Decision).Render(fit(cd.Decision, 5))+" "+trunc(fmt.Sprintf("%-20s %s", trunc(t, 30), why), m.width-8))
		}
		if ap.Redirect {
			out = append(out, trunc("  writes to a file (output redirection): asks", m.width))
		}
		if len(ap.Suggestions) > 0 {
			out = append(out, trunc("  suggested allow rules: "+strings.Join(ap.Suggestions, ", "), m.width))
		}
	}
	out = append(out, m.st.faint.Render(strings.Repeat("─", m.width)))
	pl := m.policyLines()
	if m.sbTop < len(pl) {
		pl = pl[m.sbTop:]
	}
	for _, l := range pl {
		out = append(out, trunc(l, m.width))
	}
	return out
}
