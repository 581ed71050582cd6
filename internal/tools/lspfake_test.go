package tools

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/engines/allengines"
	"github.com/pigo-agent/pigo/internal/engines/enginestest"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/tools/pi"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// The test binary doubles as a small language server when PIGO_FT_LSP_FAKE
// names a mode, to drive the diagnostics wait through the paths gopls does
// not take: a pull answered after a "server cancelled", a late push with no
// pull support, and a server that stays silent.
func TestMain(m *testing.M) {
	if mode := os.Getenv("PIGO_FT_LSP_FAKE"); mode != "" {
		runFakeLSP(mode)
		os.Exit(0)
	}
	// The tests that reach web_fetch's extractor, codemode's VM or talk's store run the real
	// pigo-engines helper, which is this test binary.
	// bash's full-output files (pigo's and the real pi's in the differential tests) stay in the
	// temp directory: the run has its own (enginestest.MainOwnTemp).
	enginestest.MainOwnTemp(m, allengines.Servers)
}

func runFakeLSP(mode string) {
	r := bufio.NewReader(os.Stdin)
	send := func(v any) {
		b, _ := json.Marshal(v)
		_ = lsp.WriteFrame(os.Stdout, b)
	}
	pulls := 0
	for {
		body, err := lsp.ReadFrame(r)
		if err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) != nil {
			return
		}
		reply := func(result any) { send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result}) }
		fail := func(code int, text string) {
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": code, "message": text}})
		}
		diag := func(sev int, text string) map[string]any {
			pos := map[string]any{"line": 0, "character": 0}
			return map[string]any{"range": map[string]any{"start": pos, "end": pos}, "severity": sev, "message": text}
		}
		switch msg.Method {
		case "initialize":
			reply(map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}})
		case "shutdown":
			reply(nil)
		case "exit":
			return
		case "textDocument/diagnostic":
			if mode != "pull" {
				fail(-32601, "method not found")
				continue
			}
			if pulls++; pulls == 1 {
				fail(-32802, "server cancelled") // not ready yet: the client retries
				continue
			}
			reply(map[string]any{"kind": "full", "items": []any{diag(2, "pulled warning")}})
		case "textDocument/didOpen", "textDocument/didChange":
			if mode == "push-late" {
				uri := msg.Params.TextDocument.URI
				go func() {
					time.Sleep(200 * time.Millisecond)
					send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
						"params": map[string]any{"uri": uri, "diagnostics": []any{diag(1, "pushed error")}}})
				}()
			}
		default:
			if len(msg.ID) > 0 {
				reply(nil)
			}
		}
	}
}

func fakeLSPEnv(t *testing.T, mode string, docWaitMs int) (*ftEnv, string) {
	t.Helper()
	bin, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	cfgJSON := `{"diagnosticsDocumentWaitTimeoutMs": ` + pi.Itoa(docWaitMs) + `, "servers": {"fake": {"bin": "` + bin + `", "include": ["**/*.txt"], "env": {"PIGO_FT_LSP_FAKE": "` + mode + `"}}}}`
	e := newFileEnvLSP(t, "claude-code", cfgJSON)
	cfg, err := lsp.ParseConfig([]byte(cfgJSON))
	if err != nil {
		t.Fatal(err)
	}
	l := toolkit.NewLSP(cfg, e.dir, lsp.OSEnv())
	t.Cleanup(l.Close)
	e.s.LSP = l
	return e, e.write("f.txt", "hello\n")
}

func TestDiagnosticsPullRetried(t *testing.T) {
	e, p := fakeLSPEnv(t, "pull", 5000)
	e.ok("Read", map[string]any{"file_path": p}, "1: hello\n2: \n\nLSP diagnostics detected in this file\n<diagnostics file=\""+p+"\">\nWARN [1:1] pulled warning\n</diagnostics>")
}

func TestDiagnosticsLatePush(t *testing.T) {
	e, p := fakeLSPEnv(t, "push-late", 5000)
	e.ok("Read", map[string]any{"file_path": p}, "1: hello\n2: \n\nLSP diagnostics detected in this file\n<diagnostics file=\""+p+"\">\nERROR [1:1] pushed error\n</diagnostics>")
	// The next change is a didChange of the open document, answered by a new push.
	e.ok("Write", map[string]any{"file_path": p, "content": "bye\n"}, "The file "+p+" has been updated successfully.\n\nLSP diagnostics detected in this file\n<diagnostics file=\""+p+"\">\nERROR [1:1] pushed error\n</diagnostics>")
}

// A server that never answers: the document budget ends the wait and the
// read goes out clean.
func TestDiagnosticsSilentServer(t *testing.T) {
	e, p := fakeLSPEnv(t, "silent", 300)
	e.ok("Read", map[string]any{"file_path": p}, "1: hello\n2: ")
}
