// Command growsession builds a long session for the growth benchmark
// (scripts/bench-growth.sh) by repeating the entries of a real one: each copy gets fresh entry
// ids and hangs off the last entry of the copy before it, so the result is one valid pi v3
// session whose current branch holds every repeated message.
//
//	growsession -from SESSION.jsonl -mb 16 -cwd DIR -o OUT.jsonl
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/pigo-agent/pigo/internal/session"
)

func main() {
	from := flag.String("from", "", "the real session to repeat (any version pi reads)")
	mb := flag.Float64("mb", 1, "the size to reach, in MiB")
	cwd := flag.String("cwd", "", "the working directory to record in the header")
	out := flag.String("o", "", "the file to write")
	flag.Parse()
	if err := run(*from, *out, *cwd, int64(*mb*(1<<20))); err != nil {
		fmt.Fprintln(os.Stderr, "growsession:", err)
		os.Exit(1)
	}
}

func run(from, out, cwd string, size int64) error {
	src, err := session.Read(from)
	if err != nil {
		return err
	}
	var entries []map[string]json.RawMessage
	for _, e := range src.Entries() {
		b, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		entries = append(entries, m)
	}
	if len(entries) == 0 {
		return fmt.Errorf("%s has no entries", from)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	h := src.Header()
	header := map[string]any{"type": "session", "version": session.Version, "id": "019a0000-0000-7000-8000-00000000beef",
		"timestamp": h.Timestamp, "cwd": cwd}
	if err := enc.Encode(header); err != nil {
		return err
	}
	n, last, written := 0, json.RawMessage("null"), int64(0)
	for written < size {
		ids := map[string]json.RawMessage{}
		for _, e := range entries {
			if written >= size {
				break
			}
			n++
			id, _ := json.Marshal(fmt.Sprintf("%08x", n))
			var old string
			json.Unmarshal(e["id"], &old)
			ids[old] = id
			c := make(map[string]json.RawMessage, len(e))
			for k, v := range e {
				c[k] = v
			}
			c["id"] = id
			c["parentId"] = last
			var p string
			if json.Unmarshal(e["parentId"], &p) == nil && ids[p] != nil {
				c["parentId"] = ids[p]
			}
			for _, k := range []string{"firstKeptEntryId", "targetId", "fromId"} {
				var ref string
				if json.Unmarshal(e[k], &ref) == nil && ids[ref] != nil {
					c[k] = ids[ref]
				}
			}
			var line bytes.Buffer
			le := json.NewEncoder(&line)
			le.SetEscapeHTML(false)
			if err := le.Encode(c); err != nil {
				return err
			}
			written += int64(line.Len())
			w.Write(line.Bytes())
			last = id
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
