// Command floorsession is the physical floor of the whole-session benchmark
// (scripts/bench-session.sh): the least a coding agent must do for the 4-request session that
// scripts/benchserve's /session model asks for — four streamed requests, reading main.go, one
// bwrap-sandboxed `ls`, the edit of main.go written back, and the answer printed — with
// nothing else (no configuration, no registry, no session file, no prompt).
//
//	floorsession BASEURL   (the /session/v1 URL; run in the workspace)
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
)

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "floorsession:", err)
		os.Exit(1)
	}
}

type call struct {
	ID, Name, Args string
}

// ask sends the conversation and reads the streamed reply: its text and tool calls.
func ask(url string, messages []any) (string, []call, error) {
	body, _ := json.Marshal(map[string]any{"model": "m", "stream": true, "messages": messages,
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "read", "parameters": map[string]any{"type": "object"}}}}})
	resp, err := http.Post(url+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	var text strings.Builder
	var calls []call
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return "", nil, err
		}
		for _, c := range chunk.Choices {
			text.WriteString(c.Delta.Content)
			for _, tc := range c.Delta.ToolCalls {
				for len(calls) <= tc.Index {
					calls = append(calls, call{})
				}
				calls[tc.Index].ID += tc.ID
				calls[tc.Index].Name += tc.Function.Name
				calls[tc.Index].Args += tc.Function.Arguments
			}
		}
	}
	return text.String(), calls, sc.Err()
}

func run(url string) error {
	cwd, _ := os.Getwd()
	messages := []any{map[string]any{"role": "system", "content": "You are a coding agent."}, map[string]any{"role": "user", "content": "change hello in main.go"}}
	for {
		text, calls, err := ask(url, messages)
		if err != nil {
			return err
		}
		if len(calls) == 0 {
			fmt.Println(text)
			return nil
		}
		var toolCalls []any
		for _, c := range calls {
			toolCalls = append(toolCalls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		messages = append(messages, map[string]any{"role": "assistant", "content": text, "tool_calls": toolCalls})
		for _, c := range calls {
			var a struct {
				Path, Command string
				Edits         []struct{ OldText, NewText string }
			}
			json.Unmarshal([]byte(c.Args), &a)
			var out []byte
			switch c.Name {
			case "read":
				out, err = os.ReadFile(a.Path)
			case "bash":
				out, err = exec.Command("bwrap", "--ro-bind", "/", "/", "--bind", cwd, cwd, "--dev", "/dev", "--proc", "/proc",
					"--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session", "--", "/bin/sh", "-c", a.Command).CombinedOutput()
			case "edit":
				var b []byte
				if b, err = os.ReadFile(a.Path); err == nil {
					for _, e := range a.Edits {
						b = bytes.Replace(b, []byte(e.OldText), []byte(e.NewText), 1)
					}
					err = os.WriteFile(a.Path, b, 0o644)
					out = []byte("edited")
				}
			}
			if err != nil {
				return err
			}
			messages = append(messages, map[string]any{"role": "tool", "tool_call_id": c.ID, "content": string(out)})
		}
	}
}
