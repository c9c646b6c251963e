package ars

import "golang.org/x/sys/cpu"

// bestPath is the widest transform kernel this CPU runs: AVX-512 (F and DQ: the
// unsigned conversions, masks and ternary logic; F has the fused multiply-adds), else
// AVX2 with FMA3 (the series' fused multiply-adds), else pure Go. x/sys/cpu reports a
// feature only if the OS saves its registers, and honours GODEBUG=cpu.avx512f=off and
// the like.
func bestPath() int {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ:
		return pathAVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return pathAVX2
	}
	return pathGo
}

// bestARS is the widest words kernel this CPU runs: VAES on 512-bit registers (its
// 512-bit form needs AVX-512 F; x/sys/cpu reports VAES only where AVX-512 is), else
// AES-NI in AVX's encoding, else pure Go.
func bestARS() int {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512VAES:
		return arsVAES
	case cpu.X86.HasAES && cpu.X86.HasAVX:
		return arsAESNI
	}
	return arsGo
}
