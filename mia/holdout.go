package mia

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/stat/distuv"
)

// MembershipLevels are the false-positive rates at which OneModelMembership reports the
// true-positive rate: 0.1 % and 1 %, the levels ML Privacy Meter and LiRA's paper report
// (a membership attack matters by what it finds at low FPR, not by its average).
var MembershipLevels = []float64{0.001, 0.01}

// Membership is what one model's scores say about the records it was asked to forget,
// measured against records it never trained on (spec §(g), "membership on one model").
// Positives are the forget-set records, negatives the held-out ones; a higher score means
// more member-like.
type Membership struct {
	Forget, Holdout []float64 // the scores, copied
	Conf            float64   // level of every interval

	// AUC is P(forget score > holdout score) + ½P(tie); 0.5 is chance. [AUCLower,
	// AUCUpper] is its interval at level Conf, by AUCMethod: DeLong's variance with a
	// normal quantile, or — where DeLong's variance is 0 (every forget record above
	// every held-out one, or every pair tied), which says nothing — the exact interval
	// of disjoint random pairs (see OneModelMembership).
	AUC, AUCLower, AUCUpper float64
	AUCStdErr               float64 // DeLong's standard error
	AUCMethod               string

	// Placement[i] is the fraction of held-out scores below forget record i's score
	// (ties half): its percentile among records never trained on, divided by 100. It is
	// DeLong's placement value, and the per-record vulnerability plot's y: a record far
	// above the holdout is one the model still treats as a member.
	Placement []float64

	// TPR holds the true-positive rate at each of MembershipLevels.
	TPR []TPRAt
	// ROC is the full curve of the rule "score ≥ t" (ROCCurve).
	ROC ROC
}

// TPRAt is the true-positive rate of the best threshold rule whose empirical
// false-positive rate on the holdout is at most FPR, with a Clopper–Pearson interval.
type TPRAt struct {
	FPR float64 // the level asked
	// Threshold is the rule's: a record is flagged when its score exceeds it. It is the
	// (⌊FPR·Holdout⌋+1)-th largest held-out score, so it depends on the holdout alone,
	// and −Inf (flag every record) only when the level admits every held-out record.
	Threshold   float64
	TP, Forget  int // forget records flagged, of all
	FP, Holdout int // held-out records flagged (at most ⌊FPR·Holdout⌋), of all
	// TPR = TP/Forget; [Lower, Upper] is the two-sided Clopper–Pearson interval at Conf.
	TPR, Lower, Upper float64
}

// AchievedFPR is the rule's empirical false-positive rate, FP/Holdout (at most FPR).
func (t TPRAt) AchievedFPR() float64 { return float64(t.FP) / float64(t.Holdout) }

