// Package headbuf keeps the head of what a child process writes to its stderr: a Go runtime's
// crash, a panic, bwrap's or a usage error starts with its reason, and what follows (goroutine
// stacks, further lines) is not worth holding in memory.
package headbuf

import (
	"strings"
	"sync"
)

// DefaultMax is how much a Buffer keeps when its Max is 0.
const DefaultMax = 4 << 10

// Buffer keeps the first Max bytes written to it (DefaultMax when 0) and discards the rest; it
// is safe for the exec package's copying goroutine and a reader at once.
type Buffer struct {
	Max int
	mu  sync.Mutex
	buf []byte
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	max := b.Max
	if max <= 0 {
		max = DefaultMax
	}
	if n := max - len(b.buf); n > 0 {
		b.buf = append(b.buf, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

// String is what was kept, as written.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// FirstLine is the first line that is not blank, trimmed ("" when none).
func (b *Buffer) FirstLine() string {
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
