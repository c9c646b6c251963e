package scratch

import "testing"

// Get gives n elements: from a slice put back when it is large enough, and a new one when
// the one kept is too small. A sync.Pool may drop what it is given (a collection; a
// quarter of Puts under the race detector), so reuse is asked of 20 tries: all 20 dropped
// is a false failure of probability below 4⁻²⁰ ≈ 10⁻¹².
func TestGetReusesLargeEnough(t *testing.T) {
	var p Pool[float64]
	a := p.Get(1000)
	if len(a) != 1000 {
		t.Fatalf("len %d", len(a))
	}
	reused := false
	for range 20 {
		p.Put(a)
		b := p.Get(500)
		if len(b) != 500 {
			t.Fatalf("len %d", len(b))
		}
		if &b[0] == &a[0] {
			reused = true
			break
		}
	}
	if !reused {
		t.Fatal("an array put back was never handed out again")
	}
	p.Put(a)
	if c := p.Get(2000); len(c) != 2000 || &c[0] == &a[0] {
		t.Fatalf("len %d; the 1000-element array reused for 2000: %v", len(c), &c[0] == &a[0])
	}
}
