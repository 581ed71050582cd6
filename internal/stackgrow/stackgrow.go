// Package stackgrow grows a goroutine's stack in one step while the goroutine is shallow.
//
// A goroutine starts with a small stack that the runtime doubles whenever a call does not fit:
// it allocates the larger stack, copies the old one and walks every frame on it to adjust its
// pointers, reading each function's stack maps from the pclntab. Deep in a command (a
// configuration load, a schema walk) that walk covers dozens of frames, and in a fresh process
// the pclntab pages it reads are not mapped yet: `pigo tools` grew its main goroutine's stack
// from 8 to 16 and then 32 KiB there, and the Prepare goroutine's from 2 to 16 KiB, 3% of its
// CPU samples and ~50 page faults (docs/decisions/25-speed.md, D25.29). [Grow] called first
// thing on a goroutine makes the runtime grow the stack once, to [Size], with two or three
// frames to copy; the deep calls that follow then fit.
package stackgrow

// Size is the stack a goroutine has after [Grow]: what `pigo tools` and a short `pigo -p`
// session's main goroutine reach (a larger stack is still grown as before when needed).
const Size = 32 << 10

// frameSize is Grow's frame: with the caller's few frames and the runtime's guard it exceeds
// half of Size, so the runtime's doubling stops at Size, not before it.
const frameSize = Size - 8<<10

// Grow grows the calling goroutine's stack to at least Size in one copy, while it holds few
// frames. Its cost is the zeroing of its frame (the stack's pages a deep call would touch).
//
//go:noinline
func Grow() {
	var frame [frameSize]byte
	keep(&frame)
}

// SmallSize is the stack a goroutine has after [GrowSmall].
const SmallSize = 16 << 10

const smallFrameSize = SmallSize - 5<<10

// GrowSmall is [Grow] to SmallSize, for a goroutine whose calls need less than Size.
//
//go:noinline
func GrowSmall() {
	var frame [smallFrameSize]byte
	keepSmall(&frame)
}

// keep and keepSmall take the frame's address so that the compiler keeps the frame.
//
//go:noinline
func keep(*[frameSize]byte) {}

//go:noinline
func keepSmall(*[smallFrameSize]byte) {}
