package epsilon

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestMemoisedPowerIsFresh: the shared simulation's powers and smallest factors are those
// of a fresh simulation, asked again (a memo hit) and after an interrupted ask, which must
// not leave its meaningless value in the memo.
func TestMemoisedPowerIsFresh(t *testing.T) {
	p := PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 1e-5, Conf: 0.975}
	const trials = 1202 // a count no other test asks about, so the memo starts empty
	mu, err := gdpMuFor(p.Factor*p.Claim, p.Delta)
	if err != nil {
		t.Fatal(err)
	}
	wantPw, wantSE := newPowerSim(trials, p).power(context.Background(), mu)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SplitGamePower(done, trials, p); err == nil {
		t.Fatal("an interrupted power returned no error")
	}
	if _, err := SmallestDetectableFactor(done, trials, p); err == nil {
		t.Fatal("an interrupted smallest factor returned no error")
	}
	for i := range 2 {
		got, err := SplitGamePower(context.Background(), trials, p)
		if err != nil {
			t.Fatal(err)
		}
		if got.Power != wantPw || got.StdErr != wantSE {
			t.Fatalf("ask %d: power %v ± %v; a fresh simulation gives %v ± %v", i, got.Power, got.StdErr, wantPw, wantSE)
		}
	}
	// the smallest factor's search, unmemoised, on a simulation of its own
	fresh := newPowerSim(trials, p)
	detects := func(f float64) bool {
		mu, err := gdpMuFor(f*p.Claim, p.Delta)
		if err != nil {
			t.Fatal(err)
		}
		pw, _ := fresh.power(context.Background(), mu)
		return pw >= p.Power
	}
	first, err := SmallestDetectableFactor(context.Background(), trials, p)
	if err != nil {
		t.Fatal(err)
	}
	again, err := SmallestDetectableFactor(context.Background(), trials, p)
	if err != nil || again != first {
		t.Fatalf("asked again: %v (%v); first %v", again, err, first)
	}
	// F is the least factor (to 1 %) that detects: F does, F/1.01 does not
	if !(first > 1 && first < math.Inf(1)) || !detects(first) || detects(first/1.01) {
		t.Fatalf("smallest factor %v: detects %v, at %v detects %v", first, detects(first), first/1.01, detects(first/1.01))
	}
}

