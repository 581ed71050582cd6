package toolkit

import (
	"bytes"
)

// CapBuffer keeps at most max bytes.
type CapBuffer struct {
	Buf *bytes.Buffer
	Max int
}

func (l *CapBuffer) Write(p []byte) (int, error) {
	if room := l.Max - l.Buf.Len(); room > 0 {
		l.Buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
