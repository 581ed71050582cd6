package stackgrow

import (
	"testing"
	"unsafe"
)

// depth recurses through n frames of about 512 bytes each.
//
//go:noinline
func depth(n int) byte {
	var pad [480]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return depth(n-1) + pad[n%len(pad)]
}

// stackAddr is the address of a variable in the caller's frame: it changes when the runtime
// moves the goroutine's stack to a larger one.
//
//go:noinline
func stackAddr(p *int) uintptr { return uintptr(unsafe.Pointer(p)) }

// moves reports whether calls through about used bytes of stack moved a fresh goroutine's
// stack, after Grow when grow is set.
func moves(grow func(), used int) bool {
	res := make(chan bool)
	go func() {
		var marker int
		if grow != nil {
			grow()
		}
		before := stackAddr(&marker)
		depth(used / 512)
		res <- stackAddr(&marker) != before
	}()
	return <-res
}

// TestGrowAvoidsLaterCopies: after Grow (GrowSmall), calls using up to three quarters of Size
// (SmallSize) do not move the stack again; without it they do (the test's own control).
func TestGrowAvoidsLaterCopies(t *testing.T) {
	for _, c := range []struct {
		name string
		grow func()
		size int
	}{{"Grow", Grow, Size}, {"GrowSmall", GrowSmall, SmallSize}} {
		used := c.size * 3 / 4
		if !moves(nil, used) {
			t.Fatalf("control: %d bytes of calls did not grow a fresh goroutine's stack", used)
		}
		if moves(c.grow, used) {
			t.Errorf("after %s, %d bytes of calls moved the stack again: it did not reach %d bytes", c.name, used, c.size)
		}
	}
}

// TestGrowIsOneStep: Grow moves a fresh goroutine's stack (it grew), and a second Grow does not.
func TestGrowIsOneStep(t *testing.T) {
	res := make(chan [2]bool)
	go func() {
		var marker int
		a := stackAddr(&marker)
		Grow()
		b := stackAddr(&marker)
		Grow()
		c := stackAddr(&marker)
		res <- [2]bool{a != b, b != c}
	}()
	r := <-res
	if !r[0] {
		t.Error("Grow did not grow a fresh goroutine's stack")
	}
	if r[1] {
		t.Error("a second Grow moved the stack again")
	}
}
