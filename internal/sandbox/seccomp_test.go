package sandbox

import (
	"encoding/binary"
	"testing"
)

// runBPF interprets the few classic BPF instructions the filter uses over a seccomp_data.
func runBPF(t *testing.T, prog []byte, arch, nr, arg0 uint32) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], nr)
	binary.LittleEndian.PutUint32(data[4:], arch)
	binary.LittleEndian.PutUint32(data[16:], arg0)
	var acc uint32
	for pc := 0; pc*8 < len(prog); pc++ {
		in := prog[pc*8:]
		code, jt, jf, k := binary.LittleEndian.Uint16(in), in[2], in[3], binary.LittleEndian.Uint32(in[4:])
		switch code {
		case bpfLdWAbs:
			acc = binary.LittleEndian.Uint32(data[k:])
		case bpfJeqK, bpfJgeK:
			if code == bpfJeqK && acc == k || code == bpfJgeK && acc >= k {
				pc += int(jt)
			} else {
				pc += int(jf)
			}
		case bpfRetK:
			return k
		default:
			t.Fatalf("unknown opcode %#x at %d", code, pc)
		}
	}
	t.Fatal("fell off the end of the program")
	return 0
}

// TestSeccompProgram checks the filter's decisions for both architectures, arm64 included
// (where no test can run it for real): AF_UNIX sockets, io_uring and foreign ABIs refused,
// everything else allowed; with allowUnixSockets only the ABI and io_uring rules stay.
func TestSeccompProgram(t *testing.T) {
	const eperm = retErrno | errnoEPERM
	const afInet = 2
	for name, a := range seccompArches {
		block, open := seccompProgram(a, true), seccompProgram(a, false)
		cases := []struct {
			prog           []byte
			arch, nr, arg0 uint32
			want           uint32
			what           string
		}{
			{block, a.audit, a.socket, afUnix, eperm, "socket(AF_UNIX)"},
			{block, a.audit, a.socket, afInet, retAllow, "socket(AF_INET)"},
			{block, a.audit, a.socket + 1, afUnix, retAllow, "another call with 1 as its first argument"},
			{block, a.audit, a.ioUring, 0, eperm, "io_uring_setup"},
			{block, a.audit, 0, 0, retAllow, "read"},
			{block, 0x40000003, 0, 0, eperm, "a foreign ABI"},
			{open, a.audit, a.socket, afUnix, retAllow, "socket(AF_UNIX) with allowUnixSockets"},
			{open, a.audit, a.ioUring, 0, eperm, "io_uring_setup with allowUnixSockets"},
		}
		if a.checkX32 {
			cases = append(cases, struct {
				prog           []byte
				arch, nr, arg0 uint32
				want           uint32
				what           string
			}{block, a.audit, x32Bit + a.socket, afUnix, eperm, "x32 socket"})
		}
		for _, c := range cases {
			if got := runBPF(t, c.prog, c.arch, c.nr, c.arg0); got != c.want {
				t.Errorf("%s: %s → %#x, want %#x", name, c.what, got, c.want)
			}
		}
	}
}
