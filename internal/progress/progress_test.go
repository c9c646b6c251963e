package progress

import (
	"strings"
	"testing"
	"time"
)

// The bar extrapolates the rate of the trials run here (resumed ones excluded), ends its
// line when the label changes or Done is called, and writes nothing when disabled.
func TestBar(t *testing.T) {
	var out strings.Builder
	now := time.Unix(0, 0)
	b := New(&out, true)
	b.now = func() time.Time { return now }
	b.Update("d2d/perfect", 50, 200) // 50 resumed from a checkpoint
	now = now.Add(10 * time.Second)
	b.Update("d2d/perfect", 60, 200) // 10 trials in 10 s: 140 left take 2:20
	now = now.Add(140 * time.Second)
	b.Update("d2d/perfect", 200, 200)
	b.Update("sglu/b=32", 0, 8)
	b.Done()
	want := "\rd2d/perfect  [#####...............]   50/200  ETA --:--" +
		"\rd2d/perfect  [######..............]   60/200  ETA 2:20" +
		"\rd2d/perfect  [####################]  200/200  done 2:30\n" +
		"\rsglu/b=32  [....................]  0/8  ETA --:--\n"
	if out.String() != want {
		t.Errorf("got  %q\nwant %q", out.String(), want)
	}
	var quiet strings.Builder
	q := New(&quiet, false)
	q.Update("x", 1, 2)
	q.Done()
	if quiet.Len() != 0 {
		t.Errorf("a disabled bar wrote %q", quiet.String())
	}
	if clock(3725*time.Second) != "1:02:05" {
		t.Errorf("clock(3725 s) = %s", clock(3725*time.Second))
	}
}
