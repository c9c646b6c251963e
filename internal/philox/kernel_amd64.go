package philox

import "golang.org/x/sys/cpu"

// bestPath is the widest kernel this CPU runs: AVX-512 (F and DQ: the quadword
// conversions and ternary logic), else AVX2, else pure Go. x/sys/cpu reports a feature
// only if the OS saves its registers, and honours GODEBUG=cpu.avx512f=off and the like.
func bestPath() int {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ:
		return pathAVX512
	case cpu.X86.HasAVX2:
		return pathAVX2
	}
	return pathGo
}
