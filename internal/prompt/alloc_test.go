package prompt

import (
	"runtime"
	"strings"
	"testing"
)

// The default prompt is joined once at its exact length (D25.44): Build allocates little more
// than the prompt itself, where a builder grown piece by piece allocated about three times it.
func TestBuildAllocatesThePromptOnce(t *testing.T) {
	lines := make([]string, 0, 7)
	for _, n := range []string{"read", "bash", "edit", "write", "grep", "find", "ls"} {
		lines = append(lines, "- "+n+": "+strings.Repeat("does what its name says, ", 4))
	}
	o := Options{Cwd: "/home/u/project", AgentDir: "/home/u/.pi/agent", NoContextFiles: true,
		ActiveTools: []string{"read", "bash", "edit", "write"}, ToolLines: lines, PackageDir: "/opt/pi"}
	text := Build(o).Text
	if !strings.HasPrefix(text, intro+"\n\nAvailable tools:\n- read: ") || !strings.HasSuffix(text, "\nCurrent working directory: /home/u/project") {
		t.Fatalf("unexpected prompt:\n%s", text)
	}
	const runs = 50
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		Build(o)
	}
	runtime.ReadMemStats(&after)
	perRun := (after.TotalAlloc - before.TotalAlloc) / runs
	if limit := uint64(len(text)) * 3 / 2; perRun > limit {
		t.Errorf("Build allocated %d bytes for a %d-byte prompt, want at most %d", perRun, len(text), limit)
	}
}
