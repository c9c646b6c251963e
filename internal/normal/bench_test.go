package normal

import "testing"

// BenchmarkFill is Fill's cost per normal (ns/op is per draw).
func BenchmarkFill(b *testing.B) {
	g := New(1, 2)
	dst := make([]float64, 4096)
	for b.Loop() {
		g.Fill(dst, 0, 1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(dst)), "ns/normal")
}
