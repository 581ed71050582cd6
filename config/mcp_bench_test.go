package config_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/mcp"
)

// mcpBenchAgent is a copy of the examples' agent dir with an mcp.json of n servers whose tool
// lists (t tools each) are in the schema cache.
func mcpBenchAgent(b *testing.B, n, t int) (agent, cache string) {
	dir := b.TempDir()
	agent, cache = filepath.Join(dir, "agent"), filepath.Join(dir, "cache")
	src := filepath.Join("..", "examples", "agent")
	entries, _ := os.ReadDir(src)
	if err := os.MkdirAll(agent, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			data, _ := os.ReadFile(filepath.Join(src, e.Name()))
			_ = os.WriteFile(filepath.Join(agent, e.Name()), data, 0o644)
		}
	}
	servers := map[string]any{}
	for i := 0; i < n; i++ {
		servers[fmt.Sprintf("server%02d", i)] = map[string]any{"command": "srv", "args": []string{strconv.Itoa(i)}}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	_ = os.WriteFile(filepath.Join(agent, "mcp.json"), data, 0o644)
	cfg := benchLoad(b, agent, cache)
	for _, s := range cfg.MCP().Servers {
		l := &mcp.ToolList{Time: time.Now()}
		for i := 0; i < t; i++ {
			schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}})
			l.Tools = append(l.Tools, mcp.Tool{Name: fmt.Sprintf("tool_%02d", i), Description: "d", InputSchema: schema})
		}
		l.Normalize()
		if err := cfg.MCPCache().Save(s, l); err != nil {
			b.Fatal(err)
		}
	}
	return agent, cache
}

func benchLoad(b *testing.B, agent, cache string) *config.Config {
	approve := true
	cfg, err := config.Load(config.Options{AgentDir: agent, ProjectDir: filepath.Join("..", "examples", "project"), Approve: &approve,
		Home: b.TempDir(), Getenv: func(k string) string {
			if k == "PIGO_CACHE_DIR" {
				return cache
			}
			return ""
		}})
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// BenchmarkToolsResolve is `pigo tools`' work in process: load and resolve, without MCP servers
// and with ten servers of 20 cached tools each (issue 24: at most 2x).
func BenchmarkToolsResolve(b *testing.B) {
	for _, n := range []int{0, 10} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			agent, cache := mcpBenchAgent(b, n, 20)
			if n == 0 {
				os.Remove(filepath.Join(agent, "mcp.json"))
			}
			benchLoad(b, agent, cache).Resolve(config.ResolveOptions{Model: "zhipu/glm-4.6"}) // warm the file cache
			b.ReportAllocs()
			for b.Loop() {
				cfg := benchLoad(b, agent, cache)
				if _, err := cfg.Resolve(config.ResolveOptions{Model: "zhipu/glm-4.6"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
