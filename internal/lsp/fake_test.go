package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// The test binary doubles as a fake language server: when PIGO_LSP_FAKE is
// set, TestMain runs runFake instead of the tests. The mode says how it
// (mis)behaves.
func TestMain(m *testing.M) {
	if mode := os.Getenv("PIGO_LSP_FAKE"); mode != "" {
		os.Exit(runFake(mode))
	}
	os.Exit(m.Run())
}

// fakeServer is the state of the fake server process.
type fakeServer struct {
	mode    string
	wmu     sync.Mutex
	answers map[int]json.RawMessage // responses to our requests, by id
	errs    map[int]int             // error codes of responses, by id
	openURI string
	init    json.RawMessage // initializationOptions received
	rootURI string
	changed json.RawMessage // settings of workspace/didChangeConfiguration
	pending bool            // a didOpen waits for the answers
}

func (f *fakeServer) write(v any) {
	body, _ := json.Marshal(v)
	f.wmu.Lock()
	defer f.wmu.Unlock()
	_ = WriteFrame(os.Stdout, body)
}

func (f *fakeServer) publish(uri string, diags []map[string]any) {
	f.write(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
		"params": map[string]any{"uri": uri, "diagnostics": diags}})
}

func diag(line, char int, sev int, msg string) map[string]any {
	pos := map[string]any{"line": line, "character": char}
	return map[string]any{"range": map[string]any{"start": pos, "end": pos}, "severity": sev, "message": msg, "source": "fake"}
}

// publishReport sends what the fake learnt from our answers as diagnostics,
// so the test can check the client's side of the conversation.
func (f *fakeServer) publishReport() {
	f.publish(f.openURI, []map[string]any{
		diag(0, 0, 1, "configuration="+string(f.answers[100])),
		diag(1, 0, 2, "registerCapability="+string(f.answers[101])),
		diag(1, 1, 3, "workDoneProgress="+string(f.answers[102])),
		diag(2, 0, 4, fmt.Sprintf("unknown-request-error=%d", f.errs[103])),
		diag(3, 4, 1, "after-utf16"), // line 4 is "aé𝄞x": UTF-16 unit 4 = byte 8
		diag(4, 0, 1, "env="+os.Getenv("FAKE_VAR")),
		diag(5, 0, 1, "init="+string(f.init)+" root="+f.rootURI),
		diag(6, 0, 1, "didChangeConfiguration="+string(f.changed)),
	})
}

func runFake(mode string) int {
	f := &fakeServer{mode: mode, answers: map[int]json.RawMessage{}, errs: map[int]int{}}
	r := bufio.NewReader(os.Stdin)
	for {
		body, err := ReadFrame(r)
		if err != nil {
			return 0
		}
		var m message
		if json.Unmarshal(body, &m) != nil {
			return 2
		}
		if lp := os.Getenv("PIGO_LSP_LOG"); lp != "" && m.Method != "" {
			// Every request and notification, one JSON line each, for the manager tests.
			if lf, err := os.OpenFile(lp, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
				line, _ := json.Marshal(map[string]any{"method": m.Method, "params": m.Params})
				lf.Write(append(line, '\n'))
				lf.Close()
			}
		}
		if m.Method == "" { // a response to one of our requests
			var id int
			_ = json.Unmarshal(m.ID, &id)
			f.answers[id] = m.Result
			if m.Error != nil {
				f.errs[id] = m.Error.Code
			}
			if f.pending && len(f.answers) == 4 {
				f.pending = false
				f.publishReport()
			}
			continue
		}
		switch m.Method {
		case "initialize":
			switch mode {
			case "noinit":
				continue
			case "malformed":
				os.Stdout.WriteString("Content-Length: abc\r\n\r\n{}")
				continue
			case "badjson":
				os.Stdout.WriteString("Content-Length: 5\r\n\r\n{nope")
				continue
			}
			var p struct {
				InitializationOptions json.RawMessage `json:"initializationOptions"`
				RootURI               string          `json:"rootUri"`
			}
			_ = json.Unmarshal(m.Params, &p)
			f.init, f.rootURI = p.InitializationOptions, p.RootURI
			f.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"capabilities": map[string]any{"textDocumentSync": 1}}})
		case "workspace/didChangeConfiguration":
			var p struct {
				Settings json.RawMessage `json:"settings"`
			}
			_ = json.Unmarshal(m.Params, &p)
			f.changed = p.Settings
		case "initialized":
			if mode == "normal" {
				f.write(map[string]any{"jsonrpc": "2.0", "id": 100, "method": "workspace/configuration",
					"params": map[string]any{"items": []any{map[string]any{"section": "fake.opt"}, map[string]any{"section": "missing"}}}})
				f.write(map[string]any{"jsonrpc": "2.0", "id": 101, "method": "client/registerCapability",
					"params": map[string]any{"registrations": []any{}}})
				f.write(map[string]any{"jsonrpc": "2.0", "id": 102, "method": "window/workDoneProgress/create",
					"params": map[string]any{"token": "t"}})
				f.write(map[string]any{"jsonrpc": "2.0", "id": 103, "method": "fake/unknown", "params": map[string]any{}})
			}
		case "textDocument/didOpen":
			var p struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
			}
			_ = json.Unmarshal(m.Params, &p)
			f.openURI = p.TextDocument.URI
			switch mode {
			case "normal":
				if len(f.answers) == 4 {
					f.publishReport()
				} else {
					f.pending = true
				}
			case "crash":
				fmt.Fprintln(os.Stderr, "boom: fake crash")
				return 3
			case "flood":
				go func() {
					for i := 0; ; i++ {
						f.write(map[string]any{"jsonrpc": "2.0", "method": "window/logMessage",
							"params": map[string]any{"type": 4, "message": strings.Repeat("x", 512)}})
						f.publish(f.openURI, []map[string]any{diag(0, 0, 1, fmt.Sprintf("flood %d", i))})
					}
				}()
			case "late":
				f.publish(f.openURI, []map[string]any{})
				go func() {
					time.Sleep(200 * time.Millisecond)
					f.publish(f.openURI, []map[string]any{diag(0, 0, 2, "late")})
				}()
			case "silent", "hangshutdown":
				// publish nothing
			}
		case "shutdown":
			if mode == "hangshutdown" {
				continue
			}
			f.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
		case "exit":
			return 0
		}
	}
}
