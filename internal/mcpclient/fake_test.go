package mcpclient

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain runs the test binary as a misbehaving MCP server when PIGO_FAKE_MCP names a mode:
// the fault tests start it as a stdio server (in the sandbox or not).
func TestMain(m *testing.M) {
	if mode := os.Getenv("PIGO_FAKE_MCP"); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeServer speaks just enough MCP for the modes:
//   - ok: two tools (echo, add), echo answers text, add adds a tool and says list_changed;
//   - silent: never answers initialize;
//   - crash: exits in the middle of a tools/call, after a line on stderr;
//   - flood: writes 40 MB to stderr before answering anything;
//   - huge: answers tools/call with a 100 MB text;
//   - many: announces 10,000 tools;
//   - progress: a tools/call that takes 1.5 s and sends progress every 200 ms;
//   - log: sends a log notification with a multi-line message before answering;
//   - slowinit: answers initialize after a second.
func fakeServer(mode string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	if mode == "flood" {
		chunk := strings.Repeat("noise on stderr\n", 4096)
		for i := 0; i < 40<<20/len(chunk); i++ {
			os.Stderr.WriteString(chunk)
		}
	}
	extra := false
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue // notifications
		}
		result := func(r any) { send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": r}) }
		switch m.Method {
		case "initialize":
			if mode == "silent" {
				continue
			}
			if mode == "slowinit" {
				time.Sleep(time.Second)
			}
			result(map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{"listChanged": true}, "logging": map[string]any{}},
				"serverInfo": map[string]any{"name": "fake", "version": "1"}, "instructions": "Fake server.\nSecond line."})
		case "tools/list":
			tools := []any{
				map[string]any{"name": "echo", "description": "Echo text", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}},
				map[string]any{"name": "add", "inputSchema": map[string]any{"type": "object"}},
			}
			if extra {
				tools = append(tools, map[string]any{"name": "added", "inputSchema": map[string]any{}})
			}
			if mode == "many" {
				tools = nil
				for i := 0; i < 10000; i++ {
					tools = append(tools, map[string]any{"name": fmt.Sprintf("tool_%05d", i), "inputSchema": map[string]any{"type": "object"}})
				}
			}
			result(map[string]any{"tools": tools})
		case "tools/call":
			var p struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
				Meta      struct {
					Token json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(m.Params, &p)
			switch {
			case mode == "crash":
				os.Stderr.WriteString("fatal: the fake server crashed\n")
				os.Exit(3)
			case mode == "huge":
				text := strings.Repeat("x", 100<<20)
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}})
			case mode == "progress":
				for i := 1; i <= 7; i++ {
					time.Sleep(200 * time.Millisecond)
					send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": p.Meta.Token, "progress": i, "total": 7}})
				}
				result(map[string]any{"content": []any{map[string]any{"type": "text", "text": "finished"}}})
			case mode == "log":
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "warning", "logger": "fake", "data": "line one\nline two"}})
				result(map[string]any{"content": []any{map[string]any{"type": "text", "text": "logged"}}})
			case p.Name == "add":
				extra = true
				result(map[string]any{"content": []any{}, "structuredContent": map[string]any{"added": true}})
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
			default:
				result(map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: " + string(p.Arguments)},
					map[string]any{"type": "hologram", "data": "?"}}, "_meta": map[string]any{"x": 1}})
			}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
}
