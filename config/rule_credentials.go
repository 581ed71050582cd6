package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/auth"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// checkCredentials reports a default or enabled model whose provider has no usable credential
// (no --api-key can be assumed at check time: auth.json, models.json's apiKey, the
// environment), with what would give it one, at the setting that names the model; and an
// auth.json that cannot be read or is malformed (a session would stop on it).
func (c *Config) checkCredentials() diag.List {
	var out diag.List
	if _, err := auth.Read(auth.Path(c.AgentDir)); err != nil {
		msg := err.Error()
		var pe *auth.ParseError
		if errors.As(err, &pe) {
			msg = pe.Msg
		}
		out.Add(diag.FileSpan(diag.NewSource(auth.Path(c.AgentDir), nil)), diag.Error, "no-credentials", "",
			msg+": no stored credential can be used until it is fixed")
		return out
	}
	seen := map[string]bool{}
	report := func(f *File, n *jsonc.Node, path, provider, id string) {
		ref := id
		if provider != "" && !strings.Contains(id, "/") {
			ref = provider + "/" + id
		}
		mi, err := c.SessionModel(ref)
		if err != nil || mi == nil || mi.Provider == "" || mi.Source == "defaults" || seen[strings.ToLower(mi.Provider)] {
			return
		}
		seen[strings.ToLower(mi.Provider)] = true
		if mi.Source == FileName(OpenAICost) {
			return // the seed's provider reads its own variable at run time
		}
		r, err := c.Credential(mi.Provider, "")
		if err != nil || r.Type != "" {
			return
		}
		// An info: a machine that only checks configs (CI) has no keys, and real users' files
		// must check clean there; the session itself says it before its first request.
		out.Add(diag.At(f.Src, n.Start, n.End), diag.Info, "no-credentials", path,
			fmt.Sprintf("%s: provider %q has no credential (auth.json, models.json apiKey or environment), so requests to %s/%s would fail: %s",
				path, mi.Provider, mi.Provider, mi.ID, auth.Guidance(mi.Provider))).Hint = auth.Guidance(mi.Provider)
	}
	for _, f := range c.Files {
		if f.Kind != Settings || !f.Applied || f.Root == nil || f.Root.Kind != jsonc.Object || f.Broken || f.Dialect != "" {
			continue
		}
		prov := ""
		if p := f.Root.Get("defaultProvider"); p != nil && p.Kind == jsonc.String {
			prov = strings.TrimSpace(p.Str)
		}
		if m := f.Root.Get("defaultModel"); m != nil && m.Kind == jsonc.String && strings.TrimSpace(m.Str) != "" {
			report(f, m, "defaultModel", prov, stripLevel(strings.TrimSpace(m.Str)))
		}
		if em := f.Root.Get("enabledModels"); em != nil && em.Kind == jsonc.Array {
			for i, e := range em.Elems {
				if e.Kind != jsonc.String || strings.ContainsAny(e.Str, "*?[") || strings.TrimSpace(e.Str) == "" {
					continue
				}
				report(f, e, fmt.Sprintf("enabledModels[%d]", i), "", stripLevel(strings.TrimSpace(e.Str)))
			}
		}
	}
	return out
}
