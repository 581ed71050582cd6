package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/lazy"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// MaxMessageBytes bounds one incoming message (a stdio line, an SSE event, a JSON body): pi's
// limit. A larger one is refused and the request it answers fails, so a server cannot make
// pigo buffer without bound.
var MaxMessageBytes = 16 << 20

// maxStderrBytes is the tail of a server's stderr kept for error messages.
const maxStderrBytes = 64 << 10

// The stop sequence of a stdio server: close stdin, wait stdinGrace, SIGTERM, wait
// closeTimeout, SIGKILL (pi's timings).
const (
	stdinGrace   = 500 * time.Millisecond
	closeTimeout = 2 * time.Second
)

// starter starts the server process: under the sandbox plan, or directly.
type starter func() (*sandbox.Process, error)

// stdioTransport speaks newline-delimited JSON-RPC with a child process.
type stdioTransport struct {
	start_ starter

	mu      sync.Mutex
	proc    *sandbox.Process
	closed  bool
	stderr  tail
	writeMu sync.Mutex
	ended   chan struct{}
}

func newStdio(start starter) *stdioTransport {
	return &stdioTransport{start_: start, ended: make(chan struct{})}
}

func (t *stdioTransport) start(ctx context.Context, h handlers) error {
	p, err := t.start_()
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.proc = p
	t.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		t.readStdout(p.Stdout, h)
	}()
	go func() {
		defer wg.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := p.Stderr.Read(buf)
			if n > 0 {
				t.stderr.write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		<-p.Done()
		// Children of the server may still hold its pipes; they die with the group.
		wg.Wait()
		code := p.ExitCode()
		var err error
		if !t.isClosed() {
			err = fmt.Errorf("the server exited (code %d)", code)
		}
		close(t.ended)
		h.closed(err)
	}()
	return nil
}

// readStdout frames messages by newline. A line over MaxMessageBytes is dropped as it streams
// (never buffered whole) and reported.
func (t *stdioTransport) readStdout(r io.Reader, h handlers) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			complete := chunk[len(chunk)-1] == '\n'
			if !over {
				if len(line)+len(chunk) > MaxMessageBytes+1 {
					head := append(line, chunk...)
					over, line = true, nil
					h.errorf(&oversizeError{what: "MCP stdio message", limit: MaxMessageBytes, id: headID(head)})
				} else {
					line = append(line, chunk...)
				}
			}
			if complete {
				if !over {
					msg := bytes.TrimRight(line, "\r\n")
					if len(bytes.TrimSpace(msg)) > 0 {
						h.message(append([]byte(nil), msg...))
					}
				}
				line, over = line[:0], false
			}
		}
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if len(bytes.TrimSpace(line)) > 0 && !over {
				h.errorf(errors.New("MCP stdio server closed with an incomplete JSON-RPC message"))
			}
			return
		}
	}
}

func (t *stdioTransport) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

func (t *stdioTransport) send(ctx context.Context, msg []byte, _ json.RawMessage) error {
	t.mu.Lock()
	p, closed := t.proc, t.closed
	t.mu.Unlock()
	if p == nil || closed {
		return ErrClosed
	}
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := p.Stdin.Write(append(msg, '\n'))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%w: %v", ErrClosed, err)
		}
		return nil
	case <-ctx.Done():
		// A server that stopped reading its stdin: the write stays blocked until it exits.
		return ErrAborted
	case <-t.ended:
		return ErrClosed
	}
}

func (t *stdioTransport) setProtocolVersion(string) {}

func (t *stdioTransport) close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		<-t.ended
		return nil
	}
	t.closed = true
	p := t.proc
	t.mu.Unlock()
	if p == nil {
		return nil
	}
	p.Stop(stdinGrace, closeTimeout)
	<-t.ended
	return nil
}

// stderrTail returns the last bytes of the server's stderr.
func (t *stdioTransport) stderrTail() string { return t.stderr.String() }

// tail keeps the last maxStderrBytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= maxStderrBytes {
		t.buf = append(t.buf[:0], p[len(p)-maxStderrBytes:]...)
		return
	}
	if over := len(t.buf) + len(p) - maxStderrBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// oversizeError is an incoming message over MaxMessageBytes. id is the request it answers when
// its head names one: that request fails with this error instead of waiting for its timeout.
type oversizeError struct {
	what  string
	limit int
	id    json.RawMessage
}

func (e *oversizeError) Error() string {
	return fmt.Sprintf("%s exceeds %d bytes", e.what, e.limit)
}

// headIDRe finds a response's id near the start of a message (servers write "id" before a
// large "result").
var headIDRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")`)
}}

func headID(b []byte) json.RawMessage {
	if len(b) > 4096 {
		b = b[:4096]
	}
	if m := headIDRe.Get().FindSubmatch(b); m != nil {
		return json.RawMessage(append([]byte(nil), m[1]...))
	}
	return nil
}
