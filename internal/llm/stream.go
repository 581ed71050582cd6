package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/pigo-agent/pigo/internal/llm/sse"
)

// Request is one streamed request as a wire client builds it: the helper below sends it, turns
// a failed response into pi's error message and reads the stream, so each client holds only its
// request shape and its event mapping.
type Request struct {
	// Method defaults to POST.
	Method  string
	URL     string
	Headers []Header
	Body    []byte
	// HTTPError is the errorMessage for a non-2xx response (its status and body text).
	HTTPError func(status int, body string) string
	// HTTPErrorHeader, when set, is used instead of HTTPError for APIs whose error code is a
	// response header (Bedrock's x-amzn-errortype).
	HTTPErrorHeader func(status int, h http.Header, body string) string
}

// Open sends r. On a 2xx response it emits "start" and returns the body for the caller to read
// and close; otherwise it ends the stream on b with the provider's error text and returns the
// final message (a 401 is remembered, so a credential can be refreshed and the request sent
// once more).
func Open(ctx context.Context, b *Builder, o *Options, r Request) (io.ReadCloser, *Message) {
	if o != nil {
		b.SetLimits(o.Limits)
	}
	method := r.Method
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader
	var guarded *memoState
	if o != nil {
		guarded = o.Memo.guard(r.Body)
	}
	if guarded != nil {
		// A body written through a memo: the next one may be written into its buffer.
		body = &guardedBody{s: guarded, body: r.Body}
	} else if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.URL, body)
	if err != nil {
		return nil, b.Fail(ctx, err.Error())
	}
	if guarded != nil {
		req.ContentLength = int64(len(r.Body))
		req.GetBody = func() (io.ReadCloser, error) {
			return &guardedBody{s: guarded, body: r.Body}, nil
		}
	}
	for _, h := range r.Headers {
		req.Header.Set(h.Name, h.Value)
	}
	resp, err := Client(o).Do(req)
	if err != nil {
		return nil, b.Fail(ctx, RequestError(ctx, err))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		text := ReadBody(resp)
		b.status = resp.StatusCode
		if r.HTTPErrorHeader != nil {
			return nil, b.Fail(ctx, r.HTTPErrorHeader(resp.StatusCode, resp.Header, text))
		}
		return nil, b.Fail(ctx, r.HTTPError(resp.StatusCode, text))
	}
	b.Start()
	return resp.Body, nil
}

// Failure is an error whose text is the errorMessage a stream ends with. A reader's next
// function may return one too: Each passes it on as the stream's failure instead of pi's
// generic read-error text.
func Failure(text string) error { return failure(text) }

type failure string

func (f failure) Error() string { return string(f) }

// Each reads items with next and hands each to on, until the stream ends (nil), on returns an
// error (returned as the failure), the reply goes over a bound (ErrReplyTooLarge), or reading
// fails (pi's text for the failure; nil when ctx was cancelled, which the caller reports as an
// abort).
func Each[E any](ctx context.Context, b *Builder, next func() (E, error), on func(E) error) error {
	for {
		e, err := next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var f failure
			if errors.Is(err, sse.ErrTooLong) || errors.As(err, &f) {
				return err
			}
			return Failure(ReadError(ctx, err))
		}
		if err := on(e); err != nil {
			return err
		}
		if err := b.Exceeded(); err != nil {
			return err
		}
	}
}

// EachSSE is Each over a server-sent event stream.
func EachSSE(ctx context.Context, b *Builder, body io.Reader, on func(sse.Event) error) error {
	r := sse.NewReader(body)
	return Each(ctx, b, r.Next, on)
}

// EachSSEBorrowed is EachSSE with each event's data borrowed from the reader's buffer
// ([sse.Reader.Borrow]): on must copy whatever it keeps of it past its return.
func EachSSEBorrowed(ctx context.Context, b *Builder, body io.Reader, on func(sse.Event) error) error {
	r := sse.NewReader(body)
	r.Borrow = true
	return Each(ctx, b, r.Next, on)
}
