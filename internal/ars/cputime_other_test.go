//go:build !linux

package ars

// threadCPU cannot be read here: the benchmarks report wall time only.
func threadCPU() (int64, bool) { return 0, false }

func lockThread() func() { return func() {} }
