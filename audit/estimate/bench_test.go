package estimate

import (
	"fmt"
	"testing"
)

// BenchmarkKNN is the k-NN Rényi estimate itself (two neighbour searches) on 10 000
// samples per side in 50 dimensions, the benchmark size.
func BenchmarkKNN(b *testing.B) {
	for _, c := range []struct{ n, d int }{{10000, 50}, {2000, 2}} {
		x := draw(c.n, c.d, 0.3, 1, 1, "a")
		y := draw(c.n, c.d, 0, 1, 1, "b")
		b.Run(fmt.Sprintf("%dx%d", c.n, c.d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := RenyiKNN(2, 5, x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGaussFit(b *testing.B) {
	for _, c := range []struct{ n, d int }{{1000, 10}, {300, 100}, {200, 784}} {
		x := draw(c.n, c.d, 0.3, 1, 1, "a")
		y := draw(c.n, c.d, 0, 1, 1, "b")
		b.Run(fmt.Sprintf("%dx%d", c.n, c.d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				RenyiGaussFit(2, x, y)
			}
		})
	}
}
