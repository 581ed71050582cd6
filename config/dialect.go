package config

import (
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/validate"
)

// dialect is a known shape of a file that shares its name with pigo's files but was written
// for another pi extension (or for an older version of the seed). D15: a whole file in a
// foreign dialect gets one foreign-dialect info and is not applied; the seed's own older shape
// gets a legacy-shape warning and a migration.
type dialect struct {
	kind Kind
	name string
	// says what the file looks like and what pigo reads instead.
	says string
	// any of these key paths identifies the dialect. A path step "*" matches any key, and a
	// final "[]" requires an array there.
	keys []string
	// none of these may be present (they belong to pigo's own dialect).
	own    []string
	legacy bool
}

// dialects is the data-driven table of known shapes, most specific first.
var dialects = []dialect{
	{kind: Sandbox, name: "seed-flat-bwrap", legacy: true,
		says: "this is the seed's older flat bwrap.json shape (top-level mode, tmpfsPaths, networkAllowlist)",
		keys: []string{"mode", "tmpfsPaths", "networkAllowlist", "writablePaths"},
		own:  []string{"fs"}},
	{kind: Sandbox, name: "sandbox-runtime",
		says: `written for the sandbox-runtime style extensions ("enabled", "filesystem", "network.allowedDomains"); pigo does not apply it and reads "fs" and "network.mode"/"network.allowlist" instead`,
		keys: []string{"enabled", "filesystem", "network.allowedDomains", "network.deniedDomains", "network.allowLocalBinding", "network.allowNetwork"},
		own:  []string{"fs", "approvalRules", "bwrapPath", "extraArgs", "network.mode", "network.allowlist"}},
	{kind: Sandbox, name: "pi-extension-sandbox",
		says: `written for another sandbox extension ("unsandboxedCommands"); pigo does not apply it`,
		keys: []string{"unsandboxedCommands"},
		own:  []string{"fs", "network", "approvalRules"}},
	{kind: Sandbox, name: "permanent-grants",
		says: `written for another sandbox extension ("permanentGrants"); pigo does not apply it`,
		keys: []string{"permanentGrants"},
		own:  []string{"fs", "network", "approvalRules"}},
	{kind: LSP, name: "pi-lsp",
		says: `written for pi-lsp ("servers" is an array); pigo does not apply it and reads "servers" as an object keyed by server id`,
		keys: []string{"servers[]"}},
	{kind: LSP, name: "opencode-style",
		says: `written in the opencode style ("command"/"extensions" per server); pigo does not apply it and reads "bin", "args" and "include"`,
		keys: []string{"servers.*.command", "servers.*.extensions", "servers.*.filetypes"},
		own:  []string{"servers.*.bin", "servers.*.include"}},
	{kind: LSP, name: "ids-at-top-level",
		says: `written with server ids at the top level and "command"/"extensions"; pigo does not apply it and reads servers under "servers" with "bin", "args" and "include"`,
		keys: []string{"*.command", "*.extensions"},
		own:  []string{"servers"}},
	{kind: WebSearch, name: "pi-web-access",
		says: `written for pi-web-access ("provider", "searxngBaseUrl", API keys per search engine); pigo does not apply it and reads "search1apiApiKey"`,
		keys: []string{"provider", "searxngBaseUrl", "kagiApiKey", "braveApiKey", "tavilyApiKey", "exaApiKey", "perplexityApiKey",
			"serperApiKey", "jinaApiKey", "firecrawlApiKey", "geminiApiKey", "searxngUrl"},
		own: []string{"search1apiApiKey"}},
}

// topKeys are the top-level keys of the files whose foreign dialects are recognised; a test
// keeps them equal to the schema's.
var topKeys = map[Kind][]string{
	Sandbox: {"$schema", "fs", "network", "bwrapPath", "extraArgs", "approvalRules"},
	LSP: {"$schema", "version", "servers", "enabled", "disabled", "watch", "maxOpenDocuments", "diagnosticsDebounceMs",
		"diagnosticsDocumentWaitTimeoutMs", "diagnosticsSilentWaitTimeoutMs", "diagnosticsFullWaitTimeoutMs",
		"diagnosticsRequestTimeoutMs", "initializeTimeoutMs"},
	WebSearch: {"$schema", "search1apiApiKey"},
}

// otherExtension is the fallback for a file none of whose top-level keys pigo knows (nor
// nearly knows): it was written for an extension not in the table.
var otherExtension = map[Kind]*dialect{
	Sandbox:   {kind: Sandbox, name: "other-extension", says: "written for another extension: none of its top-level keys is one pigo reads (fs, network, approvalRules, bwrapPath, extraArgs); pigo does not apply it"},
	WebSearch: {kind: WebSearch, name: "other-extension", says: "written for another web search extension: none of its top-level keys is one pigo reads (search1apiApiKey); pigo does not apply it"},
	LSP:       {kind: LSP, name: "other-extension", says: "written for another extension: none of its top-level keys is one pigo reads (servers, enabled, disabled, watch, timeouts); pigo does not apply it"},
}

// detectDialect returns the dialect a whole file is written in, or nil for pigo's own shape.
func detectDialect(k Kind, root *jsonc.Node) *dialect {
	if root == nil || root.Kind != jsonc.Object {
		return nil
	}
	for i := range dialects {
		d := &dialects[i]
		if d.kind != k {
			continue
		}
		if !anyPath(root, d.keys) || anyPath(root, d.own) {
			continue
		}
		return d
	}
	if known, ok := topKeys[k]; ok && len(root.Members) > 0 {
		for _, m := range root.Members {
			if slices.Contains(known, m.Key) || validate.Suggest(m.Key, known) != "" {
				return nil // pigo's own file (perhaps with a typo)
			}
		}
		return otherExtension[k]
	}
	return nil
}

func anyPath(root *jsonc.Node, paths []string) bool {
	for _, p := range paths {
		if hasPath(root, strings.Split(p, ".")) {
			return true
		}
	}
	return false
}

func hasPath(n *jsonc.Node, steps []string) bool {
	if n == nil || len(steps) == 0 {
		return n != nil
	}
	step := steps[0]
	wantArray := strings.HasSuffix(step, "[]")
	step = strings.TrimSuffix(step, "[]")
	if n.Kind != jsonc.Object {
		return false
	}
	for _, m := range n.Members {
		if step != "*" && m.Key != step {
			continue
		}
		if step == "*" && m.Value.Kind != jsonc.Object {
			continue
		}
		if wantArray {
			if m.Value.Kind == jsonc.Array && len(steps) == 1 {
				return true
			}
			continue
		}
		if hasPath(m.Value, steps[1:]) {
			return true
		}
	}
	return false
}
