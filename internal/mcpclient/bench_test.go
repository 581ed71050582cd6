package mcpclient

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/mcp"
)

// BenchmarkCallTool is one MCP call through pigo's client to a stdio server inside the bwrap
// sandbox (this test binary as a fake server, which answers at once), with the conversion of
// its result: the overhead a call adds beyond the server's own time (issue 24: under 1 ms).
// sandbox=off is the same call to the server started directly.
func BenchmarkCallTool(b *testing.B) {
	for _, sandboxed := range []bool{true, false} {
		name := "sandbox=on"
		if !sandboxed {
			name = "sandbox=off"
		}
		b.Run(name, func(b *testing.B) {
			c, _ := fakeConn(b, "ok", sandboxed, 30, nil)
			ctx := context.Background()
			if err := c.Open(ctx); err != nil {
				b.Fatal(err)
			}
			args := json.RawMessage(`{"text":"hi"}`)
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				raw, err := c.CallTool(ctx, "echo", args, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ConvertResult("fake", "echo", raw, false, nil); err != nil {
					b.Fatal(err)
				}
			}
			// The client's own CPU time per call (this process only, not the server's): what
			// the call costs beyond the server, whatever else the machine is running.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "client-cpu-µs/op")
		})
	}
}

// BenchmarkStartupWait is the first prompt's wait at session start: servers whose tools are
// not direct (three that take a second to answer initialize) do not delay it; one direct
// server does, by its connection time.
func BenchmarkStartupWait(b *testing.B) {
	for _, exposure := range []string{"codemode", "direct"} {
		b.Run("exposure="+exposure, func(b *testing.B) {
			for b.Loop() {
				var conns []*Conn
				for i := 0; i < 3; i++ {
					c, _ := fakeConn(b, "slowinit", false, 30, nil)
					c.Server.Exposure = exposure
					if i > 0 && exposure == "direct" {
						c.Server.Exposure = mcp.ExposureCodemode
					}
					conns = append(conns, c)
				}
				m := &Manager{opts: &Options{}, ready: map[string]chan struct{}{}, conns: conns}
				for i, c := range conns {
					c.Server.Name = string(rune('a' + i))
				}
				m.Start()
				m.WaitDirect(context.Background())
				b.StopTimer()
				m.Close()
				b.StartTimer()
			}
		})
	}
}

// cpuTime is this process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
