package llm

import (
	"context"
	"errors"
	"io"
	"net"
	"time"
)

// bodyConn is a connection of the providers' clients (Client). net/http sends a request body
// of known length as io.Copy from an io.LimitedReader, which hides the body's WriteTo: over
// plain HTTP the connection's ReadFrom then copied it through a 32 KiB buffer, a write call a
// piece (1,238 of them and a 40 MB copy for the 64 MB session's first body, D25.33). A body
// written through a memo (guardedBody, which is its request's Body itself: see Close) whose
// remaining length is within the limit is written to the socket from its own bytes, in
// pieces of 1 MiB (WriteTo); anything else goes to the connection's own ReadFrom (sendfile
// and splice stay). Over TLS nothing changes: the TLS connection wraps this one and writes
// records.
type bodyConn struct{ net.Conn }

func (c *bodyConn) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		switch b := lr.R.(type) {
		case *guardedBody:
			if int64(len(b.body)-b.off) <= lr.N {
				n, err := b.WriteTo(c.Conn)
				lr.N -= n
				return n, err
			}
		}
	}
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite is the connection's own, when it has one (net/http uses it for a switched
// protocol's body).
func (c *bodyConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// bodyDialer is http.DefaultTransport's dialer, its connections wrapped in bodyConn.
var bodyDialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}

func dialBodyConn(ctx context.Context, network, addr string) (net.Conn, error) {
	if c, ok, err := takeEarly(ctx, network, addr); ok {
		if err != nil {
			return nil, err
		}
		return &bodyConn{c}, nil
	}
	c, err := bodyDialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &bodyConn{c}, nil
}
