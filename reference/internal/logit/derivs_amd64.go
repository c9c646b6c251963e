package logit

import "golang.org/x/sys/cpu"

// HasAsm reports whether Derivs runs its assembly: AVX, AVX2 and FMA (GODEBUG=cpu.avx=off
// clears AVX but leaves AVX2 set, so HasAVX is required too). The assembly repeats
// fexp.Exp's steps, math.Exp's FMA path, which Deriv takes on every CPU.
var HasAsm = cpu.X86.HasAVX && cpu.X86.HasAVX2 && cpu.X86.HasFMA
