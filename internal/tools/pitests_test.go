package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/pitest"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// This file runs pi's own tool tests (packages/coding-agent/test/tools.test.ts of pi's
// repository, which the npm package does not ship) as black-box cases: each test becomes a
// tool call on files set up the same way, run through the real pi 0.84.3 (driven by a
// scripted loopback model in JSON mode) and through pigo. A case's check is the test's
// expectations; the real pi must pass it too, which keeps every case honest about what pi
// 0.84.3 does (where 0.84.3 answers differently from the test's later pi, the check says so
// and follows 0.84.3). Then pi's and pigo's texts and error flags must be equal.
//
// Tests of pi's file that cannot be a tool call are listed in notToolCalls with the reason.

// toolCase is one test of pi's file.
type toolCase struct {
	it    string            // the test's title in pi's file
	files map[string]string // written into the case's folder
	setup func(dir string)  // further set-up in the case's folder (chmod, fixtures)
	tool  string
	args  string // JSON; $D is the case's folder
	check func(o caseOut) string
	// noSame, when set, says why pi's and pigo's texts are not compared.
	noSame string
}

// caseOut is what one side answered.
type caseOut struct {
	text    string
	isError bool
	details map[string]any
	images  []llm.Content
	dir     string
	updates int
}

// toolGroup is cases that share one session (settings.json, and a hook before call i).
type toolGroup struct {
	settings string
	cases    []toolCase
	// before runs in the workspace before call i (both sides).
	before func(ws string, i int)
}

// notToolCalls are the tests of pi's file that exercise internals, not a tool call.
var notToolCalls = map[string]string{
	"edit tool: should include the original error message for unknown edit access errors":          "replaces the file system operations with a mock that fails with \"disk offline\"",
	"edit tool: should include ENOENT in diff preview for missing files":                           "calls computeEditsDiff, the TUI's preview of an edit before it runs, not the tool",
	"edit tool: should include EACCES in diff preview for unreadable files":                        "computeEditsDiff, the TUI preview",
	"edit tool: should include file context in diff preview when text is not found":                "computeEditsDiff, the TUI preview",
	"bash tool: should send commands over stdin when shell resolution requires it":                 "mocks getShellConfig to a Windows bash.exe that reads its script from stdin",
	"bash tool: should resolve legacy WSL bash.exe to stdin command transport":                     "fakes process.platform = win32",
	"bash tool: should expose local bash operations for extension reuse":                           "an extension API (createLocalBashOperations), not the tool",
	"bash tool: should preserve executeBash sanitization when using local bash operations":         "executeBash is the user's ! command of the interactive mode, not the tool",
	"bash tool: executeBash should persist full output when truncation happens by line count only": "executeBash, the user's ! command",
}

func has(s string, subs ...string) string {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return fmt.Sprintf("%q does not contain %q", abbreviate(s), sub)
		}
	}
	return ""
}

func hasNot(s string, subs ...string) string {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return fmt.Sprintf("%q contains %q", abbreviate(s), sub)
		}
	}
	return ""
}

func allOf(checks ...string) string {
	for _, c := range checks {
		if c != "" {
			return c
		}
	}
	return ""
}

func isErr(o caseOut, re string) string {
	if !o.isError {
		return "not an error: " + abbreviate(o.text)
	}
	if !regexp.MustCompile(re).MatchString(o.text) {
		return fmt.Sprintf("error %q does not match %s", o.text, re)
	}
	return ""
}

func ok(o caseOut) string {
	if o.isError {
		return "an error: " + o.text
	}
	return ""
}

func fileIs(o caseOut, name, want string) string {
	b, err := os.ReadFile(filepath.Join(o.dir, name))
	if err != nil || string(b) != want {
		return fmt.Sprintf("%s is %q (%v), want %q", name, b, err, want)
	}
	return ""
}

func noDetails(o caseOut) string {
	if len(o.details) != 0 {
		return fmt.Sprintf("details %v, want none", o.details)
	}
	return ""
}

func numLines(prefix string, n int, sep string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(sep)
		}
		fmt.Fprintf(&b, "%s%d", prefix, i)
	}
	return b.String()
}

