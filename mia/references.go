package mia

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ReferenceRatios are LiRA's per-record statistics of one target model against reference
// models the user trained, and the U-LiRA aggregate over the deleted records.
type ReferenceRatios struct {
	// Ratio[k] is record k's statistic, larger = more member-like. Online (Online[k]):
	// the log-likelihood ratio ln N(φ; μ_in, σ_in) − ln N(φ; μ_out, σ_out). Offline (fewer
	// than 2 IN references): ln Φ((φ − μ_out)/σ_out), the log of the paper's one-sided
	// statistic, as ML Privacy Meter scores it (≤ 0).
	Ratio  []float64
	Online []bool
	// Aggregate is the sum of Ratio over the deleted records (Deleted of them): the
	// one-number U-LiRA statistic of spec §(g), which carries the signal of every deleted
	// record at once where per-record tests each have little power.
	Aggregate float64
	Deleted   int
}

// LiRAWithReferences scores a target model by LiRA against the user's reference models:
// refs holds the reference models' scores (reference models × records, φ as the caller
// computes it — the stable logit-scaled confidence, or a negated loss), in marks the IN
// references of each record (same shape: in[i][k] says reference model i trained on
// record k; for U-LiRA, that it trained on k and then unlearned it), and target holds the
// target model's scores on the records. deleted marks the records the aggregate sums
// over; nil means every record (U-LiRA on the deleted records alone).
//
// Each record is tested online when it has at least 2 IN and 2 OUT references, offline
// otherwise; the centre is the median, as in LiRA's reference code, and the spread the
// per-record sample standard deviation (FitLiRA's fit). The online and offline values are
// on different scales, so the aggregate of a mixed set is not a likelihood ratio: it is a
// fixed function of the published model, which is what a rank test among reference
// models or a game between two samples needs, not a calibrated quantity.
//
// Errors: a mask whose shape differs from refs' (naming both shapes), a target of the
// wrong length, a record with fewer than 2 OUT references (naming the record), a NaN
// score.
func LiRAWithReferences(refs *mat.Dense, in [][]bool, target []float64, deleted []bool) (*ReferenceRatios, error) {
	fit, err := FitReferences(refs, in)
	if err != nil {
		return nil, err
	}
	return fit.Ratios(target, deleted)
}

// ReferenceFit is LiRA's per-record fit to the reference models (FitReferences): the IN
// and OUT centres and spreads of every record. Scoring many target models against one set
// of references fits once.
type ReferenceFit struct {
	muIn, sdIn, muOut, sdOut []float64
	online                   []bool
}

// FitReferences fits every record's IN and OUT Gaussians (median centre, sample spread)
// to the reference models' scores, with LiRAWithReferences' rules and refusals.
func FitReferences(refs *mat.Dense, in [][]bool) (*ReferenceFit, error) {
	m, n := refs.Dims()
	if len(in) != m || slicesLenDiffer(in, n) {
		return nil, fmt.Errorf("LiRA with references: mask is %s, scores are %d × %d (reference models × records); want the same shape", shapeOf(in), m, n)
	}
	f := &ReferenceFit{muIn: make([]float64, n), sdIn: make([]float64, n), muOut: make([]float64, n), sdOut: make([]float64, n), online: make([]bool, n)}
	bufIn, bufOut := make([]float64, 0, m), make([]float64, 0, m)
	for k := range n {
		bufIn, bufOut = bufIn[:0], bufOut[:0]
		for i := range m {
			v := refs.At(i, k)
			if math.IsNaN(v) {
				return nil, fmt.Errorf("LiRA with references: reference model %d's score of record %d is NaN", i, k)
			}
			if in[i][k] {
				bufIn = append(bufIn, v)
			} else {
				bufOut = append(bufOut, v)
			}
		}
		if len(bufOut) < 2 {
			return nil, fmt.Errorf("LiRA with references: record %d has %d OUT reference(s); want at least 2", k, len(bufOut))
		}
		f.muOut[k], f.sdOut[k] = fit(bufOut, Median, false)
		if len(bufIn) >= 2 {
			f.muIn[k], f.sdIn[k] = fit(bufIn, Median, false)
			f.online[k] = true
		}
	}
	return f, nil
}

// Ratios scores a target model's records against the fit: LiRAWithReferences' result.
func (f *ReferenceFit) Ratios(target []float64, deleted []bool) (*ReferenceRatios, error) {
	n := len(f.muOut)
	if len(target) != n {
		return nil, fmt.Errorf("LiRA with references: %d target scores for %d records", len(target), n)
	}
	if deleted != nil && len(deleted) != n {
		return nil, fmt.Errorf("LiRA with references: %d deleted flags for %d records", len(deleted), n)
	}
	for k, v := range target {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("LiRA with references: target score of record %d is NaN", k)
		}
	}
	res := &ReferenceRatios{Ratio: make([]float64, n), Online: slices.Clone(f.online)}
	for k := range n {
		if f.online[k] {
			res.Ratio[k] = logRatio(target[k], f.muIn[k], f.sdIn[k], f.muOut[k], f.sdOut[k])
		} else {
			res.Ratio[k] = logNormalCDF((target[k] - f.muOut[k]) / f.sdOut[k])
		}
		if deleted == nil || deleted[k] {
			res.Aggregate += res.Ratio[k]
			res.Deleted++
		}
	}
	return res, nil
}

// logRatio is ln N(φ; μ_in, σ_in) − ln N(φ; μ_out, σ_out): LiRA's online statistic.
func logRatio(phi, muIn, sdIn, muOut, sdOut float64) float64 {
	zi, zo := (phi-muIn)/sdIn, (phi-muOut)/sdOut
	return -0.5*zi*zi - math.Log(sdIn) + 0.5*zo*zo + math.Log(sdOut)
}

// logNormalCDF is ln Φ(z), accurate where Φ(z) underflows: for z < −30 the asymptotic
// series −z²/2 − ln(−z) − ½ln(2π) + ln(1 − 1/z² + 3/z⁴) (absolute error below 1e-7).
func logNormalCDF(z float64) float64 {
	if z > -30 {
		return math.Log(0.5 * math.Erfc(-z/math.Sqrt2))
	}
	z2 := z * z
	return -z2/2 - math.Log(-z) - 0.5*math.Log(2*math.Pi) + math.Log1p(-1/z2+3/(z2*z2))
}

func slicesLenDiffer(in [][]bool, n int) bool {
	for _, row := range in {
		if len(row) != n {
			return true
		}
	}
	return false
}

// shapeOf describes a mask's shape: "m × n", or its row lengths when they differ.
func shapeOf(in [][]bool) string {
	if len(in) == 0 {
		return "0 × 0"
	}
	if !slicesLenDiffer(in, len(in[0])) {
		return fmt.Sprintf("%d × %d", len(in), len(in[0]))
	}
	lens := make([]int, len(in))
	for i, row := range in {
		lens[i] = len(row)
	}
	return fmt.Sprintf("%d rows of lengths %v", len(in), lens)
}
