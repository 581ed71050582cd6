package codemode_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/codemode"
)

// The seed's texts, each produced by a real run.
func TestTexts(t *testing.T) {
	e := newEnv(t, "")
	cases := []struct{ code, want string }{
		{"  ", "Expected JavaScript source text (non-empty)."},
		{"// @options: {\"max_output_tokens\": 5}", "The @options line must be followed by JavaScript source on subsequent lines"},
		{"// @options: {\"max_output_tokens\": 5}\n  \n", "The @options line must be followed by JavaScript source on subsequent lines"},
		{"// @options: {nope}\nreturn 1", "// @options: expects a JSON object, got \"{nope}\""},
		{"// @options: [1]\nreturn 1", "// @options: expects a JSON object"},
		{"// @options: {\"timeout\": 1}\nreturn 1", "// @options: does not support \"timeout\"; supported fields are `max_output_tokens` and `timeout_ms`"},
		{"// @options: {\"max_output_tokens\": 0}\nreturn 1", "// @options: max_output_tokens must be a positive number"},
		{"// @options: {\"timeout_ms\": \"5\"}\nreturn 1", "// @options: timeout_ms must be a positive number"},
		// Line numbers are the user's: the options line stays as an empty line.
		{"// @options: {\"max_output_tokens\": 100}\nconst a = 1;\nnull.x", "Script failed (script):\nTypeError: cannot read property 'x' of null\nTypeError: cannot read property 'x' of null\n    at <anonymous> (<eval>:3:5)\n\nNo tool calls were made."},
		{"const a = 1;\n  a(", "Script failed (script):\nSyntaxError: unexpected token in expression: '}'\n    at <eval>:3:1\n\nNo tool calls were made."},
		{"throw 'plain'", "Script failed (script):\nplain\n\nNo tool calls were made."},
		{"text('a'); text({b: 1}); text(null); console.log('x', 2, [3]); console.error(new TypeError('t'))", "a\n{\"b\":1}\nnull\nx 2 [3]\nTypeError: t\n    at <anonymous> (<eval>:1:105)"},
		{"text('before'); exit(); text('after')", "before"},
		{"return undefined", ""},
		{"return () => 1", ""},
		{"try { image('https://x/y.png') } catch (e) { return e.message }", "\n\n\"remote image URLs are not supported in tool outputs. Pass a base64 data URI instead\""},
		{"try { image(42) } catch (e) { return e.message }", "\n\n\"image expects a non-empty image URL string, an object with image_url, or a raw MCP image block\""},
		{"try { image({type: 'text'}) } catch (e) { return e.message }", "\n\n\"image only accepts MCP image blocks, got \\\"text\\\"\""},
		{"try { image('data:image/png,abc') } catch (e) { return e.message }", "\n\n\"invalid image output. Pass a base64 data URI instead\""},
		{"try { await fs.read('missing.txt') } catch (e) { return e.message }", "\n\n\"ENOENT: no such file or directory, open '" + e.path("missing.txt") + "'\""},
		{"return [typeof require, typeof process, typeof setTimeout, typeof fetch, typeof WebAssembly, typeof __codemode_bridge, typeof print, typeof std, typeof os]", "\n\n[\n  \"undefined\",\n  \"undefined\",\n  \"undefined\",\n  \"undefined\",\n  \"undefined\",\n  \"undefined\",\n  \"undefined\",\n  \"undefined\",\n  \"undefined\"\n]"},
		{"await call('Bash', {command: 1, bad: true})", "Script failed (script):\nCallFailedError: Invalid arguments for tool \"Bash\": root: must not have additional properties\n\nTool calls made before the failure (they are not undone): Bash (error)"},
	}
	for _, c := range cases {
		r := e.run(context.Background(), c.code)
		if r.Text() != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.code, r.Text(), c.want)
		}
	}
	os.WriteFile(e.path("bin.dat"), []byte{0xff, 0xfe}, 0o644)
	if r := e.run(context.Background(), "try { await fs.read('bin.dat') } catch (e) { return e.message }"); r.Text() != "\n\n\"Cannot read \\\""+e.path("bin.dat")+"\\\" as UTF-8 text: the file is not valid UTF-8 (binary files are not supported).\"" {
		t.Errorf("binary: %q", r.Text())
	}
}

