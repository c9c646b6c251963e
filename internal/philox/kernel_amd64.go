package philox

import "golang.org/x/sys/cpu"

// bestPath is the widest kernel this CPU runs: AVX-512 (F and DQ: the quadword
// conversions and ternary logic; F has the fused multiply-adds), else AVX2 with FMA3 (the
// transform's math.FMA), else pure Go. x/sys/cpu reports a feature
// only if the OS saves its registers, and honours GODEBUG=cpu.avx512f=off and the like.
func bestPath() int {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ:
		return pathAVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return pathAVX2
	}
	return pathGo
}