// tinyBMP is pi's test fixture: a 1×1 red 24-bit BMP.
func tinyBMP() string {
	b := make([]byte, 58)
	copy(b, "BM")
	le32 := func(at int, v uint32) {
		b[at], b[at+1], b[at+2], b[at+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	le32(2, 58)
	le32(10, 54)
	le32(14, 40)
	le32(18, 1)
	le32(22, 1)
	b[26], b[28] = 1, 24
	le32(34, 4)
	b[56] = 0xff
	return string(b)
}

const png1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAX+XDSwAAAABJRU5ErkJggg=="

func toolGroups() []toolGroup {
	pngBytes, _ := base64.StdEncoding.DecodeString(png1x1)
	lines600 := make([]string, 600)
	for i := range lines600 {
		lines600[i] = fmt.Sprintf("line %03d", i+1)
	}
	var bytes500 strings.Builder
	for i := 1; i <= 500; i++ {
		if i > 1 {
			bytes500.WriteString("\n")
		}
		fmt.Fprintf(&bytes500, "Line %d: %s", i, strings.Repeat("x", 200))
	}
	main := []toolCase{
		// read tool
		{it: "read tool: should read file contents that fit within limits", files: map[string]string{"test.txt": "Hello, world!\nLine 2\nLine 3"},
			tool: "read", args: `{"path":"$D/test.txt"}`,
			check: func(o caseOut) string {
				if o.text != "Hello, world!\nLine 2\nLine 3" {
					return fmt.Sprintf("text %q", o.text)
				}
				return allOf(hasNot(o.text, "Use offset="), noDetails(o))
			}},
		{it: "read tool: should handle non-existent files", tool: "read", args: `{"path":"$D/nonexistent.txt"}`,
			check: func(o caseOut) string { return isErr(o, `(?i)ENOENT|not found`) }},
		{it: "read tool: should truncate files exceeding line limit", files: map[string]string{"large.txt": numLines("Line ", 2500, "\n")},
			tool: "read", args: `{"path":"$D/large.txt"}`,
			check: func(o caseOut) string {
				return allOf(has(o.text, "Line 1", "Line 2000", "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"), hasNot(o.text, "Line 2001"))
			}},
		{it: "read tool: should truncate when byte limit exceeded", files: map[string]string{"large-bytes.txt": bytes500.String()},
			tool: "read", args: `{"path":"$D/large-bytes.txt"}`,
			check: func(o caseOut) string {
				if !regexp.MustCompile(`\[Showing lines 1-\d+ of 500 \(.* limit\)\. Use offset=\d+ to continue\.\]`).MatchString(o.text) {
					return "no byte-limit note in " + abbreviate(o.text)
				}
				return has(o.text, "Line 1:")
			}},
		{it: "read tool: should handle offset parameter", files: map[string]string{"offset-test.txt": numLines("Line ", 100, "\n")},
			tool: "read", args: `{"path":"$D/offset-test.txt","offset":51}`,
			check: func(o caseOut) string {
				return allOf(hasNot(o.text, "Line 50\n", "Use offset="), has(o.text, "Line 51", "Line 100"))
			}},
		{it: "read tool: should handle limit parameter", files: map[string]string{"limit-test.txt": numLines("Line ", 100, "\n")},
			tool: "read", args: `{"path":"$D/limit-test.txt","limit":10}`,
			check: func(o caseOut) string {
				return allOf(has(o.text, "Line 1", "Line 10", "[90 more lines in file. Use offset=11 to continue.]"), hasNot(o.text, "Line 11"))
			}},
		{it: "read tool: should handle offset + limit together", files: map[string]string{"offset-limit-test.txt": numLines("Line ", 100, "\n")},
			tool: "read", args: `{"path":"$D/offset-limit-test.txt","offset":41,"limit":20}`,
			check: func(o caseOut) string {
				return allOf(hasNot(o.text, "Line 40", "Line 61"), has(o.text, "Line 41", "Line 60", "[40 more lines in file. Use offset=61 to continue.]"))
			}},
		{it: "read tool: should show error when offset is beyond file length", files: map[string]string{"short.txt": "Line 1\nLine 2\nLine 3"},
			tool: "read", args: `{"path":"$D/short.txt","offset":100}`,
			check: func(o caseOut) string { return isErr(o, `Offset 100 is beyond end of file \(3 lines total\)`) }},
		{it: "read tool: should include truncation details when truncated", files: map[string]string{"large-file.txt": numLines("Line ", 2500, "\n")},
			tool: "read", args: `{"path":"$D/large-file.txt"}`,
			check: func(o caseOut) string {
				tr, _ := o.details["truncation"].(map[string]any)
				if tr == nil || tr["truncated"] != true || tr["truncatedBy"] != "lines" || tr["totalLines"] != 2500.0 || tr["outputLines"] != 2000.0 {
					return fmt.Sprintf("truncation %v", tr)
				}
				return ""
			}},
		{it: "read tool: should detect image MIME type from file magic (not extension)", files: map[string]string{"image.txt": string(pngBytes)},
			tool: "read", args: `{"path":"$D/image.txt"}`,
			check: func(o caseOut) string {
				if len(o.images) != 1 || o.images[0].MimeType != "image/png" || o.images[0].Data == "" {
					return fmt.Sprintf("images %v", o.images)
				}
				return has(o.text, "Read image file [image/png]")
			}},
		{it: "read tool: should read BMP files from disk as PNG image attachments", files: map[string]string{"image.bmp": tinyBMP()},
			tool: "read", args: `{"path":"$D/image.bmp"}`,
			check: func(o caseOut) string {
				if len(o.images) != 1 || o.images[0].MimeType != "image/png" {
					return fmt.Sprintf("images %v", o.images)
				}
				if b, _ := base64.StdEncoding.DecodeString(o.images[0].Data); len(b) == 0 || b[0] != 0x89 {
					return "the image is not a PNG"
				}
				return has(o.text, "Read image file [image/png]", "[Image converted from image/bmp to image/png.]")
			}},
		{it: "read tool: should treat files with image extension but non-image content as text", files: map[string]string{"not-an-image.png": "definitely not a png"},
			tool: "read", args: `{"path":"$D/not-an-image.png"}`,
			check: func(o caseOut) string {
				if len(o.images) != 0 {
					return "an image block"
				}
				return has(o.text, "definitely not a png")
			}},
		// write tool
		{it: "write tool: should write file contents", tool: "write", args: `{"path":"$D/write-test.txt","content":"Test content"}`,
			check: func(o caseOut) string {
				return allOf(has(o.text, "Successfully wrote", filepath.Join(o.dir, "write-test.txt")), noDetails(o), fileIs(o, "write-test.txt", "Test content"))
			}},
		{it: "write tool: should create parent directories", tool: "write", args: `{"path":"$D/nested/dir/test.txt","content":"Nested content"}`,
			check: func(o caseOut) string {
				return allOf(has(o.text, "Successfully wrote"), fileIs(o, "nested/dir/test.txt", "Nested content"))
			}},
		// edit tool
		{it: "edit tool: should replace text in file", files: map[string]string{"edit-test.txt": "Hello, world!"},
			tool: "edit", args: `{"path":"$D/edit-test.txt","edits":[{"oldText":"world","newText":"testing"}]}`,
			check: func(o caseOut) string {
				diff, _ := o.details["diff"].(string)
				patch, _ := o.details["patch"].(string)
				return allOf(has(o.text, "Successfully replaced"), has(diff, "testing"), has(patch, "--- ", "+++ ", "@@", "-Hello, world!", "+Hello, testing!"),
					fileIs(o, "edit-test.txt", "Hello, testing!"))
			}},
		{it: "edit tool: should fail if text not found", files: map[string]string{"edit-test.txt": "Hello, world!"},
			tool: "edit", args: `{"path":"$D/edit-test.txt","edits":[{"oldText":"nonexistent","newText":"testing"}]}`,
			check: func(o caseOut) string { return isErr(o, `Could not find the exact text`) }},
		{it: "edit tool: should include file content context when text is not found", files: map[string]string{"edit-context.txt": "alpha\nbeta\ngamma\ndelta\n"},
			tool: "edit", args: `{"path":"$D/edit-context.txt","edits":[{"oldText":"nonexistent","newText":"testing"}]}`,
			// pi 0.84.3 does not quote the file (the numbered "  1: alpha" lines are later).
			check: func(o caseOut) string { return allOf(isErr(o, `Could not find`), hasNot(o.text, "  1: alpha")) }},
		{it: "edit tool: should include closest match context when oldText partially matches", files: map[string]string{"edit-partial.txt": "//  Talks\nconst x = 1;\n//  More\n"},
			tool: "edit", args: `{"path":"$D/edit-partial.txt","edits":[{"oldText":"// Talks\nconst x = 1;","newText":"// Updated\nconst x = 2;"}]}`,
			check: func(o caseOut) string { return allOf(isErr(o, `Could not find`), hasNot(o.text, "  1: //  Talks")) }},
		{it: "edit tool: should include ENOENT when the edit target does not exist", tool: "edit", args: `{"path":"$D/missing.txt","edits":[{"oldText":"hello","newText":"world"}]}`,
			check: func(o caseOut) string {
				return isErr(o, `^Could not edit file: .*/missing\.txt\. Error code: ENOENT\.$`)
			}},
		{it: "edit tool: should fail if text appears multiple times", files: map[string]string{"edit-test.txt": "foo foo foo"},
			tool: "edit", args: `{"path":"$D/edit-test.txt","edits":[{"oldText":"foo","newText":"bar"}]}`,
			check: func(o caseOut) string { return isErr(o, `Found 3 occurrences`) }},
		{it: "edit tool: should replace multiple disjoint regions in one call", files: map[string]string{"edit-multi.txt": "alpha\nbeta\ngamma\ndelta\n"},
			tool: "edit", args: `{"path":"$D/edit-multi.txt","edits":[{"oldText":"alpha\n","newText":"ALPHA\n"},{"oldText":"gamma\n","newText":"GAMMA\n"}]}`,
			check: func(o caseOut) string {
				diff, _ := o.details["diff"].(string)
				return allOf(has(o.text, "Successfully replaced 2 block(s)"), fileIs(o, "edit-multi.txt", "ALPHA\nbeta\nGAMMA\ndelta\n"), has(diff, "ALPHA", "GAMMA"))
			}},
		{it: "edit tool: should collapse large unchanged gaps in multi-edit diffs", files: map[string]string{"edit-multi-large-gap.txt": strings.Join(lines600, "\n") + "\n"},
			tool: "edit", args: `{"path":"$D/edit-multi-large-gap.txt","edits":[{"oldText":"line 100\n","newText":"LINE 100\n"},{"oldText":"line 300\n","newText":"LINE 300\n"},{"oldText":"line 500\n","newText":"LINE 500\n"}]}`,
			check: func(o caseOut) string {
				diff, _ := o.details["diff"].(string)
				if n := strings.Count(diff, "\n") + 1; n >= 50 {
					return fmt.Sprintf("the diff has %d lines", n)
				}
				return allOf(has(diff, "LINE 100", "LINE 300", "LINE 500", "..."), hasNot(diff, "line 250"))
			}},
		{it: "edit tool: should match edits against the original file, not incrementally", files: map[string]string{"edit-multi-original.txt": "foo\nbar\nbaz\n"},
			tool: "edit", args: `{"path":"$D/edit-multi-original.txt","edits":[{"oldText":"foo\n","newText":"foo bar\n"},{"oldText":"bar\n","newText":"BAR\n"}]}`,
			check: func(o caseOut) string { return fileIs(o, "edit-multi-original.txt", "foo bar\nBAR\nbaz\n") }},
		{it: "edit tool: should fail when edits is empty", files: map[string]string{"edit-empty-edits.txt": "hello\nworld\n"},
			tool: "edit", args: `{"path":"$D/edit-empty-edits.txt","edits":[]}`,
			check: func(o caseOut) string { return isErr(o, `edits must contain at least one replacement`) }},
		{it: "edit tool: should fail when multi-edit regions overlap", files: map[string]string{"edit-overlap.txt": "one\ntwo\nthree\n"},
			tool: "edit", args: `{"path":"$D/edit-overlap.txt","edits":[{"oldText":"one\ntwo\n","newText":"ONE\nTWO\n"},{"oldText":"two\nthree\n","newText":"TWO\nTHREE\n"}]}`,
			check: func(o caseOut) string { return isErr(o, `overlap`) }},
		{it: "edit tool: should not partially apply edits when one edit fails", files: map[string]string{"edit-no-partial.txt": "alpha\nbeta\ngamma\n"},
			tool: "edit", args: `{"path":"$D/edit-no-partial.txt","edits":[{"oldText":"alpha\n","newText":"ALPHA\n"},{"oldText":"missing\n","newText":"MISSING\n"}]}`,
			check: func(o caseOut) string {
				return allOf(isErr(o, `Could not find`), fileIs(o, "edit-no-partial.txt", "alpha\nbeta\ngamma\n"))
			}},
		{it: "edit tool: should include EACCES for read-only files", files: map[string]string{"edit-readonly.txt": "hello\n"},
			setup: func(dir string) { os.Chmod(filepath.Join(dir, "edit-readonly.txt"), 0o444) },
			tool:  "edit", args: `{"path":"$D/edit-readonly.txt","edits":[{"oldText":"hello","newText":"world"}]}`,
			check: func(o caseOut) string {
				if os.Geteuid() == 0 {
					// root writes a 0444 file: pi and pigo both do the edit.
					return allOf(ok(o), fileIs(o, "edit-readonly.txt", "world\n"))
				}
				// pi 0.84.3: "File is not writable: <path>"... whatever its text, an error.
				return isErr(o, `.`)
			}},
		// bash tool
		{it: "bash tool: should execute simple commands", tool: "bash", args: `{"command":"echo 'test output'"}`,
			check: func(o caseOut) string { return allOf(has(o.text, "test output"), noDetails(o)) }},
		{it: "bash tool: should handle command errors", tool: "bash", args: `{"command":"exit 1"}`,
			check: func(o caseOut) string { return isErr(o, `(Command failed|code 1)`) }},
		{it: "bash tool: should respect timeout", tool: "bash", args: `{"command":"sleep 5","timeout":1}`,
			check: func(o caseOut) string { return isErr(o, `(?i)timed out`) }},
		{it: "bash tool: should include full output path for truncated timeout and abort errors", tool: "bash",
			// The test's mock prints 3000 lines and fails with a timeout (or an abort, which a
			// print-mode tool call cannot receive): here a real command does.
			args: `{"command":"seq 3000; sleep 10","timeout":2}`,
			check: func(o caseOut) string {
				if c := allOf(isErr(o, `Command timed out after 2 seconds`), hasNot(o.text, "Full output: undefined")); c != "" {
					return c
				}
				m := regexp.MustCompile(`\[Showing lines \d+-\d+ of \d+\. Full output: ([^\]\n]+)\]`).FindStringSubmatch(o.text)
				if m == nil {
					return "no full-output note in " + abbreviate(o.text)
				}
				b, err := os.ReadFile(m[1])
				if err != nil {
					return err.Error()
				}
				return has(string(b), "1\n2\n3", "2998\n2999\n3000")
			}},
		{it: "bash tool: should work without command prefix", tool: "bash", args: `{"command":"echo no-prefix"}`,
			check: func(o caseOut) string {
				if strings.TrimSpace(o.text) != "no-prefix" {
					return fmt.Sprintf("text %q", o.text)
				}
				return ""
			}},
		{it: "bash tool: should coalesce streaming updates for chatty output", tool: "bash",
			args: `{"command":"for i in $(seq 0 4999); do echo \"line $i\"; done"}`,
			check: func(o caseOut) string {
				if o.updates >= 25 {
					return fmt.Sprintf("%d updates", o.updates)
				}
				return has(o.text, "line 4999")
			}},
		{it: "bash tool: should not count a trailing newline as an extra truncated bash output line", tool: "bash",
			args: `{"command":"for i in $(seq 1 4000); do printf 'line-%04d\\n' $i; done"}`,
			check: func(o caseOut) string {
				tr, _ := o.details["truncation"].(map[string]any)
				if tr == nil || tr["totalLines"] != 4000.0 || tr["outputLines"] != 2000.0 {
					return fmt.Sprintf("truncation %v", tr)
				}
				if !regexp.MustCompile(`\[Showing lines 2001-4000 of 4000\. Full output: `).MatchString(o.text) {
					return "no note in " + abbreviate(o.text)
				}
				return allOf(has(o.text, "line-2001", "line-4000"), hasNot(o.text, "4001"))
			}},
		{it: "bash tool: should decode UTF-8 characters split across output chunks", tool: "bash",
			args: `{"command":"printf '\\342'; sleep 0.3; printf '\\202\\254\\n'"}`,
			check: func(o caseOut) string {
				if strings.TrimSpace(o.text) != "€" {
					return fmt.Sprintf("text %q", o.text)
				}
				return ""
			}},
		{it: "bash tool: should persist full output when truncation happens by line count only", tool: "bash", args: `{"command":"seq 3000"}`,
			check: func(o caseOut) string {
				tr, _ := o.details["truncation"].(map[string]any)
				p, _ := o.details["fullOutputPath"].(string)
				if tr == nil || tr["truncated"] != true || tr["truncatedBy"] != "lines" || p == "" {
					return fmt.Sprintf("details %v", o.details)
				}
				if !regexp.MustCompile(`\[Showing lines \d+-\d+ of \d+\. Full output: `).MatchString(o.text) || strings.Contains(o.text, "Full output: undefined") {
					return "no note in " + abbreviate(o.text)
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err.Error()
				}
				return has(string(b), "1\n2\n3", "2998\n2999\n3000")
			}},
		// grep tool
		{it: "grep tool: should include filename when searching a single file", files: map[string]string{"example.txt": "first line\nmatch line\nlast line"},
			tool: "grep", args: `{"pattern":"match","path":"$D/example.txt"}`,
			check: func(o caseOut) string { return has(o.text, "example.txt:2: match line") }},
		{it: "grep tool: should respect global limit and include context lines", files: map[string]string{"context.txt": "before\nmatch one\nafter\nmiddle\nmatch two\nafter two"},
			tool: "grep", args: `{"pattern":"match","path":"$D/context.txt","limit":1,"context":1}`,
			check: func(o caseOut) string {
				return allOf(has(o.text, "context.txt-1- before", "context.txt:2: match one", "context.txt-3- after",
					"[1 matches limit reached. Use limit=2 for more, or refine pattern]"), hasNot(o.text, "match two"))
			}},
		{it: "grep tool: should treat flag-like patterns as search text", files: map[string]string{"target.txt": "target\n"},
			setup: func(dir string) {
				os.WriteFile(filepath.Join(dir, "payload.sh"), []byte("#!/bin/sh\necho executed > "+filepath.Join(dir, "grep-injection-marker")+"\ncat \"$1\"\n"), 0o755)
			},
			tool: "grep", args: `{"pattern":"--pre=$D/payload.sh","path":"$D"}`,
			check: func(o caseOut) string {
				if _, err := os.Stat(filepath.Join(o.dir, "grep-injection-marker")); err == nil {
					return "the payload ran"
				}
				return has(o.text, "No matches found")
			}},
		// ls tool
		{it: "ls tool: should list dotfiles and directories", files: map[string]string{".hidden-file": "secret"},
			setup: func(dir string) { os.Mkdir(filepath.Join(dir, ".hidden-dir"), 0o755) },
			tool:  "ls", args: `{"path":"$D"}`,
			check: func(o caseOut) string { return has(o.text, ".hidden-file", ".hidden-dir/") }},
	}
	main = append(main, fuzzyCases()...)
	main = append(main, crlfCases()...)
	main = append(main, nameVariantCases()...)
	var kept []toolCase
	for _, c := range main {
		if c.tool != "" {
			kept = append(kept, c)
		}
	}
	groups := []toolGroup{{cases: kept}}
	groups = append(groups, findGroup())
	groups = append(groups, settingsGroups()...)
	return groups
}

// runToolSide runs one group's calls through pigo.
func runPigoGroup(t *testing.T, ws string, g toolGroup, calls []diffCall) []caseOut {
	t.Helper()
	e := newEnvSettings(t, ws, g.settings)
	e.runner.Session.Model = &llm.Model{Provider: "local", ID: "m", Input: []string{"text", "image"}}
	var settings map[string]any
	json.Unmarshal([]byte(g.settings), &settings)
	str := func(k string) string { s, _ := settings[k].(string); return s }
	e.runner.Session.Shell = toolrun.Shell{Path: str("shellPath"), CommandPrefix: str("shellCommandPrefix")}
	var out []caseOut
	for i, c := range calls {
		if g.before != nil {
			g.before(ws, i)
		}
		updates := 0
		r := e.runner.Run(context.Background(), toolrun.Call{ID: fmt.Sprintf("call_%d", i), Name: c.name, Arguments: json.RawMessage(c.args)},
			func(toolrun.Result) { updates++ })
		out = append(out, toCaseOut(r.Content, r.IsError, r.Details, updates))
	}
	return out
}

func toCaseOut(content []llm.Content, isError bool, details json.RawMessage, updates int) caseOut {
	o := caseOut{isError: isError, updates: updates}
	var texts []string
	for _, c := range content {
		switch c.Type {
		case "text":
			texts = append(texts, c.Text)
		case "image":
			o.images = append(o.images, c)
		}
	}
	o.text = strings.Join(texts, "\n")
	json.Unmarshal(details, &o.details)
	return o
}

// runPiGroup runs one group's calls through the real pi.
func runPiGroup(t *testing.T, pi pitest.Pi, ws string, g toolGroup, calls []diffCall) []caseOut {
	t.Helper()
	ss := newScriptServer(t, calls)
	if g.before != nil {
		ss.before = func(i int) { g.before(ws, i) }
	}
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	os.MkdirAll(agent, 0o755)
	models := `{"providers":{"local":{"baseUrl":"` + ss.URL + `","api":"openai-completions","apiKey":"k","models":[{"id":"m","input":["text","image"]}]}}}`
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o644)
	if g.settings != "" {
		os.WriteFile(filepath.Join(agent, "settings.json"), []byte(g.settings), 0o644)
	}
	cmd := pi.Command("--provider", "local", "--model", "m", "--tools", "read,bash,edit,write,grep,find,ls",
		"--mode", "json", "--no-session", "-p", "go")
	cmd.Dir = ws // a case may remove it after pi has started: pi's tools keep the folder they were made for
	cmd.Env = append(os.Environ(), "HOME="+home, "PI_CODING_AGENT_DIR="+agent, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("pi: %v\n%s", err, stderr.String())
	}
	type ev struct {
		Type       string `json:"type"`
		ToolCallID string `json:"toolCallId"`
		IsError    bool   `json:"isError"`
		Result     struct {
			Content []llm.Content   `json:"content"`
			Details json.RawMessage `json:"details"`
		} `json:"result"`
	}
	ends := map[string]ev{}
	updates := map[string]int{}
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var e ev
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		switch e.Type {
		case "tool_execution_update":
			updates[e.ToolCallID]++
		case "tool_execution_end":
			ends[e.ToolCallID] = e
		}
	}
	var out []caseOut
	for i := range calls {
		id := fmt.Sprintf("call_%d", i)
		e, ok := ends[id]
		if !ok {
			t.Fatalf("pi ran no call %d (%s %s)\n%s", i, calls[i].name, calls[i].args, stderr.String())
		}
		out = append(out, toCaseOut(e.Result.Content, e.IsError, e.Result.Details, updates[id]))
	}
	return out
}

// piEditCase is an edit test: a file, one call's edits, and the file afterwards (or an error).
func piEditCase(it, name, content, edits, want, errRe string) toolCase {
	return toolCase{it: it, files: map[string]string{name: content}, tool: "edit",
		args: `{"path":"$D/` + name + `","edits":` + edits + `}`,
		check: func(o caseOut) string {
			if errRe != "" {
				return allOf(isErr(o, errRe), fileIs(o, name, content))
			}
			return allOf(ok(o), has(o.text, "Successfully replaced"), fileIs(o, name, want))
		}}
}

func fuzzyCases() []toolCase {
	f := "edit tool fuzzy matching: "
	return []toolCase{
		piEditCase(f+"should match text with trailing whitespace stripped", "trailing-ws.txt", "line one   \nline two  \nline three\n",
			`[{"oldText":"line one\nline two\n","newText":"replaced\n"}]`, "replaced\nline three\n", ""),
		piEditCase(f+"should match fullwidth punctuation in Chinese text", "chinese-punctuation.txt", "你好，世界\n你好（世界）\n",
			`[{"oldText":"你好,世界\n你好(世界)\n","newText":"你好，pi\n你好(pi)\n"}]`, "你好，pi\n你好(pi)\n", ""),
		piEditCase(f+"should match compatibility-equivalent Unicode forms", "unicode-compatibility.txt", "ＡＢＣ１２３\ncafe\u0301\n",
			`[{"oldText":"ABC123\ncafé\n","newText":"XYZ789\ncoffee\n"}]`, "XYZ789\ncoffee\n", ""),
		piEditCase(f+"should match smart single quotes to ASCII quotes", "smart-quotes.txt", "console.log(\u2018hello\u2019);\n",
			`[{"oldText":"console.log('hello');","newText":"console.log('world');"}]`, "console.log('world');\n", ""),
		piEditCase(f+"should match smart double quotes to ASCII quotes", "smart-double-quotes.txt", "const msg = \u201cHello World\u201d;\n",
			`[{"oldText":"const msg = \"Hello World\";","newText":"const msg = \"Goodbye\";"}]`, "const msg = \"Goodbye\";\n", ""),
		piEditCase(f+"should match Unicode dashes to ASCII hyphen", "unicode-dashes.txt", "range: 1\u20135\nbreak\u2014here\n",
			`[{"oldText":"range: 1-5\nbreak-here","newText":"range: 10-50\nbreak--here"}]`, "range: 10-50\nbreak--here\n", ""),
		piEditCase(f+"should match non-breaking space to regular space", "nbsp.txt", "hello\u00a0world\n",
			`[{"oldText":"hello world","newText":"hello universe"}]`, "hello universe\n", ""),
		piEditCase(f+"should prefer exact match over fuzzy match", "exact-preferred.txt", "const x = 'exact';\nconst y = 'other';\n",
			`[{"oldText":"const x = 'exact';","newText":"const x = 'changed';"}]`, "const x = 'changed';\nconst y = 'other';\n", ""),
		piEditCase(f+"should still fail when text is not found even with fuzzy matching", "no-match.txt", "completely different content\n",
			`[{"oldText":"this does not exist","newText":"replacement"}]`, "", `Could not find the exact text`),
		piEditCase(f+"should detect duplicates after fuzzy normalization", "fuzzy-dups.txt", "hello world   \nhello world\n",
			`[{"oldText":"hello world","newText":"replaced"}]`, "", `Found 2 occurrences`),
		piEditCase(f+"should support fuzzy matching in multi-edit mode", "fuzzy-multi.txt", "console.log(\u2018hello\u2019);\nhello\u00a0world\n",
			`[{"oldText":"console.log('hello');\n","newText":"console.log('world');\n"},{"oldText":"hello world\n","newText":"hello universe\n"}]`,
			"console.log('world');\nhello universe\n", ""),
		// pi 0.84.3 keeps the untouched lines' trailing spaces.
		piEditCase(f+"should preserve the correct occurrence when fuzzy replacement equals a nearby line", "fuzzy-preserve-duplicate-line.txt", "replace me   \nafter   \n",
			`[{"oldText":"replace me\n","newText":"after\n"}]`, "after\nafter   \n", ""),
		piEditCase(f+"should preserve untouched lines and produce an applicable patch for fuzzy multi-edits", "fuzzy-preserve-multi.txt",
			"keep before  \nfirst target  \nfirst after\nkeep middle   \nsecond target  \nsecond after\nkeep after  \n",
			`[{"oldText":"first target\nfirst after","newText":"FIRST\nFIRST2"},{"oldText":"second target\nsecond after","newText":"SECOND\nSECOND2"}]`,
			"keep before  \nFIRST\nFIRST2\nkeep middle   \nSECOND\nSECOND2\nkeep after  \n", ""),
	}
}

