package logit

import "golang.org/x/sys/cpu"

// HasAsm reports whether Derivs runs its assembly: AVX2 and FMA, where math.Exp takes the
// FMA path the assembly repeats.
var HasAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA
