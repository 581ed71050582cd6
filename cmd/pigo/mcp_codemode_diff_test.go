package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// mcpCodemodeScript runs the same in pi 1.6's codemode and in pigo's: it finds MCP tools the
// codemode description leaves out (exposure codemode) with pi's discovery functions and
// prints what it found on one RESULT line.
const mcpCodemodeScript = `const hits = await searchTools("sum of two numbers", { limit: 1 });
const inNs = await searchTools("echo", { limit: 2, namespace: "every" });
const ns = await describeNamespace("mcp__every");
const missing = await describeNamespace("nothing");
const tool = await describeTool(hits[0].name);
text("RESULT " + JSON.stringify({
  hits: hits.map((h) => h.name),
  inNs: inNs.map((h) => h.name),
  ns: ns && { name: ns.name, tools: ns.tools.length, hasSum: ns.tools.includes("mcp__every__get_sum"), instructions: typeof ns.instructions },
  missing: missing === undefined,
  tool: typeof tool === "string" && tool.includes("Returns the sum of two numbers"),
  all: ALL_TOOLS.filter((t) => t.name.startsWith("mcp__every__")).length,
}));`

var resultLineRe = regexp.MustCompile(`RESULT (\{[^\n]*\})`)

// TestMCPCodemodeDiscoveryPi16 is item 3 of issue 24's second round: with the default exposure
// (codemode) the MCP tools are declared neither to the model nor in the codemode description,
// in pi 1.6 and in pigo; a script finds them with searchTools(), describeNamespace() and
// describeTool() (pi's names), and both answer the same. The codemode descriptions differ by
// design (pigo's is the seed's, D21); pigo's declares the three functions when MCP servers are
// configured (the seed's text is unchanged otherwise).
func TestMCPCodemodeDiscoveryPi16(t *testing.T) {
	if !mcpServersInstalled() {
		t.Skip("the MCP servers are not installed: run scripts/install-pi.sh (needs the npm registry)")
	}
	pi := pitest.FindVersion(t, pitest.Version16)
	every := filepath.Join(pitest.Dir(), "tools", "node_modules", ".bin", "mcp-server-everything")
	args, _ := json.Marshal(map[string]string{"code": mcpCodemodeScript})
	sc := mcpScenario{name: "codemode-discovery", servers: map[string]any{"every": map[string]any{"command": every}}, prompt: "find",
		turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "codemode", Args: string(args)}}}, {Text: "Done."}}}
	type found struct {
		codemode string
		result   string
	}
	look := func(who string, reqs []llmtest.Request) found {
		t.Helper()
		if len(reqs) != 2 {
			t.Fatalf("%s made %d requests, want 2", who, len(reqs))
		}
		var f found
		var body struct {
			Tools []struct {
				Function struct {
					Name        string `json:"name"`
					Description string `json:"description"`
				} `json:"function"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(reqs[0].Body, &body)
		for _, tl := range body.Tools {
			if strings.HasPrefix(tl.Function.Name, "mcp__") {
				t.Errorf("%s declares %s to the model (exposure codemode)", who, tl.Function.Name)
			}
			if tl.Function.Name == "codemode" {
				f.codemode = tl.Function.Description
			}
		}
		var second struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(reqs[1].Body, &second)
		for _, m := range second.Messages {
			if m.Role != "tool" {
				continue
			}
			var text string
			if json.Unmarshal(m.Content, &text) != nil {
				var parts []struct {
					Text string `json:"text"`
				}
				_ = json.Unmarshal(m.Content, &parts)
				for _, p := range parts {
					text += p.Text
				}
			}
			if r := resultLineRe.FindStringSubmatch(text); r != nil {
				f.result = r[1]
			} else {
				t.Errorf("%s: no RESULT line in the script's result:\n%s", who, text)
			}
		}
		return f
	}
	p := look("pi", runPi16MCP(t, pi, sc))
	g := look("pigo", runPigoMCP(t, sc))
	for who, f := range map[string]found{"pi": p, "pigo": g} {
		if strings.Contains(f.codemode, "mcp__every__") {
			t.Errorf("%s's codemode description names an MCP tool", who)
		}
		for _, fn := range []string{"searchTools", "describeTool", "describeNamespace"} {
			if !strings.Contains(f.codemode, fn) {
				t.Errorf("%s's codemode description does not mention %s", who, fn)
			}
		}
	}
	t.Logf("pi:   %s\npigo: %s", p.result, g.result)
	if d := cmp.Diff(p.result, g.result); d != "" || g.result == "" {
		t.Errorf("what the script found (-pi +pigo):\n%s", d)
	}
	var res struct {
		Hits []string
		NS   *struct{ Tools int }
	}
	_ = json.Unmarshal([]byte(g.result), &res)
	if len(res.Hits) != 1 || res.Hits[0] != "mcp__every__get_sum" || res.NS == nil || res.NS.Tools < 10 {
		t.Errorf("pigo's script found %s", g.result)
	}
}
