package mia

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/par"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// A Trainer learns a model on a dataset, taking its randomness from r.
type Trainer func(ctx context.Context, ds *reference.Dataset, r *rand.Rand) ([]float64, error)

// Shadows are models trained by the same recipe on random halves of a dataset.
type Shadows struct {
	Models *mat.Dense // one model per row
	In     [][]bool   // In[i][k]: example k was in shadow i's training set
}

// TrainShadows trains m shadow models. As in LiRA's reference code, membership is
// balanced: every example is in exactly ⌊m/2⌋ of the shadows (chosen independently per
// example), so each shadow trains on about half the data. Shadows train in parallel on
// the given number of workers (0: one per core); shadow i draws from the stream
// (seed, i, "mia/shadow"), so the result does not depend on the worker count.
func TrainShadows(ctx context.Context, train Trainer, ds *reference.Dataset, m int, seed uint64, workers int) (*Shadows, error) {
	if m < 2 {
		return nil, fmt.Errorf("train shadows: %d shadows; want at least 2", m)
	}
	n := ds.Len()
	in := make([][]bool, m)
	for i := range in {
		in[i] = make([]bool, n)
	}
	r := reference.Stream(seed, -1, "mia/membership")
	for k := range n {
		for _, i := range r.Perm(m)[:m/2] {
			in[i][k] = true
		}
	}
	models := make([][]float64, m)
	err := par.Do(ctx, m, workers, func(i int) error {
		var ids []int64
		for k := range n {
			if in[i][k] {
				ids = append(ids, ds.ID(k))
			}
		}
		sub, err := ds.Subset(ids)
		if err != nil {
			return err
		}
		theta, err := train(ctx, sub, reference.Stream(seed, i, "mia/shadow"))
		if err != nil {
			return fmt.Errorf("shadow %d: %w", i, err)
		}
		models[i] = theta
		return nil
	})
	if err != nil {
		return nil, err
	}
	d := len(models[0])
	out := mat.NewDense(m, d, nil)
	for i, th := range models {
		if len(th) != d {
			return nil, fmt.Errorf("train shadows: shadow %d has %d parameters, shadow 0 has %d", i, len(th), d)
		}
		out.SetRow(i, th)
	}
	return &Shadows{Models: out, In: in}, nil
}

// Center says how LiRA estimates the centre of a score distribution.
type Center int

const (
	// Mean is the paper's Gaussian fit.
	Mean Center = iota
	// Median is what LiRA's reference code uses (labelled as that in reports).
	Median
)

// LiRAOptions select the LiRA variant.
type LiRAOptions struct {
	// Offline uses only OUT shadows: the statistic is the one-sided p-value
	// Φ((φ − μ_out)/σ_out) of the paper (large = member). Online compares the IN and OUT
	// Gaussian likelihoods.
	Offline bool
	// FixedVariance replaces the per-example standard deviations by one global one, as the
	// reference implementation's fixed-variance variant does (labelled as that).
	FixedVariance bool
	Center        Center
}

// LiRA is the per-example Gaussian likelihood-ratio membership test of Carlini et al.
// (S&P 2022), fitted to shadow-model scores.
type LiRA struct {
	opt                      LiRAOptions
	muIn, sdIn, muOut, sdOut []float64
}

// minSD keeps a fitted standard deviation away from 0 when every shadow scores an example
// alike (LiRA's code adds a small constant for the same reason).
const minSD = 1e-6

// FitLiRA fits, for every example k, Gaussians to its scores under the shadows that
// trained on it (IN) and those that did not (OUT). scores is shadows × examples.
func FitLiRA(scores *mat.Dense, in [][]bool, opt LiRAOptions) (*LiRA, error) {
	m, n := scores.Dims()
	if len(in) != m {
		return nil, fmt.Errorf("fit LiRA: %d score rows, %d membership rows", m, len(in))
	}
	l := &LiRA{opt: opt, muIn: make([]float64, n), sdIn: make([]float64, n), muOut: make([]float64, n), sdOut: make([]float64, n)}
	bufIn, bufOut := make([]float64, 0, m), make([]float64, 0, m)
	for k := range n {
		bufIn, bufOut = bufIn[:0], bufOut[:0]
		for i := range m {
			if in[i][k] {
				bufIn = append(bufIn, scores.At(i, k))
			} else {
				bufOut = append(bufOut, scores.At(i, k))
			}
		}
		if len(bufOut) < 2 || !opt.Offline && len(bufIn) < 2 {
			return nil, fmt.Errorf("fit LiRA: example %d has %d IN and %d OUT shadow scores; want at least 2 of each kind used", k, len(bufIn), len(bufOut))
		}
		l.muOut[k], l.sdOut[k] = fit(bufOut, opt.Center)
		if !opt.Offline {
			l.muIn[k], l.sdIn[k] = fit(bufIn, opt.Center)
		}
	}
	if opt.FixedVariance {
		g := globalSD(l.sdIn, l.sdOut, opt.Offline)
		for k := range n {
			l.sdIn[k], l.sdOut[k] = g, g
		}
	}
	return l, nil
}

// fit is the centre and standard deviation of a sample (sorting it in place for the
// median).
func fit(x []float64, c Center) (mu, sd float64) {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	sd = math.Max(minSD, math.Sqrt(ss/float64(len(x)-1)))
	if c == Median {
		slices.Sort(x)
		if n := len(x); n%2 == 1 {
			return x[n/2], sd
		} else {
			return (x[n/2-1] + x[n/2]) / 2, sd
		}
	}
	return mean, sd
}

func globalSD(in, out []float64, offline bool) float64 {
	var s float64
	var n int
	for _, v := range out {
		s += v * v
		n++
	}
	if !offline {
		for _, v := range in {
			s += v * v
			n++
		}
	}
	return math.Max(minSD, math.Sqrt(s/float64(n)))
}

// Statistic sets dst[k] to the membership statistic of example k given its score under a
// target model (larger = more likely a member): ln N(φ; μ_in, σ_in) − ln N(φ; μ_out, σ_out)
// online, Φ((φ − μ_out)/σ_out) offline. It does not allocate.
func (l *LiRA) Statistic(dst, target []float64) {
	if len(dst) != len(l.muOut) || len(target) != len(l.muOut) {
		panic(fmt.Sprintf("mia: LiRA fitted on %d examples, given %d scores into %d", len(l.muOut), len(target), len(dst)))
	}
	for k, phi := range target {
		if l.opt.Offline {
			dst[k] = 0.5 * math.Erfc(-(phi-l.muOut[k])/l.sdOut[k]/math.Sqrt2)
			continue
		}
		dst[k] = logRatio(phi, l.muIn[k], l.sdIn[k], l.muOut[k], l.sdOut[k])
	}
}
