// Command floor is the baseline for scripts/bench-tools.sh: the least a session start must do —
// read every JSON/JSONC config file of an agent dir and a project overlay and parse it (hujson),
// and read the Markdown files — with nothing else (no schema, no resolution).
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
)

func main() {
	n := 0
	for _, root := range os.Args[1:] {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			switch {
			case strings.HasSuffix(p, ".json"), strings.HasSuffix(p, ".jsonc"):
				v, err := hujson.Parse(b)
				if err != nil {
					fmt.Fprintln(os.Stderr, p, err)
					return nil
				}
				v.Standardize()
				n++
			case strings.HasSuffix(p, ".md"):
				n++
			}
			return nil
		})
	}
	fmt.Println(n, "files")
}