func TestImageOutput(t *testing.T) {
	e := newEnv(t, "")
	r := e.run(context.Background(), "text('pic'); image('data:image/png;base64,iVBORw0K'); image({type: 'image', data: 'AAAA', mimeType: 'image/gif'})")
	if len(r.Content) != 3 || r.Content[0].Text != "pic" || r.Content[1].MimeType != "image/png" || r.Content[1].Data != "iVBORw0K" || r.Content[2].MimeType != "image/gif" {
		t.Fatalf("%+v", r.Content)
	}
}

// Over budget: head and tail around the mark, the full text in the spill file.
func TestTruncation(t *testing.T) {
	e := newEnv(t, "")
	r := e.run(context.Background(), "// @options: {\"max_output_tokens\": 5}\nfor (let i = 0; i < 10; i++) text('line ' + i)")
	d := detailsOf(t, r)
	if d.FullOutputPath == "" {
		t.Fatalf("no spill: %s", r.Details)
	}
	defer os.Remove(d.FullOutputPath)
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(os.TempDir()) + `/pi-codemode-[0-9a-f]{16}\.txt$`).MatchString(d.FullOutputPath) {
		t.Fatalf("spill path %q", d.FullOutputPath)
	}
	want := "Warning: truncated output (original token count: 18)\nTotal output lines: 10\nline 0\nlin…13 tokens truncated…e 8\nline 9\n[Full output: " + d.FullOutputPath + " (read with offset/limit)]"
	if r.Text() != want {
		t.Fatalf("got %q\nwant %q", r.Text(), want)
	}
	full, _ := os.ReadFile(d.FullOutputPath)
	if lines := strings.Split(string(full), "\n"); len(lines) != 10 || lines[9] != "line 9" {
		t.Fatalf("spill %q", full)
	}
}

// The description is the preamble plus one overload per callable tool, typed from its
// schemas.
func TestDescription(t *testing.T) {
	e := newEnv(t, "")
	var desc string
	for _, tl := range e.runner.LLMTools() {
		if tl.Name == "codemode" {
			desc = tl.Description
		}
	}
	for _, want := range []string{
		"Run JavaScript code that orchestrates tool calls in a QuickJS sandbox.\n",
		"  JavaScript, and print only what matters.\n\n```ts\n",
		"declare function call(name: \"Bash\", args: {\n  command: string;\n",
		"  dangerouslyDisableSandbox?: boolean;\n}): Promise<{\n  exitCode: number | null;\n  output: string;\n}>;\n",
		"declare function call(name: string, args?: unknown): Promise<unknown>;\ndeclare const ALL_TOOLS",
		"declare function sleep(seconds: number): Promise<void>;\n```",
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("description lacks %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, `call(name: "Read"`) || strings.Contains(desc, `call(name: "codemode"`) {
		t.Error("an unstructured tool is declared")
	}
	decl := codemode.Declarations([]codemode.Decl{{Name: "x-y", Description: "Does it.\nMore.", Parameters: []byte(`{"type":"object","properties":{"a-b":{"enum":["p",2]},"c":{"const":true},"d":{"type":"array","items":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"e":{"type":"object"},"f":{"type":["string","null"]}},"required":["c"]}`)}})
	want := "/** Does it. */\ndeclare function call(name: \"x-y\", args: {\n  \"a-b\"?: \"p\" | 2;\n  c: true;\n  d?: Array<number | null>;\n  e?: Record<string, unknown>;\n  f?: string | null;\n}): Promise<unknown>;\n"
	if !strings.HasPrefix(decl, want) {
		t.Errorf("declarations:\n%s\nwant prefix:\n%s", decl, want)
	}
}

// Frames of the prelude never show: a rejection made by call() points at the script only.
func TestStackHidesPrelude(t *testing.T) {
	e := newEnv(t, "")
	r := e.run(context.Background(), "\nawait call(\"Read\", {file_path: \"a.txt\"})")
	want := "Script failed (script):\nCallFailedError: Tool \"Read\" is not available in codemode.\nCallFailedError: Tool \"Read\" is not available in codemode.\n    at <anonymous> (<eval>:2:11)\n\nNo tool calls were made."
	if r.Text() != want {
		t.Fatalf("got %q\nwant %q", r.Text(), want)
	}
	r = e.run(context.Background(), "try { text({toJSON() { throw new RangeError('r') }}) } catch (e) { return e.name + ': ' + e.message }")
	if r.Text() != "\n\n\"TypeError: r\"" {
		t.Fatalf("%q", r.Text())
	}
}
