package logit

import "golang.org/x/sys/cpu"

// HasAsm reports whether Derivs runs its assembly: AVX2 and FMA, and where math.Exp takes
// the FMA path the assembly repeats. math takes it on AVX and FMA as internal/cpu sees them;
// GODEBUG=cpu.avx=off clears AVX there and here but leaves AVX2 set, so HasAVX is required
// too (else Derivs would run FMA steps where math.Exp runs separate ones: other bits).
var HasAsm = cpu.X86.HasAVX && cpu.X86.HasAVX2 && cpu.X86.HasFMA
