package fexp

import "golang.org/x/sys/cpu"

// mathFuses reports whether math.Exp takes its FMA path: math decides it with
// internal/cpu (AVX and FMA), and x/sys/cpu reads the same CPUID bits, the OS's saving of
// the registers and GODEBUG's cpu.* switches (TestExpUnderGODEBUG runs the known values
// under each switch that turns the path off).
var mathFuses = cpu.X86.HasAVX && cpu.X86.HasFMA