func crlfCases() []toolCase {
	c := "edit tool CRLF handling: "
	return []toolCase{
		piEditCase(c+"should match LF oldText against CRLF file content", "crlf-test.txt", "line one\r\nline two\r\nline three\r\n",
			`[{"oldText":"line two\n","newText":"replaced line\n"}]`, "line one\r\nreplaced line\r\nline three\r\n", ""),
		piEditCase(c+"should preserve CRLF line endings after edit", "crlf-preserve.txt", "first\r\nsecond\r\nthird\r\n",
			`[{"oldText":"second\n","newText":"REPLACED\n"}]`, "first\r\nREPLACED\r\nthird\r\n", ""),
		piEditCase(c+"should preserve LF line endings for LF files", "lf-preserve.txt", "first\nsecond\nthird\n",
			`[{"oldText":"second\n","newText":"REPLACED\n"}]`, "first\nREPLACED\nthird\n", ""),
		piEditCase(c+"should detect duplicates across CRLF/LF variants", "mixed-endings.txt", "hello\r\nworld\r\n---\r\nhello\nworld\n",
			`[{"oldText":"hello\nworld\n","newText":"replaced\n"}]`, "", `Found 2 occurrences`),
		piEditCase(c+"should preserve UTF-8 BOM after edit", "bom-test.txt", "\ufefffirst\r\nsecond\r\nthird\r\n",
			`[{"oldText":"second\n","newText":"REPLACED\n"}]`, "\ufefffirst\r\nREPLACED\r\nthird\r\n", ""),
		piEditCase(c+"should preserve CRLF line endings and BOM in multi-edit mode", "bom-crlf-multi.txt", "\ufefffirst\r\nsecond\r\nthird\r\nfourth\r\n",
			`[{"oldText":"second\n","newText":"SECOND\n"},{"oldText":"fourth\n","newText":"FOURTH\n"}]`, "\ufefffirst\r\nSECOND\r\nthird\r\nFOURTH\r\n", ""),
	}
}

