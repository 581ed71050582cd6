// Command llmserve is a model server for scripts and hand testing: llmtest on 127.0.0.1
// answering in the API's own streaming protocol. It prints its base URL, then serves until
// killed. Without arguments every request gets the same short reply (scripts/bench-run.sh);
// -turns FILE serves the JSON array of llmtest.Turn in FILE in order first (text, thinking,
// tool calls, usage), then the short reply; -requests FILE appends each request body there as
// one JSON line, so a script can check what the model received.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// tb lets llmtest.New run outside a test: cleanups run at exit.
type tb struct {
	testing.TB
	cleanups []func()
}

func (t *tb) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }
func (t *tb) Helper()          {}

func main() {
	turns := flag.String("turns", "", "JSON file with an array of scripted turns, served first")
	reqs := flag.String("requests", "", "file each request body is appended to (one JSON line each)")
	flag.Parse()
	t := &tb{}
	srv := llmtest.New(t)
	srv.Fallback = &llmtest.Turn{Text: "Hello.", Usage: llmtest.Usage{Input: 10, Output: 2}}
	if *turns != "" {
		b, err := os.ReadFile(*turns)
		if err != nil {
			fmt.Fprintln(os.Stderr, "llmserve:", err)
			os.Exit(2)
		}
		var ts []llmtest.Turn
		if err := json.Unmarshal(b, &ts); err != nil {
			fmt.Fprintln(os.Stderr, "llmserve:", *turns+":", err)
			os.Exit(2)
		}
		srv.Push(ts...)
	}
	if *reqs != "" {
		go record(srv, *reqs)
	}
	fmt.Println(srv.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	for _, f := range t.cleanups {
		f()
	}
}

// record appends every new request body to path as one compact JSON line.
func record(srv *llmtest.Server, path string) {
	done := 0
	for range time.Tick(20 * time.Millisecond) {
		rs := srv.Requests()
		for ; done < len(rs); done++ {
			var v any
			line := rs[done].Body
			if json.Unmarshal(line, &v) == nil {
				line, _ = json.Marshal(v)
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				continue
			}
			f.Write(append(line, '\n'))
			f.Close()
		}
	}
}
