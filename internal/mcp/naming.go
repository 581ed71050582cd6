package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// MaxToolNameLength is the longest tool name providers accept ([A-Za-z0-9_-]{1,64}).
const MaxToolNameLength = 64

// serverNameRe is pi's rule for server names: letters, digits, "_" and "-".
var serverNameRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) }}

// ValidServerName reports whether name is a valid server name.
func ValidServerName(name string) bool { return serverNameRe.Get().MatchString(name) }

// Namespace is the namespace of a server's tools: "mcp__<server>" with "-" replaced by "_".
// Server names that differ only in "-" and "_" share a namespace, so a configuration must not
// have both.
func Namespace(server string) string { return "mcp__" + strings.ReplaceAll(server, "-", "_") }

// ToolName is pi's createMcpToolName: "mcp__<server>__<tool>" with every character but
// [A-Za-z0-9_] replaced by "_" (byte by byte over UTF-16 code units in pi; here a non-ASCII
// character becomes one "_" per UTF-16 unit too), shortened to 64 characters with an 8-hex
// SHA-256 suffix when it is too long or taken.
func ToolName(server, tool string, taken func(string) bool) string {
	name := sanitizeUnits("mcp__" + server + "__" + tool)
	if len(name) <= MaxToolNameLength && (taken == nil || !taken(name)) {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	hash := hex.EncodeToString(sum[:])[:8]
	return name[:min(len(name), MaxToolNameLength-len(hash)-1)] + "_" + hash
}

// sanitizeUnits replaces each UTF-16 code unit outside [A-Za-z0-9_] by "_", as JavaScript's
// String.replace(/[^A-Za-z0-9_]/g, "_") does.
func sanitizeUnits(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < 0x80:
			c := byte(r)
			if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' {
				b.WriteByte(c)
			} else {
				b.WriteByte('_')
			}
		case r >= 0x10000:
			b.WriteString("__") // a surrogate pair is two units
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// AssignNames names one server's tools as pi's registerTools does: every tool whose plain name
// collides with another tool's plain name gets the hash suffix, so which one keeps the plain
// name does not depend on the order of the list. owned reports names already assigned to a
// different MCP tool (another server's). The result is in the order of tools.
func AssignNames(server string, tools []string, owned func(name, owner string) bool) []string {
	seen := map[string]bool{}
	var unique []string
	for _, t := range tools {
		if !seen[t] {
			seen[t] = true
			unique = append(unique, t)
		}
	}
	plainCount := map[string]int{}
	for _, t := range unique {
		plainCount[ToolName(server, t, nil)]++
	}
	current := map[string]bool{}
	out := make([]string, len(tools))
	byTool := map[string]string{}
	for i, t := range tools {
		if n, ok := byTool[t]; ok {
			out[i] = n
			continue
		}
		owner := server + "\x00" + t
		n := ToolName(server, t, func(c string) bool {
			return (owned != nil && owned(c, owner)) || current[c] || plainCount[c] > 1
		})
		current[n] = true
		byTool[t] = n
		out[i] = n
	}
	return out
}
