package mcp

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pigo-agent/pigo/internal/pattern"
)

// TestToolName pins pi's createMcpToolName: sanitising, and the hash suffix for names that are
// too long or taken (the hashes are pi's: sha256("server\0tool")[:8]).
func TestToolName(t *testing.T) {
	for _, c := range []struct {
		server, tool, want string
		taken              bool
	}{
		{"fs", "read_file", "mcp__fs__read_file", false},
		{"dev-radius", "get.thing", "mcp__dev_radius__get_thing", false},
		{"s", "día", "mcp__s__d_a", false},
		{"s", "😀", "mcp__s____", false},
		{"fs", "read_file", "mcp__fs__read_file_c34df62f", true},
		{"server", strings.Repeat("x", 70), "mcp__server__" + strings.Repeat("x", 42) + "_6d085024", false},
	} {
		got := ToolName(c.server, c.tool, func(string) bool { return c.taken })
		if c.want != got {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
		if len(got) > MaxToolNameLength {
			t.Errorf("%q is longer than 64", got)
		}
	}
}

// TestAssignNames: tools whose names sanitise to the same name all get the hash, whatever
// their order; a name another server owns is taken.
func TestAssignNames(t *testing.T) {
	got := AssignNames("s", []string{"a-b", "a_b", "c"}, nil)
	rev := AssignNames("s", []string{"a_b", "a-b", "c"}, nil)
	if got[0] == "mcp__s__a_b" || got[1] == "mcp__s__a_b" || got[0] == got[1] || got[2] != "mcp__s__c" {
		t.Errorf("collision: %v", got)
	}
	if got[0] != rev[1] || got[1] != rev[0] {
		t.Errorf("names depend on the order: %v vs %v", got, rev)
	}
	owned := AssignNames("s", []string{"c"}, func(n, owner string) bool { return n == "mcp__s__c" })
	if owned[0] == "mcp__s__c" {
		t.Errorf("a name owned by another tool must be hashed: %v", owned)
	}
}

func TestMatchStarAndExposure(t *testing.T) {
	for _, c := range []struct {
		p, n string
		want bool
	}{
		{"get_*", "get_sum", true}, {"get_*", "get_", true}, {"get_*", "sum", false}, {"*", "", true},
		{"a*b*c", "abc", true}, {"a*b*c", "axxbyyc", true}, {"a*b*c", "acb", false}, {"ab*ab", "ab", false},
		{"exact", "exact", true}, {"exact", "exactly", false},
	} {
		if got := pattern.MatchStar(c.p, c.n); got != c.want {
			t.Errorf("MatchStar(%q, %q) = %v", c.p, c.n, got)
		}
	}
	s := &Server{Exposure: "hidden", ToolExposure: map[string]string{"get_*": "deferred", "get_sum": "direct", "*": "codemode"},
		ToolExposureOrder: []string{"get_*", "get_sum", "*"}}
	for tool, want := range map[string]string{"get_sum": "direct", "get_x": "deferred", "other": "codemode"} {
		if got := s.ToolExposureOf(tool); got != want {
			t.Errorf("%s: %s, want %s (exact beats patterns, then the first pattern)", tool, got, want)
		}
	}
	if (&Server{}).ToolExposureOf("x") != ExposureCodemode {
		t.Error("the default exposure is codemode")
	}
}

// TestInputSchema is pi's normalizeMcpInputSchema, serialised as JSON.stringify does.
func TestInputSchema(t *testing.T) {
	for in, want := range map[string]string{
		`{"properties":{"a":{"type":"number"}}}`:                              `{"properties":{"a":{"type":"number"}},"type":"object"}`,
		`{"type":"object"}`:                                                   `{"type":"object","properties":{}}`,
		`{"$schema":"x","type":null,"required":["a"],"properties":{}}`:        `{"$schema":"x","type":"object","required":["a"],"properties":{}}`,
		`{"type":"object","properties":{"b":{},"a":{"enum":[1.0,"\u00e9"]}}}`: `{"type":"object","properties":{"b":{},"a":{"enum":[1,"é"]}}}`,
		`[]`: `{"type":"object","properties":{}}`,
	} {
		if got := string(InputSchema([]byte(in))); got != want {
			t.Errorf("InputSchema(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestResultSchemaRelocatesRefs(t *testing.T) {
	got := string(ResultSchema([]byte(`{"type":"object","properties":{"items":{"$ref":"#/$defs/Item"},"self":{"$ref":"#"}},"$defs":{"Item":{"enum":[{"$ref":"#"}]}}}`)))
	for _, want := range []string{`"$ref":"#/properties/structuredContent/$defs/Item"`, `"$ref":"#/properties/structuredContent"`, `"enum":[{"$ref":"#"}]`} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in %s", want, got)
		}
	}
	if !strings.Contains(string(ResultSchema(nil)), `"structuredContent":{}`) {
		t.Error("without an output schema, structuredContent is any value")
	}
}

func TestServersSection(t *testing.T) {
	srv := func(name, exposure, desc string) *Server {
		return &Server{Name: name, Enabled: true, Exposure: exposure, Description: desc}
	}
	got := ServersSection([]ServerSummary{
		{Server: srv("zeta", "deferred", "")},
		{Server: srv("dev-radius", "", "Radius tools\nsecond line")},
		{Server: srv("direct", "direct", "x")},
		{Server: srv("b", "", ""), Instructions: "  From the server.  "},
	})
	want := "MCP servers whose tools are not declared to you. Call the tools of `codemode` servers from codemode scripts. Load the tools of `tool_search` servers with `tool_search`.\n" +
		"- mcp__b (codemode): From the server.\n" +
		"- mcp__dev_radius (codemode): Radius tools\n" +
		"- mcp__zeta (tool_search)"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if ServersSection([]ServerSummary{{Server: srv("d", "direct", "")}}) != "" {
		t.Error("only direct servers: no section")
	}
	// Many servers: the section stays within its size, and says how many it left out.
	var many []ServerSummary
	for i := 0; i < 400; i++ {
		many = append(many, ServerSummary{Server: srv("server-number-"+strings.Repeat("x", 20)+string(rune('a'+i%26))+string(rune('a'+i/26)), "", strings.Repeat("d", 300))})
	}
	big := ServersSection(many)
	if utf16Len(big) > MaxServersSectionChars || !strings.Contains(big, "more servers; find their tools with searchTools()") {
		t.Errorf("section of %d characters: ...%s", utf16Len(big), big[len(big)-100:])
	}
}

// TestCache: a list is found again for the same entry, marked stale for a changed one, and
// nothing of the entry's values is stored.
func TestCache(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	s := &Server{Name: "fs", Transport: Stdio, Command: "srv", Env: map[string]string{"TOKEN": "s3cret"}, Source: Position{File: "/a/mcp.json", Line: 2}}
	if _, _, ok := c.Load(s); ok {
		t.Fatal("empty cache")
	}
	if err := c.Save(s, &ToolList{Tools: []Tool{{Name: "read", InputSchema: []byte(`{}`)}}, Time: time.Unix(1, 0)}); err != nil {
		t.Fatal(err)
	}
	l, stale, ok := c.Load(s)
	if !ok || stale || len(l.Tools) != 1 {
		t.Fatalf("load: %v %v %v", l, stale, ok)
	}
	s2 := *s
	s2.Args = []string{"--new"}
	if _, stale, ok := c.Load(&s2); !ok || !stale {
		t.Error("a changed entry: the cached list is stale")
	}
	s3 := *s
	s3.Exposure, s3.Enabled, s3.Description = "direct", false, "x"
	if _, stale, _ := c.Load(&s3); stale {
		t.Error("exposure, enabled and description do not change the tools")
	}
	entries, _ := os.ReadDir(c.Dir)
	for _, e := range entries {
		b, _ := os.ReadFile(c.Dir + "/" + e.Name())
		if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), "TOKEN") {
			t.Errorf("the cache holds a value of the entry: %s", b)
		}
	}
}

func TestSummaryAndDescription(t *testing.T) {
	if got := Summary("", "  line one\nline two"); got != "line one" {
		t.Errorf("Summary = %q", got)
	}
	tl := Tool{Name: "t", Annotations: &Annotations{Title: "Annotated"}}
	if got := tl.ModelDescription("s"); got != "Annotated" {
		t.Errorf("ModelDescription = %q", got)
	}
	if got := (&Tool{Name: "t"}).ModelDescription("s"); got != "MCP tool t from server s" {
		t.Errorf("ModelDescription = %q", got)
	}
	if d := cmp.Diff([]string{"codemode", "deferred", "direct", "hidden"}, Exposures); d != "" {
		t.Error(d)
	}
}
