// Package fexp computes e^x and x^y with the same bits on every CPU: the bits Go's
// math.Exp and math.Pow give on an amd64 CPU with FMA, where the project's pinned results
// were written.
//
// math.Exp on amd64 is assembly (exp_amd64.s) with two paths, chosen at start-up by
// whether the CPU has AVX and FMA: one fuses its multiply-adds and one rounds each
// product, and their results differ in the last bit for some arguments. math.Pow calls
// math.Exp for a fractional exponent. So the same audit on an amd64 machine without FMA
// (an older CPU, or a virtual machine that hides it: QEMU's default CPU model does, and
// GODEBUG=cpu.fma=off shows it on any machine) gave reports that differed in their last
// digits, in every subject of the demo, from the same audit elsewhere. Exp and Pow are
// the FMA path on every CPU:
//
//	y := fexp.Exp(x)    // == math.Exp(x) bit for bit where math.Exp takes its FMA path
//	z := fexp.Pow(x, y) // == math.Pow(x, y) there
//
// Where math.Exp fuses they are math.Exp and math.Pow themselves (no cost); elsewhere
// they compute the FMA path in Go, with math.FMA for the fused steps (exact in software
// without FMA: slower there, never different). The toolkit calls them wherever it needs
// e^x or x^y.
//
// What is left: functions that call math.Exp inside the standard library or gonum
// (math.Erf and Erfc, gonum's Beta and Gamma quantiles) still follow the CPU. On this
// project's pinned corpus (bench/pinned) run under GODEBUG=cpu.fma=off, every report is
// byte-identical to the FMA machine's but two, each in the last digit of one
// Clopper–Pearson interval (gonum's Beta quantile).
//
// TestMatchesMathExp and TestPowMatchesMathPow hold the Go path to math.Exp and math.Pow
// where those fuse; TestKnownValues holds Exp and Pow to values they gave there, on any
// machine (it passes on arm64 under qemu-aarch64, whose math.Exp is another algorithm),
// and TestExpUnderGODEBUG runs it under each GODEBUG switch that turns math's FMA path
// off.
package fexp
