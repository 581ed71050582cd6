package sandbox

import (
	"encoding/binary"
	"errors"
	"runtime"
	"sync"
)

// The seccomp filter handed to bwrap (--seccomp FD) in network "block" and "limited" modes.
// A network namespace does not isolate Unix-domain sockets bound in the filesystem: without
// the filter, a sandboxed "tmux run-shell" or a docker socket runs code outside the sandbox.
// It refuses, with EPERM:
//   - socket(AF_UNIX, ...) (unless the policy names sockets in network.allowUnixSockets);
//     socketpair stays allowed: an anonymous connected pair reaches nothing outside;
//   - io_uring_setup: io_uring can create sockets without passing through socket(2);
//   - every system call of another ABI (i386 or x32 on x86_64, arm32 on arm64), whose
//     numbers and socketcall multiplexer the filter does not decode.
//
// The program is a handful of classic BPF instructions assembled here once per process
// (no cgo, no library: the whole program is 12 instructions).

// Classic BPF opcodes and seccomp constants (linux/filter.h, linux/seccomp.h, linux/audit.h).
const (
	bpfLdWAbs  = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK    = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK    = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfRetK    = 0x06 // BPF_RET | BPF_K
	retAllow   = 0x7fff0000
	retErrno   = 0x00050000
	errnoEPERM = 1
	afUnix     = 1

	offNr   = 0  // seccomp_data.nr
	offArch = 4  // seccomp_data.arch
	offArg0 = 16 // seccomp_data.args[0], low 32 bits on little-endian machines

	x32Bit = 0x40000000 // x32 system calls have this bit set
)

// seccompArch is what the filter needs of an architecture (both are little-endian).
type seccompArch struct {
	audit    uint32 // AUDIT_ARCH_*
	socket   uint32 // socket(2); socketpair(2) is not filtered
	ioUring  uint32 // io_uring_setup(2)
	checkX32 bool
}

var seccompArches = map[string]seccompArch{
	"amd64": {audit: 0xc000003e, socket: 41, ioUring: 425, checkX32: true},
	"arm64": {audit: 0xc00000b7, socket: 198, ioUring: 425},
}

// seccompFD is the descriptor bwrap reads the filter from: the first of exec.Cmd.ExtraFiles.
const seccompFD = 3

// ErrSeccompUnsupported refuses a sandbox with a blocked or limited network on an
// architecture the filter does not know: host Unix sockets would stay reachable.
var ErrSeccompUnsupported = errors.New("pigo cannot build its seccomp filter on " + runtime.GOARCH +
	": refusing to sandbox without blocking host Unix sockets (set network.allowUnixSockets or network.mode \"allow-all\" to run anyway)")

type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// seccompProgram assembles the filter for arch; blockUnix false keeps only the ABI and
// io_uring rules.
func seccompProgram(a seccompArch, blockUnix bool) []byte {
	const deny, allow = "deny", "allow"
	type ins struct {
		code   uint16
		k      uint32
		jt, jf string // labels; "" = next instruction
		label  string
	}
	prog := []ins{
		{code: bpfLdWAbs, k: offArch},
		{code: bpfJeqK, k: a.audit, jf: deny},
		{code: bpfLdWAbs, k: offNr},
	}
	if a.checkX32 {
		prog = append(prog, ins{code: bpfJgeK, k: x32Bit, jt: deny})
	}
	prog = append(prog, ins{code: bpfJeqK, k: a.ioUring, jt: deny})
	if blockUnix {
		prog = append(prog,
			ins{code: bpfJeqK, k: a.socket, jf: allow},
			ins{code: bpfLdWAbs, k: offArg0},
			ins{code: bpfJeqK, k: afUnix, jt: deny},
		)
	}
	prog = append(prog,
		ins{code: bpfRetK, k: retAllow, label: allow},
		ins{code: bpfRetK, k: retErrno | errnoEPERM, label: deny},
	)
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	jump := func(i int, label string) uint8 {
		if label == "" {
			return 0
		}
		return uint8(at[label] - i - 1)
	}
	out := make([]byte, 0, 8*len(prog))
	for i, in := range prog {
		f := sockFilter{code: in.code, k: in.k}
		if in.code == bpfJeqK || in.code == bpfJgeK {
			f.jt, f.jf = jump(i, in.jt), jump(i, in.jf)
		}
		out = binary.LittleEndian.AppendUint16(out, f.code)
		out = append(out, f.jt, f.jf)
		out = binary.LittleEndian.AppendUint32(out, f.k)
	}
	return out
}

// seccompFilters holds the two programs of this machine, assembled once per process.
var seccompFilters = sync.OnceValues(func() (map[bool][]byte, error) {
	a, ok := seccompArches[runtime.GOARCH]
	if !ok {
		return nil, ErrSeccompUnsupported
	}
	return map[bool][]byte{true: seccompProgram(a, true), false: seccompProgram(a, false)}, nil
})

// SeccompFilter returns the BPF program (struct sock_filter array, native byte order) that
// bwrap installs for a plan, or nil when the plan installs none (network "allow-all" or no
// sandbox).
func (pl *Plan) SeccompFilter() ([]byte, error) {
	if !pl.seccomp {
		return nil, nil
	}
	m, err := seccompFilters()
	if err != nil {
		return nil, err
	}
	return m[len(pl.UnixSockets) == 0], nil
}
