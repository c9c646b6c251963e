package epsilon

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// `audit plan --trials 1000000 --delta 4.9e-324 --claim-epsilon 1` ran 7+ minutes: a δ that
// small makes the Gaussian alternative's μ tiny, and the search simulated games up to 10⁹
// trials. It now stops at MaxPlanTrials, saying so, in seconds and bounded memory.
func TestTrialsToDetectIsBounded(t *testing.T) {
	p := PowerSpec{Claim: 1, Factor: 2, Power: 0.8, Delta: 4.9e-324, Conf: 0.95}
	start := time.Now()
	_, _, err := TrialsToDetect(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "no trial count up to 1000000 suffices") {
		t.Fatalf("%v; want the search to stop at %d trials", err, MaxPlanTrials)
	}
	// the error proves the bound (the search stopped at MaxPlanTrials); how soon is a
	// benchmark's question, not this test's
	t.Logf("refused in %v", time.Since(start).Round(time.Millisecond))
}

// A done context ends the searches and the power estimates at once with its error, and
// the interrupted search is not remembered: the same plan asked again is answered.
func TestPowerSearchesWatchTheContext(t *testing.T) {
	p := PowerSpec{Claim: 1, Factor: 3, Power: 0.8, Delta: 0.05, Conf: 0.975}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, f := range map[string]func() error{
		"TrialsToDetect":           func() error { _, _, err := TrialsToDetect(ctx, p); return err },
		"SplitGamePower":           func() error { _, err := SplitGamePower(ctx, 100_000, p); return err },
		"SmallestDetectableFactor": func() error { _, err := SmallestDetectableFactor(ctx, 100_000, p); return err },
	} {
		// the context's error, not an answer, proves the search heeded it (no wall-clock
		// deadline: a loaded machine would miss one)
		if err := f(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v; want context.Canceled", name, err)
		}
	}
	if n, _, err := TrialsToDetect(context.Background(), p); err != nil || n < 4 {
		t.Errorf("after an interrupted search: %d, %v", n, err)
	}
}
