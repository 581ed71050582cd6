package app

import (
	"os/exec"
	"strings"
	"testing"
)

// The runtime packages link no CUE (spec D27: tools take values, never config files; only
// the command line reaches package config), and the configuration library links no terminal
// UI. `go list -deps` sees the packages as built, test files excluded.
func TestImportGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping go list")
	}
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", "github.com/pigo-agent/pigo/"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	for _, pkg := range []string{"internal/app", "internal/approve", "internal/chat", "internal/tools", "internal/toolrun",
		"internal/agent", "internal/codemode", "internal/session", "internal/llm/providers"} {
		for _, d := range deps(pkg) {
			if strings.HasPrefix(d, "cuelang.org/") {
				t.Errorf("%s links %s: a runtime package must take values from the command line, not read configuration files", pkg, d)
				break
			}
		}
	}
	for _, d := range deps("config") {
		for _, ui := range []string{"github.com/charmbracelet/", "github.com/muesli/termenv", "github.com/olekukonko/tablewriter",
			"github.com/pigo-agent/pigo/internal/chat", "github.com/pigo-agent/pigo/internal/tui"} {
			if strings.HasPrefix(d, ui) {
				t.Errorf("config links %s: the configuration library draws nothing", d)
			}
		}
	}
	// appconfig sits between the configuration and the session: it links neither the command
	// line nor a terminal UI, and the session and the chat never reach the configuration files.
	for _, d := range deps("internal/appconfig") {
		for _, up := range []string{"github.com/pigo-agent/pigo/internal/cli", "github.com/pigo-agent/pigo/internal/chat",
			"github.com/pigo-agent/pigo/internal/tui", "github.com/charmbracelet/"} {
			if strings.HasPrefix(d, up) {
				t.Errorf("internal/appconfig links %s: it turns the configuration into values, it draws nothing", d)
			}
		}
	}
	for _, pkg := range []string{"internal/app", "internal/chat"} {
		for _, d := range deps(pkg) {
			if d == "github.com/pigo-agent/pigo/config" || d == "github.com/pigo-agent/pigo/internal/appconfig" {
				t.Errorf("%s links %s: the session takes values, only the command line and appconfig read the files", pkg, d)
			}
		}
	}
}
