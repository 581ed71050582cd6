package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

var httpClient = &http.Client{Timeout: 30 * time.Second}

// httpResult is one response of a sign-in endpoint: its status and body.
type httpResult struct {
	status int
	body   []byte
}

func (r httpResult) ok() bool { return r.status >= 200 && r.status < 300 }

// send makes one request to a sign-in endpoint; the body is JSON (a value) or a form
// (url.Values), the answer read whole (bounded).
func send(ctx context.Context, method, endpoint string, body any, headers map[string]string) (httpResult, error) {
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case url.Values:
		rd, ctype = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return httpResult{}, err
		}
		rd, ctype = bytes.NewReader(data), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, Endpoint(endpoint), rd)
	if err != nil {
		return httpResult{}, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return httpResult{}, errors.New("Login cancelled")
		}
		return httpResult{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return httpResult{}, err
	}
	return httpResult{resp.StatusCode, data}, nil
}

// pollStatus is one answer of a device-code poll.
type pollStatus int

const (
	pollPending pollStatus = iota
	pollSlowDown
	pollComplete
)

// pollDevice polls until the person approved the device code, the code expired or ctx ended,
// with RFC 8628's rules: the server's interval (5 s when it gives none, a negative interval; at
// least 1 s), 5 s more after each slow_down unless the server names a new interval.
func pollDevice(ctx context.Context, interval, expiresIn float64, waitFirst bool, poll func() (pollStatus, float64, error)) error {
	deadline := time.Now().Add(time.Duration(expiresIn * float64(time.Second)))
	if expiresIn <= 0 {
		deadline = time.Now().Add(15 * time.Minute)
	}
	if interval < 0 {
		interval = 5
	}
	wait := max(time.Second, time.Duration(interval*float64(time.Second)))
	slowDowns := 0
	sleep := func() error {
		left := time.Until(deadline)
		if left <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("Login cancelled")
		case <-time.After(min(wait, left)):
			return nil
		}
	}
	if waitFirst {
		if err := sleep(); err != nil {
			return err
		}
	}
	for time.Now().Before(deadline) {
		if ctx.Err() != nil {
			return errors.New("Login cancelled")
		}
		st, newInterval, err := poll()
		if err != nil {
			return err
		}
		switch st {
		case pollComplete:
			return nil
		case pollSlowDown:
			slowDowns++
			if newInterval > 0 {
				wait = max(time.Second, time.Duration(newInterval*float64(time.Second)))
			} else {
				wait += 5 * time.Second
			}
		}
		if err := sleep(); err != nil {
			return err
		}
	}
	if slowDowns > 0 {
		return errors.New("Device flow timed out after one or more slow_down responses. This is often caused by clock drift in WSL or VM environments. Please sync or restart the VM clock and try again.")
	}
	return errors.New("Device flow timed out")
}

// decodeObject decodes a JSON object answer (nil when the body is not one).
func decodeObject(b []byte) map[string]any {
	var v map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}

func str(v map[string]any, k string) string {
	s, _ := v[k].(string)
	return s
}

func num(v map[string]any, k string) (float64, bool) {
	switch n := v[k].(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case string:
		var f float64
		_, err := fmt.Sscan(strings.TrimSpace(n), &f)
		return f, err == nil
	}
	return 0, false
}
