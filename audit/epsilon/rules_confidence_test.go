package epsilon

import (
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
)

// A game handed a confidence of exactly 1 (what a split 1 − (1 − c)/k of the flag's
// 0.9999999999999999 rounds to) says that the split rounded and what to use instead,
// not "confidence 1" as if the user had typed it; other levels outside (0, 1) keep their
// message.
func TestGameSaysAConfidenceRoundedToOne(t *testing.T) {
	pos, neg := []float64{1, 2, 3, 4}, []float64{0, 1, 2, 3}
	_, err := Game{Delta: 1e-6, Confidence: 1 - (1-0.9999999999999999)/20}.LowerBound(pos, neg)
	if err == nil || !strings.Contains(err.Error(), "rounds to 1 in float64") || !strings.Contains(err.Error(), "0.999999999999") {
		t.Errorf("a split rounded to 1: %v", err)
	}
	if _, err := (Game{Delta: 1e-6, Confidence: 1.5}).LowerBound(pos, neg); err == nil || !strings.Contains(err.Error(), "confidence 1.5; want a level in (0, 1)") {
		t.Errorf("confidence 1.5: %v", err)
	}
}

// The game chooses its threshold: a fixed one (the one-run auditor's strategy) is refused
// by name, not played as another strategy.
func TestGameRefusesAFixedThreshold(t *testing.T) {
	pos, neg := []float64{1, 2, 3, 4}, []float64{0, 1, 2, 3}
	_, err := Game{Delta: 1e-6, Strategy: threshold.Fixed(2.5)}.LowerBound(pos, neg)
	if err == nil || !strings.Contains(err.Error(), "strategy fixed threshold 2.5; the game chooses its threshold") {
		t.Errorf("a fixed threshold: %v", err)
	}
}
