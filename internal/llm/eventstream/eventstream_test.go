package eventstream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var stream []byte
	stream = append(stream, Encode([]Header{{":event-type", "messageStart"}, {":message-type", "event"}}, []byte(`{"role":"assistant"}`))...)
	stream = append(stream, Encode(nil, nil)...)
	stream = append(stream, Encode([]Header{{"ü", strings.Repeat("v", 300)}}, []byte("x"))...)
	r := NewReader(bytes.NewReader(stream))
	m, err := r.Next()
	if err != nil || m.Headers[":event-type"] != "messageStart" || m.Headers[":message-type"] != "event" || string(m.Payload) != `{"role":"assistant"}` {
		t.Fatalf("%v %+v", err, m)
	}
	if m, err = r.Next(); err != nil || len(m.Headers) != 0 || len(m.Payload) != 0 {
		t.Fatalf("empty: %v %+v", err, m)
	}
	if m, err = r.Next(); err != nil || len(m.Headers["ü"]) != 300 || string(m.Payload) != "x" {
		t.Fatalf("third: %v %+v", err, m)
	}
	if _, err = r.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

// Every header type of the format decodes (the AWS test suite's int32_header shape and the
// others, built here by hand).
func TestHeaderTypes(t *testing.T) {
	var hb []byte
	add := func(name string, typ byte, v []byte) {
		hb = append(hb, byte(len(name)))
		hb = append(hb, name...)
		hb = append(hb, typ)
		hb = append(hb, v...)
	}
	add("t", 0, nil)
	add("f", 1, nil)
	add("b", 2, []byte{0xff})
	add("s", 3, []byte{0x01, 0x00})
	add("i", 4, binary.BigEndian.AppendUint32(nil, 40972))
	add("l", 5, binary.BigEndian.AppendUint64(nil, 1<<40))
	add("by", 6, append([]byte{0, 2}, 'h', 'i'))
	add("ts", 8, binary.BigEndian.AppendUint64(nil, 1700000000000))
	add("u", 9, bytes.Repeat([]byte{'u'}, 16))
	msg := frame(hb, []byte("{}"))
	m, err := NewReader(bytes.NewReader(msg)).Next()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"t": "true", "f": "false", "b": "-1", "s": "256", "i": "40972", "l": "1099511627776", "by": "hi", "ts": "1700000000000", "u": strings.Repeat("u", 16)}
	for k, v := range want {
		if m.Headers[k] != v {
			t.Errorf("%s: %q, want %q", k, m.Headers[k], v)
		}
	}
}

func frame(hb, payload []byte) []byte {
	total := 12 + len(hb) + len(payload) + 4
	out := binary.BigEndian.AppendUint32(nil, uint32(total))
	out = binary.BigEndian.AppendUint32(out, uint32(len(hb)))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
	out = append(append(out, hb...), payload...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}

func TestCorrupt(t *testing.T) {
	good := Encode([]Header{{":message-type", "event"}}, []byte(`{"a":1}`))
	flip := func(i int) []byte {
		b := append([]byte(nil), good...)
		b[i] ^= 1
		return b
	}
	huge := binary.BigEndian.AppendUint32(nil, MaxMessage+1)
	huge = binary.BigEndian.AppendUint32(huge, 0)
	huge = binary.BigEndian.AppendUint32(huge, crc32.ChecksumIEEE(huge))
	badHeaders := binary.BigEndian.AppendUint32(nil, 20)
	badHeaders = binary.BigEndian.AppendUint32(badHeaders, 9)
	badHeaders = binary.BigEndian.AppendUint32(badHeaders, crc32.ChecksumIEEE(badHeaders))
	for name, tc := range map[string]struct {
		in   []byte
		want string
	}{
		"prelude crc":    {flip(2), "prelude CRC"},
		"message crc":    {flip(len(good) - 6), "message CRC"},
		"too long":       {huge, "outside"},
		"headers length": {badHeaders, "headers length"},
		"bad header":     {frame([]byte{3, 'a', 'b', 'c', 42}, nil), "unknown type 42"},
		"short header":   {frame([]byte{3, 'a', 'b', 'c', 7, 0, 9, 'x'}, nil), "truncated value"},
	} {
		_, err := NewReader(bytes.NewReader(tc.in)).Next()
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A stream cut inside a message is an unexpected EOF, not a clean end.
	for _, n := range []int{3, 12, len(good) - 1} {
		if _, err := NewReader(bytes.NewReader(good[:n])).Next(); err != io.ErrUnexpectedEOF {
			t.Errorf("cut at %d: %v", n, err)
		}
	}
}

func FuzzReader(f *testing.F) {
	f.Add(Encode([]Header{{":event-type", "metadata"}}, []byte(`{}`)))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(bytes.NewReader(b))
		for range 100 {
			if _, err := r.Next(); err != nil {
				return
			}
		}
	})
}

func BenchmarkReader(b *testing.B) {
	var stream []byte
	for range 1000 {
		stream = append(stream, Encode([]Header{{":event-type", "contentBlockDelta"}, {":content-type", "application/json"}, {":message-type", "event"}},
			[]byte(`{"contentBlockIndex":0,"delta":{"text":"hello world "},"p":"abcdefghij"}`))...)
	}
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		r := NewReader(bytes.NewReader(stream))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}
