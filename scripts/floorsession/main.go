// Command floorsession is the physical floor of the whole-session benchmark
// (scripts/bench-session.sh): the least a coding agent must do for the 4-request session that
// scripts/benchserve's /session model asks for — four streamed requests, reading main.go, one
// bwrap-sandboxed `ls`, the edit of main.go written back, and the answer printed — with
// nothing else (no configuration, no registry, no session file, no prompt).
//
//	floorsession BASEURL   (the /session/v1 URL; run in the workspace)
//
// With FLOOR_DUTIES=FILE it also does what pigo must do beyond that least, so that a
// comparison can tell pigo's own cost from its duties: the command runs under pigo's bwrap
// command line (FILE: the JSON of `pigo sandbox argv --format json -- CMD`; its --seccomp is
// left out, as this program has no filter to give) with the placeholder directories pigo makes
// for the protected paths that do not exist, and `bash -c` as pi's bash tool runs; the edit
// is written as pigo writes files (a temporary file, fsync, rename); every message is
// appended to a session file, fsynced at the end (pigo fsyncs each entry off the turn's path
// and waits for the last at exit).
//
// FLOOR_SKIP (with FLOOR_DUTIES) leaves duties out, to price each one: a comma-separated list
// of "argv" (the command runs under this program's own bwrap command line, without pigo's),
// "bash" (`sh -c` instead of `bash -c`), "edit" (the edit written in place, as without
// duties) and "log" (no session file). FLOOR_SESSIONS=DIR puts the session file in DIR, one
// file a run, kept as pigo keeps its sessions (else a temporary directory, removed at the end).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
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

// duties is FLOOR_DUTIES's work (nil without it).
var duties *duty

type duty struct {
	skip    map[string]bool // FLOOR_SKIP's duties
	argv    []string        // pigo's bwrap argv up to its shell words
	env     []string
	missing []string // protected paths pigo covers with a placeholder directory
	log     *os.File // the session file (nil when FLOOR_SKIP has "log")
	temp    string   // the temporary directory holding it, removed at the end ("" for none)
}

func loadDuties(file string) (*duty, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var v struct {
		Argv, Env []string
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	d := &duty{env: v.Env, skip: map[string]bool{}}
	for _, k := range strings.Split(os.Getenv("FLOOR_SKIP"), ",") {
		switch k {
		case "":
		case "argv", "bash", "edit", "log":
			d.skip[k] = true
		default:
			return nil, fmt.Errorf("FLOOR_SKIP: unknown duty %q (argv, bash, edit, log)", k)
		}
	}
	for i := 0; i < len(v.Argv); i++ {
		switch a := v.Argv[i]; {
		case a == "--":
			i = len(v.Argv)
		case a == "--seccomp":
			i++
		default:
			d.argv = append(d.argv, a)
			if a == "--tmpfs" && i+3 < len(v.Argv) && v.Argv[i+2] == "--remount-ro" {
				if _, err := os.Lstat(v.Argv[i+1]); err != nil {
					d.missing = append(d.missing, v.Argv[i+1])
				}
			}
		}
	}
	if d.skip["log"] {
		return d, nil
	}
	if dir := os.Getenv("FLOOR_SESSIONS"); dir != "" {
		// A file of its own in a directory that keeps it, as pigo's sessions directory does.
		name := fmt.Sprintf("%d-%d.jsonl", time.Now().UnixNano(), os.Getpid())
		d.log, err = os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		return d, err
	}
	dir, err := os.MkdirTemp("", "floor-session-")
	if err != nil {
		return nil, err
	}
	d.temp = dir
	d.log, err = os.OpenFile(filepath.Join(dir, "s.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	return d, err
}

// bash runs command as pigo does: placeholders made, its bwrap argv, bash -c, placeholders
// removed (less what FLOOR_SKIP leaves out).
func (d *duty) bash(cwd, command string) ([]byte, error) {
	shell := "/bin/bash"
	if d.skip["bash"] {
		shell = "/bin/sh"
	}
	if d.skip["argv"] {
		return sandboxed(cwd, shell, command)
	}
	for _, p := range d.missing {
		if err := os.Mkdir(p, 0o500|os.ModeSticky); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(d.argv[0], append(slices.Clone(d.argv[1:]), "--", shell, "-c", command)...)
	cmd.Env = d.env
	out, err := cmd.CombinedOutput()
	for _, p := range d.missing {
		os.Remove(p)
	}
	return out, err
}

// sandboxed runs command with shell under the floor's own bwrap command line.
func sandboxed(cwd, shell, command string) ([]byte, error) {
	return exec.Command("bwrap", "--ro-bind", "/", "/", "--bind", cwd, cwd, "--dev", "/dev", "--proc", "/proc",
		"--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session", "--", shell, "-c", command).CombinedOutput()
}

// record appends one message to the session file.
func (d *duty) record(m any) error {
	if d.skip["log"] {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = d.log.Write(append(b, '\n'))
	return err
}

// writeSynced writes a file as pigo does: a temporary file beside it, fsynced, renamed over.
func writeSynced(path string, b []byte) error {
	tmp := path + ".floor-tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func run(url string) error {
	cwd, _ := os.Getwd()
	if file := os.Getenv("FLOOR_DUTIES"); file != "" {
		var err error
		if duties, err = loadDuties(file); err != nil {
			return err
		}
		if duties.temp != "" {
			defer os.RemoveAll(duties.temp)
		}
	}
	messages := []any{map[string]any{"role": "system", "content": "You are a coding agent."}, map[string]any{"role": "user", "content": "change hello in main.go"}}
	recorded := 1
	for {
		text, calls, err := ask(url, messages)
		if err != nil {
			return err
		}
		if duties != nil {
			if len(calls) == 0 {
				messages = append(messages, map[string]any{"role": "assistant", "content": text})
			}
			for ; recorded < len(messages); recorded++ {
				if err := duties.record(messages[recorded]); err != nil {
					return err
				}
			}
		}
		if len(calls) == 0 {
			if duties != nil && !duties.skip["log"] {
				if err := duties.log.Sync(); err != nil {
					return err
				}
			}
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
				if duties != nil {
					out, err = duties.bash(cwd, a.Command)
					break
				}
				out, err = sandboxed(cwd, "/bin/sh", a.Command)
			case "edit":
				var b []byte
				if b, err = os.ReadFile(a.Path); err == nil {
					for _, e := range a.Edits {
						b = bytes.Replace(b, []byte(e.OldText), []byte(e.NewText), 1)
					}
					if duties != nil && !duties.skip["edit"] {
						err = writeSynced(a.Path, b)
					} else {
						err = os.WriteFile(a.Path, b, 0o644)
					}
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
