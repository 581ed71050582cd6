// Command llmserve is a zero-latency model server for scripts/bench-run.sh: llmtest on
// 127.0.0.1 answering every request with the same short reply in the API's own streaming
// protocol. It prints its base URL, then serves until killed.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

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
	t := &tb{}
	srv := llmtest.New(t)
	srv.Fallback = &llmtest.Turn{Text: "Hello.", Usage: llmtest.Usage{Input: 10, Output: 2}}
	fmt.Println(srv.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	for _, f := range t.cleanups {
		f()
	}
}
