package codemode

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestDiscovery: with Discover, a script has searchTools, describeTool and describeNamespace
// (pi 1.6's), answered by the host under reserved names that are not recorded as tool calls;
// without it they do not exist (the seed's API).
func TestDiscovery(t *testing.T) {
	ns := &Namespace{Name: "mcp__every", Description: "demo server", Instructions: "use echo", Aliases: []string{"every"}}
	dc := &discovery{
		d: &Discovery{Rank: func(query string, docs []SearchDoc, limit int) []string {
			var out []string
			for _, d := range docs {
				if strings.Contains(d.Description, query) && len(out) < limit {
					out = append(out, d.Name)
				}
			}
			return out
		}},
		tools: []discoverable{
			{decl: Decl{Name: "mcp__every__echo", Description: "Echoes back the input", Parameters: []byte(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)}, namespace: ns},
			{decl: Decl{Name: "read", Description: "Read a file"}},
		},
	}
	code := `const a = await searchTools("Echoes");
const b = await searchTools("Read", { namespace: "every" });
const c = await describeNamespace("every");
const d = await describeTool("mcp__every__echo");
let e = "";
try { await searchTools("x", { limit: 0 }); } catch (err) { e = err.message; }
return { a, b, c, d, e, none: await describeTool("nope") === undefined };`
	out := Run(context.Background(), Script{Code: code, Discover: true,
		Call: func(_ context.Context, name string, raw json.RawMessage) CallOutcome {
			if o, ok := dc.answer(name, raw); ok {
				return o
			}
			return CallOutcome{Error: "not a discovery call: " + name}
		}})
	if !out.OK {
		t.Fatalf("script failed: %+v", out.Err)
	}
	var got struct {
		A    []struct{ Name, Description string }
		B    []any
		C    map[string]any
		D, E string
		None bool
	}
	if err := json.Unmarshal([]byte(out.Value), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.A) != 1 || got.A[0].Name != "mcp__every__echo" || !strings.Contains(got.A[0].Description, `declare function call(name: "mcp__every__echo", args: {`) {
		t.Errorf("searchTools: %+v", got.A)
	}
	if len(got.B) != 0 {
		t.Errorf("searchTools within a namespace found %v", got.B)
	}
	if got.C["name"] != "mcp__every" || got.C["instructions"] != "use echo" || got.C["description"] != "demo server" || len(got.C["tools"].([]any)) != 1 {
		t.Errorf("describeNamespace: %v", got.C)
	}
	if !strings.HasPrefix(got.D, "Echoes back the input\n\ndeclare function call(") || !got.None {
		t.Errorf("describeTool: %q %v", got.D, got.None)
	}
	if got.E != "searchTools() limit must be a positive integer" {
		t.Errorf("bad limit: %q", got.E)
	}
	if len(out.Calls) != 0 {
		t.Errorf("discovery calls were recorded as tool calls: %+v", out.Calls)
	}
	out = Run(context.Background(), Script{Code: `return typeof searchTools + typeof describeTool + typeof describeNamespace;`})
	if !out.OK || out.Value != `"undefinedundefinedundefined"` {
		t.Errorf("without Discover: %+v %s", out.Err, out.Value)
	}
	if strings.Contains(Describe("x", nil), "searchTools") || !strings.Contains(describe("x", nil, true), "declare function searchTools(") {
		t.Error("the declarations")
	}
}