// TestGamesBoundFromCPUpper: the games' sweeps read Clopper–Pearson bounds from the shared
// tables; the rules and bounds must be those of CPUpper itself.
func TestGamesBoundFromCPUpper(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, sizes := range [][2]int{{16, 16}, {16, 23}, {301, 301}, {301, 308}, {2000, 2000}, {2000, 2007}, {5000, 5000}} {
		n := sizes[0]
		pos, neg := make([]float64, n), make([]float64, sizes[1])
		for i := range pos {
			pos[i] = r.NormFloat64() + 0.8
		}
		for i := range neg {
			neg[i] = r.NormFloat64()
		}
		if n == 301 { // ties: scores on a grid
			for _, side := range [][]float64{pos, neg} {
				for i := range side {
					side[i] = math.Round(side[i]*4) / 4
				}
			}
		}
		for _, s := range []threshold.Strategy{threshold.Split, threshold.Bonferroni} {
			g := Game{Delta: 1e-5, Confidence: 0.97, Strategy: s}
			a := 1 - g.conf()
			var wantRule Rule
			var wantEps, wantMu float64
			mu := func(fpr, fnr float64) float64 {
				return distuv.UnitNormal.Quantile(1-fpr) - distuv.UnitNormal.Quantile(fnr)
			}
			if s == threshold.Split {
				np, nn := len(pos)/2, len(neg)/2
				var sel float64
				// the selection scores rules at SelectionLevel, whatever the game's confidence
				as := SelectionLevel(min(np, nn))
				wantRule, sel = bestRule(pos[:np], neg[:nn], func(c Counts) float64 { return LowerBound(c, g.Delta, as) })
				if fr, err := g.Family([]Statistic{{Pos: pos, Neg: neg}}); err != nil || fr.Selection[0] != sel {
					t.Errorf("n %d, %d: the selection half's bound %v (%v); with CPUpper %v", len(pos), len(neg), fr.Selection, err, sel)
				}
				wantEps = LowerBound(wantRule.Count(pos[np:], neg[nn:]), g.Delta, a)
				gr, _ := bestRule(pos[:np], neg[:nn], func(c Counts) float64 {
					return mu(CPUpper(c.FP, c.Neg, a/2), CPUpper(c.Pos-c.TP, c.Pos, a/2))
				})
				c := gr.Count(pos[np:], neg[nn:])
				wantMu = mu(CPUpper(c.FP, c.Neg, a/2), CPUpper(c.Pos-c.TP, c.Pos, a/2))
			} else {
				b := func(c Counts) (float64, float64) {
					return CPUpper(c.FP, c.Neg, a/(4*float64(c.Neg+1))), CPUpper(c.Pos-c.TP, c.Pos, a/(4*float64(c.Pos+1)))
				}
				wantRule, wantEps = bestRule(pos, neg, func(c Counts) float64 { fpr, fnr := b(c); return epsFromRates(fpr, fnr, g.Delta) })
				_, wantMu = bestRule(pos, neg, func(c Counts) float64 { return mu(b(c)) })
			}
			got, err := g.LowerBound(pos, neg)
			if err != nil {
				t.Fatal(err)
			}
			if got.Rule != wantRule || got.Epsilon != wantEps {
				t.Errorf("n %d, %d, %v: rule %+v, ε %v; with CPUpper %+v, %v", n, len(neg), s, got.Rule, got.Epsilon, wantRule, wantEps)
			}
			gdp, err := g.GDP(pos, neg)
			if err != nil {
				t.Fatal(err)
			}
			if gdp.Mu != wantMu {
				t.Errorf("n %d, %d, %v: GDP μ %v; with CPUpper %v", n, len(neg), s, gdp.Mu, wantMu)
			}
		}
	}
}