// nameVariantCases are the read tests of pi's file at 0.84.3 for names a user types
// differently from the file system: the macOS screenshot name with a narrow no-break space
// before AM/PM, a name stored decomposed (NFD) typed composed, and a curly apostrophe.
func nameVariantCases() []toolCase {
	r := "read tool: "
	return []toolCase{
		{it: r + "should read macOS screenshot names typed with a regular space before AM/PM", files: map[string]string{"Screenshot 2024-01-01 at 10.00.00\u202fAM.txt": "shot"},
			tool: "read", args: `{"path":"$D/Screenshot 2024-01-01 at 10.00.00 AM.txt"}`,
			check: func(o caseOut) string { return allOf(ok(o), has(o.text, "shot")) }},
		{it: r + "should read a file whose name is stored in NFD from the NFC form", files: map[string]string{"cafe\u0301.txt": "decomposed"},
			tool: "read", args: `{"path":"$D/café.txt"}`,
			check: func(o caseOut) string { return allOf(ok(o), has(o.text, "decomposed")) }},
		{it: r + "should read a name with a curly apostrophe typed with a straight one", files: map[string]string{"it\u2019s.txt": "curly"},
			tool: "read", args: `{"path":"$D/it's.txt"}`,
			check: func(o caseOut) string { return allOf(ok(o), has(o.text, "curly")) }},
	}
}

