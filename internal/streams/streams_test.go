package streams

import "testing"

// The same triple gives the same numbers and any change of seed, trial or purpose other
// numbers; the first draw of one triple is pinned, as every report's bits rest on it.
// Planted bug caught: the trial left out of the digest (trials 0 and 1 then agree).
func TestSource(t *testing.T) {
	a, b := Source(1, 2, "x"), Source(1, 2, "x")
	for range 4 {
		if a.Uint64() != b.Uint64() {
			t.Fatal("one triple gave two streams")
		}
	}
	first := Source(1, 2, "x").Uint64()
	for _, s := range []uint64{Source(2, 2, "x").Uint64(), Source(1, 1, "x").Uint64(), Source(1, 2, "y").Uint64()} {
		if s == first {
			t.Errorf("another triple began with the same draw %d", s)
		}
	}
	if got := Source(0, 0, "").Uint64(); got != pinned {
		t.Errorf("Source(0, 0, \"\") began with %d; pinned %d", got, pinned)
	}
}

// pinned is the first draw of Source(0, 0, ""), computed by reference.Streams before the
// derivation moved here.
const pinned uint64 = 15688599449927730305
