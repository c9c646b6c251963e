// Package ensemble advances many models of one configuration in lockstep: k logistic
// models whose parameters are the columns of one d × k matrix Θ, each step one pass over
// the data for all k.
//
// A trial of an SGLU or D2D audit is memory-bound: one full-batch gradient reads the whole
// matrix (70 MB at the SGLU paper's 11 264 × 784) for 4·n·d flops, 35 MFLOP, so a core
// spends its time waiting for memory. Trials of one configuration differ only in their
// noise, so their gradients share X:
//
//	G = (1/m) Xᵀ R + λΘ,  R_it = −y_i σ(−y_i (XΘ)_it),
//
// two matrix–matrix products instead of 2k matrix–vector ones. LogisticGradient computes
// them with a blocked kernel: rows of X in blocks of 4 (of 6 for the assembly's panels,
// which then read a panel's parameters and gradients from cache once for six rows),
// models in panels of 8 kept in registers (then one half panel of 4, then the last k mod 4
// one at a time), 32 models' parameters and gradients held in L2 while the rows pass, each
// row block's XΘ turned into R and added into G before the next is read. The
// micro-kernels are AVX2 and FMA assembly on amd64 CPUs that have them (HasAsm), else the
// same loops in Go; both sum in the same order with the same fused operations, so they
// agree bit for bit, and the default build stays pure Go, static and cgo-free (the
// assembly is Go's own). Where the CPU also has AVX-512 (HasAVX512), models go first in
// blocks of 16 (32 in float32) against 12 rows, 24 of its 32 registers: a row of Θ or G
// is read from cache once for twelve rows and a row of X once for 16 models — the same
// sums in the same order, so the same bits. There every row block (12, or 8 or 4 at a
// batch's end) goes through AVX-512 kernels — the wide blocks, then one narrow panel of one
// 512-bit register and one half panel of a 256-bit one — and the rows go in chunks (up to
// 512 KB of X and its buffered products: a float32 mini-batch of 128 is one): a block of models takes the chunk's
// products into a buffer, then adds the whole chunk into G with G's rows held in registers
// while the chunk's rows pass (accRows), starting from λΘ in the first chunk, so G is read
// and written once a chunk, not once every twelve rows, and a call makes no pass of its own
// over Θ and G (pass512). R's logistic derivatives are computed eight at a time too, in
// float64 (reference/internal/logit's operations: lane by lane those math.Exp performs on
// amd64, so the bits the Go code gets from math.Exp). Together these took a float64
// trial-epoch at k = 32 from 1.7 to about 1.25 times the FLOP limit.
//
// Against one model at a time the results differ only by rounding: each gradient is the
// same sums in another order, within the bound Higham's γ_n gives (the tests derive it
// per coordinate and hold the kernel to it). A model's result does not depend on where it
// sits among the k, nor on k: in a panel, a half panel or at the edge it is the same sums
// in the same order, so trials run in lockstep give the bits they give alone.
//
// At a batch of 64 rows or more, a group of models is first copied out of a wider Θ (and
// its G back): rows of Θ a power of two apart in memory (k = 128) would otherwise share a
// few of the L2 cache's sets and come from L3 for every row block.
//
// LogisticGradientOne is the one-model path, for a run without lockstep partners (sglu's
// Model): four rows at a time, their margins in sixteen lanes over the features, their
// derivatives, and their terms added into g while the rows are in L1, so each row comes
// from memory once. Its bits are not LogisticGradient's at k = 1 (the margins sum in
// another order), but they are the same on every path, within RoundingBound of the
// reference. NoisyStep is an SGLU ensemble's update after its gradients
// (θ + (z − η·g) and each run's squared norm, the scalar loop's bits on every path, in
// 8 × 8 tiles with AVX-512, the runs' noise transposed in registers); NoisyStep32 reads
// float32 gradients and writes the float32 copy of the iterates in the same pass, so a
// float32 ensemble's step needs no conversion pass of its own.
//
// LogisticHVP makes the same pass for Hessian–vector products (Newton-type steps and
// curvature checks). LogisticGradient32 and LogisticHVP32 are the float32 versions:
// panels of 16, half the bytes and twice the flops an instruction, within RoundingBound32
// of float64 — for measuring what precision changes, not for certificates. The float32
// gradient's derivatives are float32 too (logisticDeriv32: its own exp, 16 lanes a 512-bit
// register, 8 with AVX2, one at a time in Go, the same bits on every path), where the
// float64 ones took eight lanes a register and a float64 division.
//
// PeakFLOPS and StreamSeconds measure the two ceilings the benchmarks state their times
// against: this core's FMA peak (4·n·d flops a trial-epoch at that rate is the FLOP limit)
// and one streaming read of the data.
package ensemble

//go:generate go run -C asm . -out ../kernel_amd64.s -stubs ../kernel_amd64_stubs.go -pkg ensemble