// findGroup is pi's find tests; pi's find runs fd (fd or Debian's fdfind on PATH).
func findGroup() toolGroup {
	f := "find tool: "
	return toolGroup{cases: []toolCase{
		{it: f + "should include hidden files that are not gitignored", files: map[string]string{".secret/hidden.txt": "hidden", "visible.txt": "visible"},
			tool: "find", args: `{"pattern":"**/*.txt","path":"$D"}`,
			check: func(o caseOut) string {
				lines := map[string]bool{}
				for _, l := range strings.Split(o.text, "\n") {
					lines[strings.TrimSpace(l)] = true
				}
				if !lines["visible.txt"] || !lines[".secret/hidden.txt"] {
					return fmt.Sprintf("lines %q", o.text)
				}
				return ""
			}},
		{it: f + "should respect .gitignore", files: map[string]string{".gitignore": "ignored.txt\n", "ignored.txt": "ignored", "kept.txt": "kept"},
			tool: "find", args: `{"pattern":"**/*.txt","path":"$D"}`,
			check: func(o caseOut) string { return allOf(has(o.text, "kept.txt"), hasNot(o.text, "ignored.txt")) }},
		{it: f + "should surface fd glob parse errors", tool: "find", args: `{"pattern":"[","path":"$D"}`,
			check: func(o caseOut) string { return isErr(o, `(?i)error parsing glob|fd exited with code 1|fd error`) }},
		{it: f + "should treat flag-like patterns as search text", tool: "find", args: `{"pattern":"--help","path":"$D"}`,
			check: func(o caseOut) string { return has(o.text, "No files found matching pattern") }},
	}}
}

