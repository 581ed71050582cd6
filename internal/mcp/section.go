package mcp

import (
	"sort"
	"strconv"
	"strings"
)

// The limits of the mcp_servers section (pi 1.6, after Codex's deferred namespaces).
const (
	maxServerDescriptionChars = 250
	MaxServersSectionChars    = 4096
)

// ServerSummary is a server as the mcp_servers section lists it.
type ServerSummary struct {
	Server *Server
	// Instructions are what the server sent in initialize ("" before it connected).
	Instructions string
}

// ServersSection is pi's renderServersSection: every enabled server with codemode or deferred
// tools, how its tools are reached and a one-line summary, within MaxServersSectionChars; ""
// when there is no such server. The model learns of those servers only from it.
func ServersSection(servers []ServerSummary) string {
	var listed []ServerSummary
	for _, s := range servers {
		if s.Server.Enabled && s.Server.HasIndirectTools() {
			listed = append(listed, s)
		}
	}
	if len(listed) == 0 {
		return ""
	}
	sort.SliceStable(listed, func(i, j int) bool { return listed[i].Server.Name < listed[j].Server.Name })
	reaches := make([]string, len(listed))
	hasCodemode, hasSearch := false, false
	for i, s := range listed {
		if s.Server.ConfiguredExposures()[ExposureCodemode] {
			reaches[i], hasCodemode = "codemode", true
		} else {
			reaches[i], hasSearch = "tool_search", true
		}
	}
	intro := "MCP servers whose tools are not declared to you."
	if hasCodemode {
		intro += " Call the tools of `codemode` servers from codemode scripts."
	}
	if hasSearch {
		intro += " Load the tools of `tool_search` servers with `tool_search`."
	}
	heads := make([]string, len(listed))
	for i, s := range listed {
		heads[i] = "- " + Namespace(s.Server.Name) + " (" + reaches[i] + ")"
	}
	omitted := func(n int) []string {
		if n <= 0 {
			return nil
		}
		s := "s"
		if n == 1 {
			s = ""
		}
		return []string{"- … " + strconv.Itoa(n) + " more server" + s + "; find their tools with searchTools()"}
	}
	size := func(kept int) int {
		parts := append(append([]string{intro}, heads[:kept]...), omitted(len(listed)-kept)...)
		return utf16Len(strings.Join(parts, "\n"))
	}
	kept := len(listed)
	for kept > 0 && size(kept) > MaxServersSectionChars {
		kept--
	}
	per := 0
	if kept > 0 {
		per = min(maxServerDescriptionChars, (MaxServersSectionChars-size(kept))/kept-2)
	}
	lines := []string{intro}
	for i := 0; i < kept; i++ {
		summary := ""
		if per > 0 {
			summary = truncateChars(Summary(listed[i].Server.Description, listed[i].Instructions), per)
		}
		if summary != "" {
			lines = append(lines, heads[i]+": "+summary)
		} else {
			lines = append(lines, heads[i])
		}
	}
	lines = append(lines, omitted(len(listed)-kept)...)
	return strings.Join(lines, "\n")
}

// utf16Len is JavaScript's string length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// truncateChars is pi's truncate: at most max characters, the last one "…".
func truncateChars(s string, max int) string {
	if utf16Len(s) <= max {
		return s
	}
	if max <= 1 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > max-1 {
			break
		}
		b.WriteRune(r)
		n += w
	}
	return strings.TrimRight(b.String(), " \t\n\r") + "…"
}
