// Command benchserve is the zero-latency model server of the growth and whole-session
// benchmarks (scripts/bench-growth.sh, scripts/bench-session.sh): openai-completions streaming
// on 127.0.0.1, answering from the request path, never keeping a request body (a 64 MB
// context is read and dropped). It prints its base URL, then serves until killed.
//
// The path before /v1 picks the reply:
//
//	/hello/v1            "Hello."
//	/calls/N/v1          N read calls of small.txt in one reply; "Done." once the results came
//	/reply/MB/v1         a text reply of MB megabytes, streamed in 4 KiB deltas
//	/session/v1          the 4-request session: read main.go, bash ls, edit main.go, then "Done."
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	go http.Serve(ln, http.HandlerFunc(serve))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}

// toolResults counts the tool-result messages after the last user message of a request body
// as it is read, keeping only the last bytes (a marker may straddle two reads).
func toolResults(r io.Reader) int {
	const role = `"role":"`
	buf := make([]byte, 256<<10)
	n, carry := 0, 0
	for {
		k, err := r.Read(buf[carry:])
		data := buf[:carry+k]
		// Tool results since the last user message: a continued session's earlier turns do not
		// count, so the script plays out the same way whatever came before.
		end := len(data) - (len(role) + 5) // a marker and its value: a whole one must fit
		if err != nil {
			end = len(data)
		}
		i := 0
		for i < end {
			j := bytes.Index(data[i:], []byte(role))
			if j < 0 || i+j >= end {
				break
			}
			v := data[i+j+len(role):]
			switch {
			case bytes.HasPrefix(v, []byte(`tool"`)):
				n++
			case bytes.HasPrefix(v, []byte(`user"`)):
				n = 0
			}
			i += j + 1
		}
		if err != nil {
			return n
		}
		// What was not looked at yet is kept for the next read.
		i = max(i, end)
		carry = copy(buf, data[i:])
	}
}

func serve(w http.ResponseWriter, r *http.Request) {
	prefix, _, ok := strings.Cut(r.URL.Path, "/v1/")
	if !ok || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "benchserve: unknown path "+r.URL.Path, http.StatusNotFound)
		return
	}
	results := toolResults(r.Body)
	parts := strings.Split(strings.Trim(prefix, "/"), "/")
	w.Header().Set("Content-Type", "text/event-stream")
	sw := &stream{w: bufio.NewWriterSize(w, 64<<10)}
	defer sw.w.Flush()
	sw.chunk(`{"role":"assistant","content":""}`, "")
	n := 0
	if len(parts) > 1 {
		n, _ = strconv.Atoi(parts[1])
	}
	switch parts[0] {
	case "calls":
		if results > 0 {
			sw.text("Done.")
			break
		}
		for i := 0; i < n; i++ {
			sw.call(i, "read", `{"path":"small.txt"}`)
		}
	case "reply":
		// One event, formatted once and written as often as needed: formatting each of the
		// 25,600 events of a 100 MB reply held the server to ~80 MB/s, more than the
		// clients' own time (pigo stops at 32 MiB, so the server's pace was most of its run).
		delta := strings.Repeat("All work and no play makes a long reply. ", 100)[:4096]
		var ev bytes.Buffer
		(&stream{w: bufio.NewWriter(&ev)}).chunkFlushed(`{"content":`+strconv.Quote(delta)+`}`, "")
		for sent := 0; sent < n<<20; sent += len(delta) {
			if _, err := sw.w.Write(ev.Bytes()); err != nil {
				return // the client stopped reading (pigo at its ceiling)
			}
		}
	case "session":
		switch results {
		case 0:
			sw.call(0, "read", `{"path":"main.go"}`)
		case 1:
			sw.call(0, "bash", `{"command":"ls"}`)
		case 2:
			sw.call(0, "edit", `{"path":"main.go","edits":[{"oldText":"hello","newText":"goodbye"}]}`)
		default:
			sw.text("Done.")
		}
	default:
		sw.text("Hello.")
	}
	sw.finish()
}

// stream writes openai-completions chunks.
type stream struct {
	w     *bufio.Writer
	calls bool
}

func (s *stream) chunk(delta, finish string) {
	f := "null"
	if finish != "" {
		f = strconv.Quote(finish)
	}
	fmt.Fprintf(s.w, "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1764576000,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, f)
}

// chunkFlushed is chunk, flushed.
func (s *stream) chunkFlushed(delta, finish string) {
	s.chunk(delta, finish)
	s.w.Flush()
}

func (s *stream) text(t string) { s.chunk(`{"content":`+strconv.Quote(t)+`}`, "") }

func (s *stream) call(i int, name, args string) {
	s.calls = true
	s.chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":%q,"arguments":%s}}]}`, i, i, name, strconv.Quote(args)), "")
}

func (s *stream) finish() {
	reason := "stop"
	if s.calls {
		reason = "tool_calls"
	}
	s.chunk(`{}`, reason)
	fmt.Fprint(s.w, "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1764576000,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,\"total_tokens\":12}}\n\ndata: [DONE]\n\n")
}