// settingsGroups are the bash tests that configure the tool: settings.json's shellPath and
// shellCommandPrefix, and a working directory removed before the call. $WS in settings is the
// workspace.
func settingsGroups() []toolGroup {
	b := "bash tool: "
	echo := func(it, prefix, cmd, want string) toolGroup {
		return toolGroup{settings: `{"shellCommandPrefix":` + jsString(prefix) + `}`, cases: []toolCase{{it: it, tool: "bash", args: `{"command":` + jsString(cmd) + `}`,
			check: func(o caseOut) string {
				if strings.TrimSpace(o.text) != want {
					return fmt.Sprintf("text %q, want %q", o.text, want)
				}
				return ""
			}}}}
	}
	return []toolGroup{
		echo(b+"should prepend command prefix when configured", "export TEST_VAR=hello", "echo $TEST_VAR", "hello"),
		echo(b+"should include output from both prefix and command", "echo prefix-output", "echo command-output", "prefix-output\ncommand-output"),
		{settings: `{"shellPath":"/custom/bash"}`, cases: []toolCase{{it: b + "should pass shellPath through to shell resolution", tool: "bash", args: `{"command":"echo test"}`,
			check: func(o caseOut) string { return isErr(o, `^Custom shell path not found: /custom/bash$`) }}}},
		// The test mocks the shell with a program that does not exist; here the configured shell
		// is a script whose interpreter does not exist, which fails the same way when started.
		{settings: `{"shellPath":"$WS/badshell"}`,
			before: func(ws string, i int) {
				os.WriteFile(filepath.Join(ws, "badshell"), []byte("#!/nonexistent-shell-path-xyz123\n"), 0o755)
			},
			cases: []toolCase{{it: b + "should handle process spawn errors", tool: "bash", args: `{"command":"echo test"}`,
				noSame: "pi gives node's spawn error (spawn … ENOENT), pigo the error of starting the shell",
				check:  func(o caseOut) string { return isErr(o, `ENOENT|[Nn]o such file or directory`) }}}},
		// The workspace is removed before the call: pi's tool was made for a folder that is gone.
		{before: func(ws string, i int) { os.RemoveAll(ws) },
			cases: []toolCase{{it: b + "should throw error when cwd does not exist", tool: "bash", args: `{"command":"echo test"}`,
				check: func(o caseOut) string { return isErr(o, `Working directory does not exist`) }}}},
	}
}

