package cli

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/pigo-agent/pigo/schema"
	"github.com/pigo-agent/pigo/schema/jsonschema"
)

// schemaKinds is jsonschema.Kinds joined, written out so that the command table is static data
// (TestSchemaKindsAsJoined).
const schemaKinds = "settings, sandbox, lsp, models, spawn-agent, proxy, openai-cost, web-search, trust, mcp, agent, prompt, skill, extension, toolset, command"

var schemaCmd = command{
	name:    "schema",
	summary: "print the CUE schema, or the JSON Schema of one kind for an editor's $schema",
	usage:   "schema [--jsonschema KIND]",
	flags: []*flag{{names: []string{"--jsonschema"}, value: true,
		help: "print the JSON Schema (draft 2020-12) of KIND: " + schemaKinds}},
	run: runSchema,
}

// runSchema prints every schema/*.cue file, each after a "// ---- schema/NAME ----" marker, or
// the JSON Schema generated from one definition (shipped in schema/jsonschema and tested
// against the CUE source).
func runSchema(c *CLI, a *args) int {
	if len(a.pos) > 0 {
		fmt.Fprintf(c.Stderr, "pigo schema: unexpected argument %q\nusage: pigo schema [--jsonschema KIND]\n", a.pos[0])
		return ExitUsage
	}
	if a.has("--jsonschema") {
		kind := a.str("--jsonschema")
		b, ok := jsonschema.Get(kind)
		if !ok {
			fmt.Fprintf(c.Stderr, "pigo schema: unknown kind %q (one of %s)\n", kind, strings.Join(jsonschema.Kinds, ", "))
			return ExitUsage
		}
		c.Stdout.Write(b)
		return ExitOK
	}
	for i, name := range schema.Files() {
		src, err := fs.ReadFile(schema.FS, name)
		if err != nil {
			fmt.Fprintf(c.Stderr, "pigo schema: %v\n", err)
			return ExitInternal
		}
		if i > 0 {
			fmt.Fprintln(c.Stdout)
		}
		fmt.Fprintf(c.Stdout, "// ---- schema/%s ----\n", name)
		c.Stdout.Write(src)
	}
	return ExitOK
}
