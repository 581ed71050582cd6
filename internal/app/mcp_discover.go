package app

import (
	"strings"

	"github.com/pigo-agent/pigo/internal/codemode"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient"
)

// discovery is what codemode's searchTools, describeTool and describeNamespace read in a
// session with MCP servers: a tool's namespace is its server ("mcp__<server>", also found by
// the server's name) with the entry's description and the server's instructions; the ranking
// is tool_search's (pi's BM25).
func (m *mcpState) discovery() *codemode.Discovery {
	return &codemode.Discovery{
		Namespace: func(source string) (codemode.Namespace, bool) {
			server, ok := strings.CutPrefix(source, "mcp:")
			if !ok {
				return codemode.Namespace{}, false
			}
			c := m.mgr.Conn(server)
			if c == nil {
				return codemode.Namespace{}, false
			}
			return codemode.Namespace{Name: mcp.Namespace(server), Description: c.Server.Description,
				Instructions: c.Instructions(), Aliases: []string{server}}, true
		},
		Rank: func(query string, docs []codemode.SearchDoc, limit int) []string {
			in := make([]mcpclient.SearchDoc, len(docs))
			for i, d := range docs {
				ns, nsDesc, nsInstr := "", "", ""
				if d.Namespace != nil {
					ns, nsDesc, nsInstr = d.Namespace.Name, d.Namespace.Description, d.Namespace.Instructions
				}
				in[i] = mcpclient.NewSearchDoc(d.Name, d.Description, d.Parameters, ns, nsDesc, nsInstr)
			}
			hits := mcpclient.Rank(query, in, limit)
			out := make([]string, len(hits))
			for i, h := range hits {
				out[i] = h.Name
			}
			return out
		},
	}
}