// TestPiToolTests runs pi's own tool tests as black-box tool calls against the real pi 0.84.3
// and pigo (see the top of this file).
func TestPiToolTests(t *testing.T) {
	pi := pitest.Find(t)
	fdWhy := fdUsable()
	ran, pigoOnly := 0, 0
	fullOutput := regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/pi-bash-[0-9a-f]{16}\.log`)
	groups := toolGroups()
	for _, g := range groups {
		ran += len(g.cases)
		if g.cases[0].tool == "find" && fdWhy != "" {
			pigoOnly += len(g.cases)
		}
	}
	// Each group is one pi process and one pigo session; the groups run side by side (most of
	// the time is pi's start-up and the bash cases' timeouts).
	t.Run("group", func(t *testing.T) {
		for gi, g := range groups {
			t.Run(strconv.Itoa(gi), func(t *testing.T) {
				t.Parallel()
				sideNames := []string{"pi", "pigo"}
				if g.cases[0].tool == "find" && fdWhy != "" {
					// pigo's find does not run fd; pi's does, so only pigo is checked.
					t.Logf("pi's %d find tests run against pigo only: %s", len(g.cases), fdWhy)
					sideNames = []string{"pigo"}
				}
				sides := map[string][]caseOut{}
				dirs := map[string][]string{}
				wss := map[string]string{}
				for _, side := range sideNames {
					ws := tempWS(t)
					wss[side] = ws
					os.MkdirAll(ws, 0o755)
					var calls []diffCall
					for i, c := range g.cases {
						dir := filepath.Join(ws, fmt.Sprintf("c%d", i))
						os.MkdirAll(dir, 0o755)
						for name, content := range c.files {
							p := filepath.Join(dir, name)
							os.MkdirAll(filepath.Dir(p), 0o755)
							if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
								t.Fatal(err)
							}
						}
						if c.setup != nil {
							c.setup(dir)
						}
						calls = append(calls, diffCall{c.tool, strings.ReplaceAll(c.args, "$D", dir)})
						dirs[side] = append(dirs[side], dir)
					}
					sg := g
					sg.settings = strings.ReplaceAll(g.settings, "$WS", ws)
					if side == "pi" {
						sides[side] = runPiGroup(t, pi, ws, sg, calls)
					} else {
						sides[side] = runPigoGroup(t, ws, sg, calls)
					}
				}
				for i, c := range g.cases {
					g := sides["pigo"][i]
					g.dir = dirs["pigo"][i]
					if msg := c.check(g); msg != "" {
						t.Errorf("group %d: pigo fails %q: %s", gi, c.it, msg)
					}
					if len(sideNames) == 1 {
						continue
					}
					p := sides["pi"][i]
					p.dir = dirs["pi"][i]
					if msg := c.check(p); msg != "" {
						t.Errorf("group %d: the real pi fails %q (the case does not say what pi 0.84.3 does): %s", gi, c.it, msg)
					}
					if c.noSame == "" {
						// The full-output file's name is random: its place and form are compared.
						pt := fullOutput.ReplaceAllString(strings.ReplaceAll(strings.ReplaceAll(p.text, p.dir, "$D"), wss["pi"], "$WS"), "$$FULL")
						gt := fullOutput.ReplaceAllString(strings.ReplaceAll(strings.ReplaceAll(g.text, g.dir, "$D"), wss["pigo"], "$WS"), "$$FULL")
						if pt != gt || p.isError != g.isError {
							t.Errorf("group %d %q: pi and pigo differ:\n  pi   (error %v) %q\n  pigo (error %v) %q", gi, c.it, p.isError, abbreviate(pt), g.isError, abbreviate(gt))
						}
					}
				}
			})
		}
	})
	t.Logf("%d of pi's tool tests ran as tool calls against pi %s and pigo (%d against pigo only); %d are not tool calls", ran, pitest.Version, pigoOnly, len(notToolCalls))
}

// fdUsable says why pi 0.84.3's find cannot run here, or "" when it can: pi runs fd (or
// Debian's fdfind) with --no-require-git, which fd has since 8.7.
func fdUsable() string {
	for _, name := range []string{"fd", "fdfind"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		out, err := exec.Command(p, "--version").Output()
		if err != nil {
			return fmt.Sprintf("%s --version: %v", p, err)
		}
		var major, minor int
		if _, err := fmt.Sscanf(strings.TrimPrefix(strings.TrimSpace(string(out)), name+" "), "%d.%d", &major, &minor); err != nil {
			return fmt.Sprintf("%s --version says %q", p, out)
		}
		if major < 8 || major == 8 && minor < 7 {
			return fmt.Sprintf("%s is %d.%d; pi's find passes --no-require-git, which fd has since 8.7", p, major, minor)
		}
		return ""
	}
	return "no fd on PATH (Debian: apt-get install fd-find)"
}

// jsString is s as a JSON string.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
