package codemode_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/codemode"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

func needBwrap(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed")
	}
}

// Promise.all over real Bash calls, each in bwrap: the script sees structured results, the
// context sees only the script's output, and the sandbox holds inside the script.
func TestFanOutBash(t *testing.T) {
	needBwrap(t)
	e := newEnv(t, "")
	outside, err := os.MkdirTemp("/var/tmp", "pigo-cm-")
	if err != nil {
		t.Skip("no /var/tmp")
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	code := `const rs = await Promise.all([1, 2, 3].map(i => call("Bash", {command: "echo n" + i + " > f" + i + ".txt; cat f" + i + ".txt"})));
text(rs.map(r => r.exitCode + ":" + r.output.trim().split("\n").pop()).join(" "));
const w = await call("Bash", {command: "echo x > ` + outside + `/o.txt"});
return w.exitCode !== 0;`
	r := e.run(context.Background(), code)
	if r.IsError {
		t.Fatal(r.Text())
	}
	if got, want := r.Text(), "0:n1 0:n2 0:n3\n\ntrue"; got != want {
		t.Fatalf("text %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(outside, "o.txt")); err == nil {
		t.Fatal("a Bash call inside codemode wrote outside the workspace")
	}
	d := detailsOf(t, r)
	if len(d.Calls) != 4 {
		t.Fatalf("calls %+v", d.Calls)
	}
	for _, c := range d.Calls {
		if c.Name != "Bash" || c.Status != "ok" {
			t.Fatalf("call %+v", c)
		}
	}
}

// fs.write on an existing file needs an fs.read (or a Read) first, with the file tools' text.
func TestFsWriteNeedsRead(t *testing.T) {
	e := newEnv(t, "")
	p := e.write("a.txt", "old\n")
	r := e.run(context.Background(), `try { await fs.write("a.txt", "new\n") } catch (e) { text(e.name + ": " + e.message) }
const before = await fs.read("a.txt");
await fs.write("a.txt", before.toUpperCase());
return await fs.read("`+p+`");`)
	if r.IsError {
		t.Fatal(r.Text())
	}
	want := "CallFailedError: " + toolrun.TextNotRead + "\n\n\"OLD\\n\""
	if r.Text() != want {
		t.Fatalf("text %q, want %q", r.Text(), want)
	}
	if b, _ := os.ReadFile(p); string(b) != "OLD\n" {
		t.Fatalf("file %q", b)
	}
	d := detailsOf(t, r)
	if _, ok := d.Reads[p]; !ok {
		t.Fatalf("details.reads %v", d.Reads)
	}
	// The state is the file tools': Write may now overwrite without its own Read.
	w := e.runner.Run(context.Background(), toolrun.Call{ID: "c2", Name: "Write", Arguments: []byte(`{"file_path":"` + p + `","content":"x"}`)}, nil)
	if w.IsError {
		t.Fatalf("Write after fs.read/fs.write: %s", w.Text())
	}
	// And a change on disk after the read is caught.
	os.WriteFile(p, []byte("changed"), 0o644)
	r = e.run(context.Background(), `await fs.write("a.txt", "y")`)
	if !strings.Contains(r.Text(), "CallFailedError: "+toolrun.TextModified) {
		t.Fatalf("stale write: %q", r.Text())
	}
}

// A write outside the workspace is refused inside the script: headless with the guard's
// text, and with a person present with codemode's "use a direct call" text and no dialog.
func TestWriteOutsideRefused(t *testing.T) {
	e := newEnv(t, "")
	outside, err := os.MkdirTemp("/var/tmp", "pigo-cm-")
	if err != nil {
		t.Skip("no /var/tmp")
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	target := filepath.Join(outside, "x.txt")
	code := `try { await fs.write("` + target + `", "x") } catch (e) { return e instanceof CallFailedError ? e.message : "other" }`
	r := e.run(context.Background(), code)
	if want := "\"Path \\\"" + target + "\\\" is outside workspace. No UI available for approval.\""; strings.TrimSpace(r.Text()) != want {
		t.Fatalf("headless: %q, want %q", r.Text(), want)
	}
	a := &approver{}
	e.s.Headless, e.s.Approver = false, a
	r = e.run(context.Background(), code)
	if want := "\"" + strings.ReplaceAll(codemode.TextNeedsPerson("fs.write"), `"`, `\"`) + "\""; strings.TrimSpace(r.Text()) != want {
		t.Fatalf("with a person: %q, want %q", r.Text(), want)
	}
	if a.asked {
		t.Fatal("a dialog was opened from inside a script")
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the write happened")
	}
}

// A Bash escalation inside a script fails with the "use a direct call" text, no dialog.
func TestEscalationRefused(t *testing.T) {
	needBwrap(t)
	e := newEnv(t, "")
	a := &approver{}
	e.s.Headless, e.s.Approver = false, a
	r := e.run(context.Background(), `try { await call("Bash", {command: "true", dangerouslyDisableSandbox: true}) } catch (e) { return e.message }`)
	if want := "\"" + strings.ReplaceAll(codemode.TextNeedsPerson("Bash"), `"`, `\"`) + "\""; strings.TrimSpace(r.Text()) != want {
		t.Fatalf("%q, want %q", r.Text(), want)
	}
	if a.asked {
		t.Fatal("a dialog was opened from inside a script")
	}
}

// Abort ends a running script (a busy loop, a self-feeding job queue, a nested Bash call)
// and leaves no goroutine behind.
func TestAbort(t *testing.T) {
	e := newEnv(t, "")
	e.run(context.Background(), "return 1") // warm the prelude
	cases := []struct{ code, want string }{
		{"text('started'); while (true) {}", "Script failed (aborted):\ncodemode execution was aborted\n\nstarted\n\nNo tool calls were made."},
		{"text('started'); for (;;) await null;", "Script failed (aborted):\ncodemode execution was aborted\n\nstarted\n\nNo tool calls were made."},
		{"text('started'); await sleep(60)", "Script failed (aborted):\ncodemode execution was aborted\n\nstarted\n\nNo tool calls were made."},
	}
	if _, err := exec.LookPath("bwrap"); err == nil {
		cases = append(cases, struct{ code, want string }{"await call('Bash', {command: 'sleep 30'})",
			"Script failed (aborted):\ncodemode execution was aborted\n\nTool calls made before the failure (they are not undone): Bash (aborted)"})
	}
	for _, c := range cases {
		base := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan toolrun.Result, 1)
		started := make(chan struct{})
		var once sync.Once
		raw, _ := json.Marshal(map[string]string{"code": c.code})
		go func() {
			done <- e.runner.Run(ctx, toolrun.Call{ID: "c", Name: "codemode", Arguments: raw}, func(toolrun.Result) {
				once.Do(func() { close(started) })
			})
		}()
		select { // the script is running: it has printed, or started its call
		case <-started:
		case <-time.After(5 * time.Second):
		}
		time.Sleep(50 * time.Millisecond)
		cancel()
		r := <-done
		if r.Text() != c.want {
			t.Errorf("%s: text %q, want %q", c.code, r.Text(), c.want)
		}
		n := 0
		for i := 0; i < 400; i++ {
			if n = runtime.NumGoroutine(); n <= base {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if n > base {
			t.Errorf("%s: goroutines: %d after, %d before", c.code, n, base)
		}
	}
}

// fs.read records in the file toolset's state, and a codemode result's details.reads is
// replayed into it, so Write works after a resume.
func TestReadsReplayed(t *testing.T) {
	e := newEnv(t, "")
	p := e.write("a.txt", "v1")
	r := e.run(context.Background(), "await fs.read('a.txt')")
	fresh := newEnv(t, "")
	fresh.s.Cwd = e.dir
	w := func(env *env) toolrun.Result {
		return env.runner.Run(context.Background(), toolrun.Call{ID: "w", Name: "Write", Arguments: []byte(`{"file_path":"` + p + `","content":"v2"}`)}, nil)
	}
	if res := w(fresh); !res.IsError {
		t.Fatal("Write without a read went through")
	}
	isErr := false
	fresh.s.Replay([]*llm.Message{{Role: llm.RoleToolResult, ToolName: "codemode", ToolCallID: "c", Details: r.Details, IsError: &isErr}})
	if res := w(fresh); res.IsError {
		t.Fatalf("Write after a replayed fs.read: %s", res.Text())
	}
}

// timeout_ms bounds the wall time, nested calls included.
func TestTimeout(t *testing.T) {
	needBwrap(t)
	e := newEnv(t, "")
	r := e.run(context.Background(), "// @options: {\"timeout_ms\": 300}\nawait call(\"Bash\", {command: \"sleep 20\"})")
	if want := "Script failed (aborted):\ncodemode execution timed out after 300 ms\n\nTool calls made before the failure (they are not undone): Bash (aborted)"; r.Text() != want {
		t.Fatalf("text %q, want %q", r.Text(), want)
	}
	r = e.run(context.Background(), "// @options: {\"timeout_ms\": 50}\nfor (;;) {}")
	if want := "Script failed (aborted):\ncodemode execution timed out after 50 ms\n\nNo tool calls were made."; r.Text() != want {
		t.Fatalf("text %q, want %q", r.Text(), want)
	}
}

// An allocation loop is a script error; the host (and the next run) carry on.
func TestAllocationLoop(t *testing.T) {
	e := newEnv(t, "")
	r := e.run(context.Background(), "const a = []; while (true) a.push('x'.repeat(4096) + a.length);")
	if !r.IsError || !strings.HasPrefix(r.Text(), "Script failed (script):\nInternalError: out of memory") {
		t.Fatalf("%q", r.Text())
	}
	if r := e.run(context.Background(), "return 6 * 7"); r.Text() != "\n\n42" {
		t.Fatalf("after OOM: %q", r.Text())
	}
	// The stack trace is over the output budget: the error stays at the head of the cut text.
	r = e.run(context.Background(), "function f() { return f() + 1 }\nf()")
	if !regexp.MustCompile(`^Warning: truncated output \(original token count: \d+\)\nTotal output lines: \d+\nScript failed \(script\):\nInternalError: stack overflow`).MatchString(r.Text()) {
		t.Fatalf("recursion: %q", abbrev(r.Text()))
	}
}

func TestStall(t *testing.T) {
	e := newEnv(t, "")
	r := e.run(context.Background(), "text('waiting');\nawait new Promise(() => {});")
	want := "Script failed (script):\nError: The script is waiting on a promise that can never settle: no tool call is pending, and timers do not exist here.\n\nwaiting\n\nNo tool calls were made."
	if r.Text() != want {
		t.Fatalf("text %q, want %q", r.Text(), want)
	}
	// sleep is a pending timer, not a stall.
	if r := e.run(context.Background(), "await sleep(0.01); return 'slept'"); r.Text() != "\n\n\"slept\"" {
		t.Fatalf("sleep: %q", r.Text())
	}
}

// A disabled tool is not callable; a tool without a structured result never is.
func TestNotCallable(t *testing.T) {
	e := newEnv(t, `{"personalExtensions": {"disabledTools": ["Bash"]}}`)
	r := e.run(context.Background(), `const out = [];
for (const name of ["Bash", "Read", "codemode", "nope"]) {
  try { await call(name, {}) } catch (e) { out.push(e.name + ": " + e.message) }
}
text(out.join("\n")); return ALL_TOOLS.length`)
	want := "CallFailedError: Tool \"Bash\" is not available in codemode.\n" +
		"CallFailedError: Tool \"Read\" is not available in codemode.\n" +
		"CallFailedError: Tool \"codemode\" is not available in codemode.\n" +
		"CallFailedError: Tool \"nope\" is not available in codemode.\n\n0"
	if r.Text() != want {
		t.Fatalf("text %q, want %q", r.Text(), want)
	}
	if strings.Contains(e.runner.LLMTools()[0].Description, `call(name: "Bash"`) {
		t.Fatal("disabled Bash is declared")
	}
}

// Progress shows the script's output and each nested call's start and finish; the tool
// runs alone in a batch (executionMode sequential).
func TestProgressAndSequential(t *testing.T) {
	e := newEnv(t, "")
	e.write("a.txt", "hi")
	var lines []string
	raw := []byte(`{"code":"text('one'); await fs.read('a.txt'); text('two')"}`)
	r := e.runner.Run(context.Background(), toolrun.Call{ID: "c", Name: "codemode", Arguments: raw}, func(p toolrun.Result) {
		lines = append(lines, p.Text())
	})
	if r.IsError {
		t.Fatal(r.Text())
	}
	if got, want := strings.Join(lines, "|"), `one|→ fs.read {"path":"a.txt"}|← fs.read|two`; got != want {
		t.Fatalf("progress %q, want %q", got, want)
	}
	if tl, ok := e.runner.Lookup("codemode"); !ok || !tl.Sequential() {
		t.Fatal("codemode is not sequential")
	}
}

// The output budget holds for a failed and a timed-out script too: the text keeps the error
// at its head and the calls made at its tail, and the whole text is spilled to the file
// details.fullOutputPath names.
func TestFailureTruncated(t *testing.T) {
	e := newEnv(t, "")
	for _, c := range []struct{ code, head, out string }{
		{"// @options: {\"max_output_tokens\": 50}\ntext('x'.repeat(1000)); throw new Error('boom')", "Script failed (script):\nError: boom", strings.Repeat("x", 1000)},
		{"// @options: {\"max_output_tokens\": 50, \"timeout_ms\": 100}\ntext('y'.repeat(1000)); for (;;) {}", "Script failed (aborted):\ncodemode execution timed out after 100 ms", strings.Repeat("y", 1000)},
	} {
		r := e.run(context.Background(), c.code)
		var d struct {
			FullOutputPath string `json:"fullOutputPath"`
			Error          string `json:"error"`
		}
		json.Unmarshal(r.Details, &d)
		text := r.Text()
		if !r.IsError || !strings.HasPrefix(text, "Warning: truncated output (original token count: ") || !strings.Contains(text, c.head) ||
			!strings.Contains(text, "No tool calls were made.\n[Full output: "+d.FullOutputPath+" (read with offset/limit)]") || len(text) > 600 {
			t.Fatalf("%s: text %q, details %s", c.head, text, r.Details)
		}
		full, err := os.ReadFile(d.FullOutputPath)
		if err != nil || !strings.HasPrefix(string(full), c.head) || !strings.Contains(string(full), "\n\n"+c.out+"\n\nNo tool calls were made.") {
			t.Fatalf("%s: spill %q, %v", c.head, abbrev(string(full)), err)
		}
		os.Remove(d.FullOutputPath)
	}
}

func abbrev(s string) string {
	if len(s) > 200 {
		return s[:100] + "…" + s[len(s)-100:]
	}
	return s
}
