// Command mcpcache prepares scripts/bench-mcp.sh: a copy of an agent dir with an mcp.json of
// N stdio servers, and the schema cache holding T tools for each, as `pigo mcp list` would
// have left it.
//
//	go run ./scripts/mcpcache AGENT-DIR CACHE-DIR N T [SOURCE-AGENT-DIR]
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pigo-agent/pigo/config"
)

func main() {
	if len(os.Args) < 5 {
		fmt.Fprintln(os.Stderr, "usage: mcpcache AGENT-DIR CACHE-DIR N T [SOURCE-AGENT-DIR]")
		os.Exit(2)
	}
	agent, cache := os.Args[1], os.Args[2]
	n, _ := strconv.Atoi(os.Args[3])
	tools, _ := strconv.Atoi(os.Args[4])
	if err := os.MkdirAll(agent, 0o755); err != nil {
		fail(err)
	}
	if len(os.Args) > 5 {
		entries, _ := os.ReadDir(os.Args[5])
		for _, e := range entries {
			if e.Type().IsRegular() {
				b, err := os.ReadFile(filepath.Join(os.Args[5], e.Name()))
				if err != nil {
					fail(err)
				}
				if err := os.WriteFile(filepath.Join(agent, e.Name()), b, 0o644); err != nil {
					fail(err)
				}
			}
		}
	}
	servers := map[string]any{}
	for i := 0; i < n; i++ {
		exposure := "codemode"
		if i%3 == 0 {
			exposure = "direct"
		}
		servers[fmt.Sprintf("server%02d", i)] = map[string]any{"command": "mcp-server", "args": []string{strconv.Itoa(i)}, "exposure": exposure}
	}
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err := os.WriteFile(filepath.Join(agent, "mcp.json"), b, 0o644); err != nil {
		fail(err)
	}
	cfg, err := config.Load(config.Options{AgentDir: agent, Getenv: func(k string) string {
		if k == "PIGO_CACHE_DIR" {
			return cache
		}
		return os.Getenv(k)
	}})
	if err != nil {
		fail(err)
	}
	c := cfg.MCPCache()
	for _, s := range cfg.MCP().Servers {
		l := mcpList(s.Name, tools)
		if err := c.Save(s, l); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mcpcache:", err)
	os.Exit(1)
}