// TestReachesIsPowerAtLeast: the early-stopping answer is the full power's, for targets far
// from the power (decided early, either way) and at it (decided only at the end), on
// simulations whose memo is empty so the early path runs.
func TestReachesIsPowerAtLeast(t *testing.T) {
	p := PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 1e-5, Conf: 0.975}
	const trials = 3000
	checked := 0
	for _, f := range []float64{1.5, 2.5, 4, 8} {
		mu, err := gdpMuFor(f*p.Claim, p.Delta)
		if err != nil {
			t.Fatal(err)
		}
		pw, _ := newPowerSim(trials, p).power(context.Background(), mu)
		for _, target := range []float64{0.05, 0.5, 0.8, 0.95, pw, math.Nextafter(pw, 2), math.Nextafter(pw, -1)} {
			if !(target > 0 && target < 1) {
				continue
			}
			s := &sharedSim{powerSim: newPowerSim(trials, p)}
			if got, want := s.reaches(context.Background(), mu, target), pw >= target; got != want {
				t.Errorf("factor %v, target %v: reaches %v; the power %v says %v", f, target, got, pw, want)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("%d cases checked", checked)
	}
}

// An asker that waited on another's computation which was not kept (interrupted by the
// other's context) computes its own answer instead of taking the interruption.
func TestMemoDoesNotHandOnAnInterruption(t *testing.T) {
	var m memo[int, int]
	inside, release := make(chan struct{}), make(chan struct{})
	first := make(chan int)
	go func() {
		first <- m.get(1, func() (int, bool) { close(inside); <-release; return -1, false })
	}()
	<-inside
	second := make(chan int)
	go func() { second <- m.get(1, func() (int, bool) { return 7, true }) }()
	time.Sleep(10 * time.Millisecond) // the second asker waits on the first's computation
	close(release)
	if got := <-first; got != -1 {
		t.Errorf("the interrupted asker got %d, want its own -1", got)
	}
	if got := <-second; got != 7 {
		t.Errorf("the waiting asker got %d, want its own answer 7, not the interruption", got)
	}
}

// TestConcurrentAskersSimulateOnce: checks run side by side ask the same μ at once — the
// power (SplitGamePower) and whether it reaches a target (the smallest factor's search);
// they share one simulation of its replicates, not one each, and get the power alone
// would give. The power's target is reached only at its end, so reaches simulates every
// replicate when it asks first.
func TestConcurrentAskersSimulateOnce(t *testing.T) {
	p := PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 1e-5, Conf: 0.975}
	const trials = 4000 // a simulation of a tenth of a second: the askers overlap
	mu, err := gdpMuFor(p.Factor*p.Claim, p.Delta)
	if err != nil {
		t.Fatal(err)
	}
	wantPw, wantSE := newPowerSim(trials, p).power(context.Background(), mu)
	var simulated atomic.Int64
	alone := &sharedSim{powerSim: newPowerSim(trials, p)}
	alone.progress = func(int) { simulated.Add(1) }
	if !alone.reaches(context.Background(), mu, wantPw) || simulated.Load() != PowerReps {
		t.Fatalf("reaches alone simulated %d replicates; want all %d", simulated.Load(), PowerReps)
	}
	simulated.Store(0)
	s := &sharedSim{powerSim: newPowerSim(trials, p)}
	s.progress = func(int) { simulated.Add(1) }
	const askers = 6
	var wg sync.WaitGroup
	var bad atomic.Int64
	start := make(chan struct{})
	for i := range askers {
		wg.Go(func() {
			<-start // all at once
			if i%2 == 0 {
				if pw, se := s.power(context.Background(), mu); pw != wantPw || se != wantSE {
					bad.Add(1)
				}
			} else if !s.reaches(context.Background(), mu, wantPw) {
				bad.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if bad.Load() != 0 {
		t.Errorf("%d of %d askers got another answer than power %v ± %v", bad.Load(), askers, wantPw, wantSE)
	}
	if n := simulated.Load(); n != PowerReps {
		t.Errorf("%d askers at once simulated %d replicates; want %d, once", askers, n, PowerReps)
	}
}

// TestCountsSharedAcrossConfidences: two simulations of one size at two confidences (a
// check's game and its membership game) share their replicates' counts at a μ — each
// replicate counted once for both, at once or one after the other — and their powers are
// those each computes alone, unshared.
func TestCountsSharedAcrossConfidences(t *testing.T) {
	const trials = 2*countedMinSel + 6 // a size no other test simulates
	pa := PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 1e-5, Conf: 0.975}
	pb := pa
	pb.Conf = 1 - 0.05/3
	for k, mu := range []float64{0.9, 1.1} {
		alone := func(p PowerSpec) [2]float64 {
			s := newPowerSim(trials, p)
			s.draws = newDrawCache(math.NaN()) // a search's simulation: nothing shared
			pw, se := s.power(context.Background(), mu)
			return [2]float64{pw, se}
		}
		want := [2][2]float64{alone(pa), alone(pb)}
		if want[0] == want[1] {
			t.Fatalf("μ %v: the two confidences have the same power %v: the test cannot tell them apart", mu, want[0])
		}
		var got [2][2]float64
		run := func(i int, p PowerSpec) {
			pw, se := newPowerSim(trials, p).power(context.Background(), mu)
			got[i] = [2]float64{pw, se}
		}
		if k == 0 { // side by side
			var wg sync.WaitGroup
			wg.Go(func() { run(0, pa) })
			wg.Go(func() { run(1, pb) })
			wg.Wait()
		} else {
			run(0, pa)
			run(1, pb)
		}
		if got != want {
			t.Errorf("μ %v: shared powers %v, alone %v", mu, got, want)
		}
		if n := countedAt(trials/2, mu).counted.Load(); n != PowerReps {
			t.Errorf("μ %v: %d replicates counted for both simulations; want %d, once", mu, n, PowerReps)
		}
	}
	// another size at a μ counted above draws its own
	s := newPowerSim(trials+200, pa)
	s.draws = newDrawCache(math.NaN())
	wpw, wse := s.power(context.Background(), 1.1)
	if pw, se := newPowerSim(trials+200, pa).power(context.Background(), 1.1); pw != wpw || se != wse {
		t.Errorf("%d trials: shared power %v ± %v, alone %v ± %v", trials+200, pw, se, wpw, wse)
	}
}
