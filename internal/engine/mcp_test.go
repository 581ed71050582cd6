package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mcpInput is pi's built-ins, tool_search, a codemode extension and one MCP server with a
// tool of each exposure (and a disabled server's tool).
func mcpInput(f Flags, mi MCPInput) *Input {
	mcpTool := func(name, exposure string) Tool {
		return Tool{Name: "mcp__srv__" + name, Structured: true, Unit: "mcp",
			MCP: &MCPTool{Server: "srv", Tool: name, Exposure: exposure, ExposureRule: &RuleRef{File: "mcp.json", Line: 3, Column: 5, Text: "exposure: " + exposure}}}
	}
	off := mcpTool("off", "direct")
	off.Name = "mcp__gone__off"
	off.MCP.Server, off.MCP.Disabled, off.MCP.DisabledRule = "gone", true, &RuleRef{File: "mcp.json", Line: 9, Column: 3, Text: "enabled: false"}
	return &Input{Env: linuxEnv(), Flags: f, MCP: mi, Extensions: []Extension{
		{Source: Source{Kind: KindBuiltin}, Tools: []Tool{{Name: "read"}, {Name: "bash"}, {Name: "edit"}, {Name: "write"}}},
		{Source: Source{Kind: KindBuiltin, Name: "tool_search"}, Tools: []Tool{{Name: "tool_search"}}},
		{Source: Source{Kind: KindToolset, Name: "codemode"}, Tools: []Tool{{Name: "codemode", Structured: false}}},
		{Source: Source{Kind: KindMCP, Name: "srv", File: "mcp.json", Line: 2, Column: 5}, Tools: []Tool{
			mcpTool("direct", "direct"), mcpTool("code", "codemode"), mcpTool("later", "deferred"), mcpTool("secret", "hidden")}},
		{Source: Source{Kind: KindMCP, Name: "gone", File: "mcp.json"}, Tools: []Tool{off}},
	}}
}

func states(res *Result) map[string]State {
	out := map[string]State{}
	for _, r := range res.Tools {
		out[r.Name] = r.State
	}
	return out
}

func TestMCPExposure(t *testing.T) {
	res := Resolve(mcpInput(Flags{}, MCPInput{}))
	want := map[string]State{"mcp__srv__direct": Active, "mcp__srv__code": CodemodeOnly, "mcp__srv__later": CodemodeOnly,
		"mcp__srv__secret": Disabled, "mcp__gone__off": Disabled, "tool_search": Inactive, "codemode": Active}
	got := states(res)
	for n, st := range want {
		if got[n] != st {
			t.Errorf("%s: %s, want %s", n, got[n], st)
		}
	}
	// pi declares MCP tools after every other tool.
	if d := cmp.Diff([]string{"read", "bash", "edit", "write", "codemode", "mcp__srv__direct"}, res.Active); d != "" {
		t.Errorf("active (-want +got):\n%s", d)
	}
	if !slices.Contains(res.CodemodeCallable, "mcp__srv__code") || !slices.Contains(res.CodemodeCallable, "mcp__srv__direct") || slices.Contains(res.CodemodeCallable, "mcp__srv__secret") {
		t.Errorf("codemode callable: %v", res.CodemodeCallable)
	}
	for _, r := range res.Tools {
		if r.Name == "mcp__srv__code" && (r.Line != 2 || r.Column != 5 || r.Source != "mcp:srv" || r.Rule == nil || r.Rule.Line != 3) {
			t.Errorf("source and rule of an MCP tool: %+v %+v", r, r.Rule)
		}
		if r.Name == "mcp__gone__off" && (r.Reason != `MCP server "gone" is disabled` || r.Rule.Line != 9) {
			t.Errorf("disabled server: %+v", r)
		}
	}
	ex, _ := res.Explain("mcp__srv__later")
	if last := ex.Steps[len(ex.Steps)-2]; last.Step != "selection" || !strings.Contains(last.Outcome, "exposure deferred") {
		t.Errorf("explain: %+v", ex.Steps)
	}
}

func TestMCPToolsFlag(t *testing.T) {
	for _, c := range []struct {
		name  string
		flags Flags
		want  map[string]State
	}{
		// No mcp__ entry: MCP tools stay, but a direct one --tools does not name is not declared.
		{"no mcp entry", Flags{Tools: []string{"read"}}, map[string]State{"mcp__srv__direct": Inactive, "mcp__srv__code": CodemodeOnly, "read": Active, "bash": Excluded}},
		// An mcp__ entry filters MCP tools: only matches stay.
		{"mcp pattern", Flags{Tools: []string{"read", "mcp__srv__d*"}}, map[string]State{"mcp__srv__direct": Active, "mcp__srv__code": Excluded}},
		{"exclude pattern", Flags{ExcludeTools: []string{"mcp__*"}}, map[string]State{"mcp__srv__direct": Excluded, "mcp__srv__code": Excluded, "read": Active}},
		{"exclude pattern on others", Flags{ExcludeTools: []string{"ed*", "wr*"}}, map[string]State{"edit": Excluded, "write": Excluded, "read": Active}},
		{"no tools", Flags{NoTools: true}, map[string]State{"mcp__srv__direct": Excluded, "mcp__srv__code": Excluded}},
		{"tools pattern for built-ins", Flags{Tools: []string{"re*", "b*"}}, map[string]State{"read": Active, "bash": Active, "edit": Excluded}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := states(Resolve(mcpInput(c.flags, MCPInput{})))
			for n, st := range c.want {
				if got[n] != st {
					t.Errorf("%s: %s, want %s", n, got[n], st)
				}
			}
		})
	}
}

func TestMCPActivationAndLoads(t *testing.T) {
	act := MCPInput{Indirect: true, Activate: []Activation{{Tool: "tool_search", Reason: `activated for MCP server "srv" (exposure deferred)`,
		Rule: &RuleRef{File: "mcp.json", Line: 3}}}, Loaded: []string{"mcp__srv__later"}}
	res := Resolve(mcpInput(Flags{}, act))
	got := states(res)
	if got["tool_search"] != Active || got["mcp__srv__later"] != Active || got["mcp__srv__code"] != CodemodeOnly {
		t.Errorf("states: %v", got)
	}
	if d := cmp.Diff([]string{"read", "bash", "edit", "write", "codemode", "tool_search", "mcp__srv__direct", "mcp__srv__later"}, res.Active); d != "" {
		t.Errorf("active (-want +got):\n%s", d)
	}
	// Neither codemode nor tool_search active: pi's warning.
	res = Resolve(mcpInput(Flags{ExcludeTools: []string{"codemode"}}, MCPInput{Indirect: true, NoAutoCodemode: true}))
	if w := messages(res); len(w) != 1 || !strings.Contains(w[0], "mcp-unreachable: MCP tools are only reachable from the codemode or tool_search tool, but neither is active (autoEnableCodemode is false); they cannot be called.") {
		t.Errorf("warnings: %q", w)
	}
	// An excluded tool is never activated.
	res = Resolve(mcpInput(Flags{ExcludeTools: []string{"tool_search"}}, act))
	if states(res)["tool_search"] != Excluded {
		t.Error("an excluded tool_search was activated")
	}
}
