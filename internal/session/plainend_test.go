package session

import (
	"math/rand/v2"
	"testing"
)

// plainEndBytes is plainEnd a byte at a time: the reference.
func plainEndBytes(b []byte, i int) (int, bool) {
	high := false
	for ; i < len(b); i++ {
		c := strClass[b[i]]
		if c == 1 {
			break
		}
		high = high || c == 2
	}
	return i, high
}

// TestPlainEnd: the block-at-a-time and word-at-a-time scan stops where the byte loop does
// and reports non-ASCII bytes before that point exactly when it does: every byte value at
// every place of three blocks of sixteen (after plain ASCII and after non-ASCII bytes), and a
// million random strings weighted towards quotes, backslashes, control and non-ASCII bytes,
// from every start.
func TestPlainEnd(t *testing.T) {
	check := func(b []byte, i int) {
		t.Helper()
		wantEnd, wantHigh := plainEndBytes(b, i)
		end, high := plainEnd(b, i)
		if end != wantEnd || (high != 0) != wantHigh {
			t.Fatalf("plainEnd(%q, %d) = %d, %v; want %d, %v", b, i, end, high != 0, wantEnd, wantHigh)
		}
	}
	for _, fill := range []byte{'a', 0x80, 0xff, 0x7f, 0x20} {
		for n := 1; n <= 50; n++ {
			for at := 0; at < n; at++ {
				for c := 0; c < 256; c++ {
					b := make([]byte, n)
					for k := range b {
						b[k] = fill
					}
					b[at] = byte(c)
					check(b, 0)
					if n > 1 {
						check(b, 1)
					}
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := []byte{'"', '\\', 0, 0x1f, '\n', 0x80, 0xc3, 0xa9, 0xff, 0x20, 0x21, 0x5b, 0x5d, 0x5c ^ 0x80, '"' ^ 0x80}
	for range 1_000_000 / 4 {
		b := make([]byte, rng.IntN(90))
		for k := range b {
			if rng.IntN(6) == 0 {
				b[k] = pick[rng.IntN(len(pick))]
			} else {
				b[k] = byte(0x20 + rng.IntN(0x5f))
			}
		}
		for i := 0; i <= len(b) && i < 20; i++ {
			check(b, i)
		}
	}
}
