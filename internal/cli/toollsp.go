package cli

import (
	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/tools"
)

// toolLSP is the session's language-server hook for `pigo tool run`: the
// servers lsp.json enables, started on the first file they handle (so a
// tool that touches no such file starts none). Nil when lsp.json has no
// usable server or does not load (its problems are `pigo check`'s to report;
// a tool call never fails for its LSP).
func toolLSP(cfg *config.Config, cwd string) *tools.LSP {
	lc, _, err := cfg.LSPConfig()
	if err != nil || lc == nil || len(lc.ServerIDs()) == 0 {
		return nil
	}
	return tools.NewLSP(lc, cwd, lsp.OSEnv())
}
