// Command jsonc2json converts JSONC (comments, trailing commas) into standard JSON with
// hujson's Standardize, for tools that read plain JSON only (scripts/bench-check.sh feeds the
// results to `cue vet`).
//
// Usage: jsonc2json IN OUT   (or: jsonc2json < in.jsonc > out.json)
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/tailscale/hujson"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "jsonc2json:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var in []byte
	var err error
	switch len(args) {
	case 0:
		in, err = io.ReadAll(os.Stdin)
	case 2:
		in, err = os.ReadFile(args[0])
	default:
		return fmt.Errorf("usage: jsonc2json [IN OUT]")
	}
	if err != nil {
		return err
	}
	out, err := hujson.Standardize(in)
	if err != nil {
		return err
	}
	if len(args) == 2 {
		return os.WriteFile(args[1], out, 0o644)
	}
	_, err = os.Stdout.Write(out)
	return err
}