// OneModelMembership measures the membership of a forget set in one model: forget are the
// model's scores on the deleted records, holdout its scores on records it never trained
// on, from the same population (higher = more member-like: a negated loss, or the
// logit-scaled confidence φ). An unlearned model that forgot the records scores them like
// the holdout: AUC near 0.5, TPR at FPR α near α.
//
// The AUC interval uses DeLong's variance (DeLong, DeLong & Clarke-Pearson 1988) rather
// than a bootstrap: it is deterministic, costs one sort instead of hundreds of
// replicates, and is the interval ML Privacy Meter's users compare with. It is
// asymptotic; where its variance is 0 — complete separation, or every score tied — it
// would claim certainty from any sample, so the interval is instead the two-sided
// Clopper–Pearson interval from min(forget, holdout) disjoint pairs, each a forget and a
// held-out record drawn without replacement by a permutation seeded with seed: the pairs
// are independent, so the interval [CP lower on wins, CP upper on wins + ties] is exact
// and conservative. seed enters nowhere else.
//
// TPR at each of MembershipLevels: the threshold is the lowest one whose false positives
// on the holdout stay within ⌊level·len(holdout)⌋; held-out records tied with it are
// never flagged (a tie cannot be split without flagging both sides), so the achieved FPR
// may be lower. With fewer than 1/level held-out records the budget is no false
// positive at all: the rule flags only the forget records above every held-out score
// (with 100 held-out records, TPR at 0.1 % is the TPR at FPR 0, as at 1 %). The
// threshold is a function of the holdout alone, so given it the flagged forget records
// are binomial, and the Clopper–Pearson interval on the TPR is exact.
//
// Each side needs at least two scores (DeLong's variance has n − 1 in its denominator),
// all finite; an error names the side and the index.
func OneModelMembership(forget, holdout []float64, conf float64, seed uint64) (*Membership, error) {
	for _, side := range []struct {
		name   string
		scores []float64
	}{{"forget", forget}, {"holdout", holdout}} {
		if len(side.scores) < 2 {
			return nil, fmt.Errorf("one-model membership: %d %s scores; want at least 2 (DeLong's variance)", len(side.scores), side.name)
		}
		for i, v := range side.scores {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("one-model membership: %s score %d is %v; want a finite score", side.name, i, v)
			}
		}
	}
	if !(conf > 0 && conf < 1) {
		return nil, fmt.Errorf("one-model membership: confidence %v; want it in (0, 1)", conf)
	}
	n, m := len(forget), len(holdout)
	res := &Membership{Forget: slices.Clone(forget), Holdout: slices.Clone(holdout), Conf: conf}
	sf, sh := slices.Sorted(slices.Values(forget)), slices.Sorted(slices.Values(holdout))

	// DeLong: placements of each forget score among the holdout and of each held-out
	// score among the forget set; the AUC is the mean of either.
	res.Placement = make([]float64, n)
	for i, x := range forget {
		below, upTo := sort.SearchFloat64s(sh, x), upperBound(sh, x)
		res.Placement[i] = (float64(below) + float64(upTo-below)/2) / float64(m)
	}
	v01 := make([]float64, m)
	for j, y := range holdout {
		below, upTo := sort.SearchFloat64s(sf, y), upperBound(sf, y)
		v01[j] = (float64(n-upTo) + float64(upTo-below)/2) / float64(n)
	}
	res.AUC = mean(res.Placement)
	variance := sampleVar(res.Placement, res.AUC)/float64(n) + sampleVar(v01, res.AUC)/float64(m)
	if variance > 0 {
		res.AUCStdErr = math.Sqrt(variance)
		z := distuv.UnitNormal.Quantile(1 - (1-conf)/2)
		res.AUCLower = math.Max(0, res.AUC-z*res.AUCStdErr)
		res.AUCUpper = math.Min(1, res.AUC+z*res.AUCStdErr)
		res.AUCMethod = "DeLong"
	} else {
		k := min(n, m)
		r := reference.Stream(seed, -1, "mia/holdout-pairs")
		pf, ph := r.Perm(n)[:k], r.Perm(m)[:k]
		wins, ties := 0, 0
		for i := range k {
			switch x, y := forget[pf[i]], holdout[ph[i]]; {
			case x > y:
				wins++
			case x == y:
				ties++
			}
		}
		a := 1 - conf
		res.AUCLower, res.AUCUpper = epsilon.CPLower(wins, k, a/2), epsilon.CPUpper(wins+ties, k, a/2)
		res.AUCMethod = fmt.Sprintf("Clopper–Pearson on %d disjoint random pairs (DeLong's variance is 0)", k)
	}

	desc := slices.Clone(sh)
	slices.Reverse(desc)
	for _, level := range MembershipLevels {
		res.TPR = append(res.TPR, tprAt(sf, desc, level, conf))
	}
	res.ROC = ROCCurve(forget, holdout)
	return res, nil
}

// TPRAt gives the true-positive rate at each FPR level, as OneModelMembership reports it
// at MembershipLevels: for other levels, or the vertices of the ROC on a grid of low
// rates (the scores are sorted once for all the levels).
func (ms *Membership) TPRAt(levels ...float64) []TPRAt {
	sf := slices.Sorted(slices.Values(ms.Forget))
	desc := slices.Sorted(slices.Values(ms.Holdout))
	slices.Reverse(desc)
	out := make([]TPRAt, len(levels))
	for i, level := range levels {
		out[i] = tprAt(sf, desc, level, ms.Conf)
	}
	return out
}

// tprAt is the rule "score > h" with h the (budget+1)-th largest held-out score: every
// lower threshold flags more than budget held-out records, and every higher one flags no
// more forget records. sf is ascending, desc descending.
func tprAt(sf, desc []float64, level, conf float64) TPRAt {
	n, m := len(sf), len(desc)
	budget := int(math.Floor(level*float64(m) + 1e-9)) // 0.01·100 is 1, not 0.999…
	t := TPRAt{FPR: level, Forget: n, Holdout: m, Threshold: math.Inf(-1)}
	if budget < m {
		t.Threshold = desc[budget]
	}
	t.TP = n - upperBound(sf, t.Threshold)
	for _, y := range desc {
		if y <= t.Threshold {
			break
		}
		t.FP++
	}
	t.TPR = float64(t.TP) / float64(n)
	t.Lower, t.Upper = epsilon.ClopperPearson(t.TP, n, conf)
	return t
}

// upperBound is the number of elements of the ascending s that are ≤ x.
func upperBound(s []float64, x float64) int {
	return sort.Search(len(s), func(i int) bool { return s[i] > x })
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func sampleVar(x []float64, mu float64) float64 {
	var ss float64
	for _, v := range x {
		ss += (v - mu) * (v - mu)
	}
	return ss / float64(len(x)-1)
}
