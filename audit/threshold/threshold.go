// Package threshold is the one family of threshold strategies: how the threshold of a
// score rule ("a member if the score is at least t") is chosen without invalidating the
// confidence bound it is reported with. Choosing the best threshold on the very scores
// that bound it would overstate ε; each strategy pays for the choice in its own way. Both
// instruments use it: the distinguishing game (audit/epsilon: Split, Bonferroni) and the
// one-run auditor (audit/onerun: Bonferroni, Fixed). It imports only internal/clip.
package threshold

import (
	"fmt"
	"strconv"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// A Strategy is how a threshold is chosen. The zero value is Split. Strategies are
// values: compare them with ==.
type Strategy struct {
	kind  kind
	fixed float64 // Fixed's threshold
}

type kind uint8

const (
	split kind = iota
	bonferroni
	fixed
)

// The strategies without a parameter. They are values of an unexported representation,
// so no caller can make another; Fixed makes the third kind.
var (
	// Split chooses the threshold on the first half of each sample and bounds its rates
	// on the second half, which it has not seen, at the full level. The samples must be
	// exchangeable (i.i.d. trials). The distinguishing game's default; the one-run
	// auditor does not offer it (jax_privacy draws its split from NumPy's generator).
	Split = Strategy{kind: split}
	// Bonferroni chooses the best threshold on all the samples with bounds that hold for
	// every threshold at once: the level is divided by the number of thresholds that
	// give distinct counts (jax_privacy.auditing.Bonferroni).
	Bonferroni = Strategy{kind: bonferroni}
)

// Fixed is the strategy of a threshold t fixed before the scores are seen: nothing is
// chosen, so its rates are bounded at the full level (jax_privacy.auditing.Explicit).
// Only the one-run auditor offers it.
func Fixed(t float64) Strategy { return Strategy{kind: fixed, fixed: t} }

// Threshold is Fixed's threshold, and whether s is Fixed.
func (s Strategy) Threshold() (float64, bool) { return s.fixed, s.kind == fixed }

// String names the strategy as Parse reads it ("split", "bonferroni"), a fixed one with
// its threshold.
func (s Strategy) String() string {
	switch s.kind {
	case bonferroni:
		return "bonferroni"
	case fixed:
		return "fixed threshold " + strconv.FormatFloat(s.fixed, 'g', -1, 64)
	}
	return "split"
}

// Parse reads "split" (or "") or "bonferroni", as a front end's flag gives them.
func Parse(s string) (Strategy, error) {
	switch s {
	case "split", "":
		return Split, nil
	case "bonferroni":
		return Bonferroni, nil
	}
	return Strategy{}, fmt.Errorf("unknown threshold strategy %s; want split or bonferroni", clip.Quote(s))
}
