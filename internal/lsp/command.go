package lsp

import (
	"context"
	"fmt"
	"strings"
)

// The seed's LSP commands (extensions-behaviour §4.8): /lsp-stop stops every server and turns
// LSP off for the session, /lsp-start turns it on again (servers start on the next tool call),
// /lsp-reload [id] reads lsp.json again and restarts the running servers (or one).

// CommandNames are the commands, in the seed's order.
var CommandNames = []string{"lsp-start", "lsp-stop", "lsp-reload"}

// IsCommand reports whether name (without the slash) is an LSP command.
func IsCommand(name string) bool {
	for _, n := range CommandNames {
		if n == name {
			return true
		}
	}
	return false
}

// CommandResult is what a command says, with its level ("info", "warning", "error").
type CommandResult struct {
	Text  string
	Level string
}

// RunCommand runs /name args on the session's manager m (nil when lsp.json has no server:
// the seed's "LSP not configured" warning). reload reads lsp.json again.
func RunCommand(ctx context.Context, m *Manager, name, args string, reload func() (*Config, error)) (CommandResult, bool) {
	verb := map[string]string{"lsp-stop": "stop", "lsp-start": "enable", "lsp-reload": "reload"}[name]
	if verb == "" {
		return CommandResult{}, false
	}
	if m == nil {
		return CommandResult{Text: "LSP not configured: nothing to " + verb, Level: "warning"}, true
	}
	switch name {
	case "lsp-stop":
		m.Stop()
		return CommandResult{Text: "LSP disabled: all servers stopped", Level: "info"}, true
	case "lsp-start":
		m.Start()
		return CommandResult{Text: "LSP enabled: servers will start on the next tool call", Level: "info"}, true
	}
	id := strings.TrimSpace(args)
	cfg := m.Config()
	if reload != nil {
		c, err := reload()
		if err != nil {
			return CommandResult{Text: "LSP reload failed: " + err.Error(), Level: "error"}, true
		}
		if c != nil {
			cfg = c
		}
	}
	if id != "" {
		if _, ok := cfg.Servers[id]; !ok {
			ids := cfg.ServerIDs()
			list := "none"
			if len(ids) > 0 {
				list = strings.Join(ids, ", ")
			}
			return CommandResult{Text: fmt.Sprintf("LSP server %q is not configured (configured: %s)", id, list), Level: "warning"}, true
		}
	}
	restarted, err := m.Reload(ctx, cfg, id)
	level := "info"
	suffix := ""
	if err != nil {
		level, suffix = "warning", " ("+err.Error()+")"
	}
	if id != "" {
		for _, r := range restarted {
			if r == id {
				return CommandResult{Text: fmt.Sprintf("LSP server %q reloaded", id) + suffix, Level: level}, true
			}
		}
		return CommandResult{Text: fmt.Sprintf("LSP server %q reloaded: will restart on the next tool call", id) + suffix, Level: level}, true
	}
	if len(restarted) == 0 {
		return CommandResult{Text: "LSP reloaded: servers will restart on the next tool call" + suffix, Level: level}, true
	}
	return CommandResult{Text: "LSP reloaded: " + strings.Join(restarted, ", ") + " restarted" + suffix, Level: level}, true
}
