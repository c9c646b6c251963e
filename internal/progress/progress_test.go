package progress

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/steps"
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

// A phase redraws its label and elapsed time until stopped, then ends its line; a
// disabled bar's phase writes nothing.
func TestPhase(t *testing.T) {
	old := phaseTick
	phaseTick = 5 * time.Millisecond
	defer func() { phaseTick = old }()
	var b strings.Builder
	var mu sync.Mutex
	bar := New(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return b.Write(p) }), true)
	stop := bar.Phase("checking d2d/perfect")
	time.Sleep(40 * time.Millisecond)
	stop()
	mu.Lock()
	got := b.String()
	mu.Unlock()
	if n := strings.Count(got, "\rchecking d2d/perfect  0:00"); n < 3 || !strings.HasSuffix(got, "\n") || strings.Count(got, "\n") != 1 {
		t.Errorf("%d redraws, output %q; want at least 3 and one line ended", n, got)
	}
	after := len(got)
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	if len(b.String()) != after {
		t.Errorf("the phase drew after it was stopped: %q", b.String())
	}
	mu.Unlock()
	var quiet strings.Builder
	New(&quiet, false).Phase("x")()
	if quiet.Len() != 0 {
		t.Errorf("a disabled bar's phase wrote %q", quiet.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A phase with steps shows elapsed time while its stage has no count, then a bar whose ETA
// extrapolates the steps since the count began; it draws at once a new stage, the first
// step and the end, the rest at most every stepTick; a shorter line blanks what the longer
// one left; reports after stop draw nothing; a disabled bar attaches no listener.
func TestSteps(t *testing.T) {
	old := phaseTick
	phaseTick = time.Hour // only the reports draw
	defer func() { phaseTick = old }()
	var out strings.Builder
	var mu sync.Mutex
	now := time.Unix(0, 0)
	bar := New(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) }), true)
	bar.now = func() time.Time { return now }
	ctx, stop := bar.Steps(context.Background(), "plan")
	report := steps.From(ctx)
	if report == nil {
		t.Fatal("an enabled bar's Steps attached no listener")
	}
	now = now.Add(3 * time.Second)
	report("bracketing", 0, 0)
	now = now.Add(4 * time.Second)
	report("settling", 10, 100) // 10 done before the count began (as resumed steps)
	now = now.Add(2 * time.Second)
	report("settling", 20, 100) // 10 steps in 2 s: 80 left take 16 s
	now = now.Add(10 * time.Millisecond)
	report("settling", 21, 100) // within stepTick of the last draw: not drawn
	now = now.Add(stepTick)
	report("settling", 20, 100) // out of order: ignored (else drawn: a stepTick has passed)
	report("settling", 30, 100)
	report("settling", 100, 100)
	stop()
	report("settling", 100, 100) // after stop
	want := "\rplan  0:00" +
		"\rplan: bracketing  0:03" +
		"\rplan: settling  [##..................]   10/100  ETA --:--" +
		"\rplan: settling  [####................]   20/100  ETA 0:16 " + // blanks the longer ETA
		"\rplan: settling  [######..............]   30/100  ETA 0:07" + // 20 steps in 2.11 s, 70 left
		"\rplan: settling  [####################]  100/100  done 0:02" +
		"\rplan: settling  [####################]  100/100  done 0:02\n" // stop's last draw
	mu.Lock()
	if got := out.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	mu.Unlock()
	var quiet strings.Builder
	qctx, qstop := New(&quiet, false).Steps(context.Background(), "x")
	steps.Report(qctx, "s", 1, 2)
	qstop()
	if steps.From(qctx) != nil || quiet.Len() != 0 {
		t.Errorf("a disabled bar attached a listener or wrote %q", quiet.String())
	}
}
