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

// LiRAOptions select the LiRA variant. The zero value is the paper's online attack with
// per-example Gaussian fits: mean centre, sample standard deviation.
type LiRAOptions struct {
	// Offline uses only OUT shadows: the statistic is the one-sided p-value
	// Φ((φ − μ_out)/σ_out) of the paper (large = member). Online compares the IN and OUT
	// Gaussian likelihoods.
	Offline bool
	// FixedVariance replaces the per-example standard deviations by one global one: by
	// default the root mean square of the per-example ones (IN and OUT online, OUT
	// offline), a pooled within-example spread; with ReferenceCode, the reference code's
	// (see there), which also counts the spread between examples.
	FixedVariance bool
	Center        Center
	// ReferenceCode fits the Gaussians as LiRA's reference implementation does (TF Privacy,
	// research/mi_lira_2021/plot.py: generate_ours online, generate_ours_offline) instead of
	// as the paper states them — labelled as that, never the default. It changes:
	//   - every spread is np.std's, the population standard deviation √(Σ(x − x̄)²/k)
	//     (ddof 0), where the default is the sample one, √(Σ(x − x̄)²/(k − 1));
	//   - each example keeps only its first k_in IN and k_out OUT scores in shadow order,
	//     k the fewest any example has (the code stacks them into one array; with
	//     TrainShadows' balanced membership nothing is dropped);
	//   - with FixedVariance, the one spread is np.std of all the kept IN scores pooled,
	//     about their overall mean, for IN and OUT alike online (the code takes both from
	//     the IN scores), and of all the kept OUT scores offline;
	//   - offline, the statistic is −ln N(φ; μ_out, σ_out), two-sided (a score far from the
	//     OUT fit on either side is member-like), where the default is the paper's
	//     one-sided Φ((φ − μ_out)/σ_out).
	// The centre is still Center's: the code's is Median, so {ReferenceCode: true,
	// Center: Median} is the reference attack. Where the code adds 1e-30 to a spread, both
	// forms floor it at 1e-6, which differs only for scores constant to within 1e-6.
	ReferenceCode bool
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
	keepIn, keepOut := m, m // the reference code's cut: the fewest IN (OUT) scores of any example
	if opt.ReferenceCode {
		for k := range n {
			c := 0
			for i := range m {
				if in[i][k] {
					c++
				}
			}
			keepIn, keepOut = min(keepIn, c), min(keepOut, m-c)
		}
	}
	var pooled []float64 // the kept scores the reference code's fixed variance is taken over
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
		if opt.ReferenceCode {
			bufIn, bufOut = bufIn[:keepIn], bufOut[:keepOut]
			if opt.Offline {
				pooled = append(pooled, bufOut...)
			} else {
				pooled = append(pooled, bufIn...)
			}
		}
		l.muOut[k], l.sdOut[k] = fit(bufOut, opt.Center, opt.ReferenceCode)
		if !opt.Offline {
			l.muIn[k], l.sdIn[k] = fit(bufIn, opt.Center, opt.ReferenceCode)
		}
	}
	if opt.FixedVariance {
		g := globalSD(l.sdIn, l.sdOut, opt.Offline)
		if opt.ReferenceCode {
			_, g = fit(pooled, Mean, true)
		}
		for k := range n {
			l.sdIn[k], l.sdOut[k] = g, g
		}
	}
	return l, nil
}

// fit is the centre and standard deviation of a sample (sorting it in place for the
// median): the sample standard deviation √(Σ(x − x̄)²/(k − 1)), or with population the
// population one √(Σ(x − x̄)²/k), NumPy's np.std default (ddof 0).
func fit(x []float64, c Center, population bool) (mu, sd float64) {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	dof := float64(len(x) - 1)
	if population {
		dof = float64(len(x))
	}
	sd = math.Max(minSD, math.Sqrt(ss/dof))
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
// online, Φ((φ − μ_out)/σ_out) offline (−ln N(φ; μ_out, σ_out) with ReferenceCode). It
// does not allocate.
func (l *LiRA) Statistic(dst, target []float64) {
	if len(dst) != len(l.muOut) || len(target) != len(l.muOut) {
		panic(fmt.Sprintf("mia: LiRA fitted on %d examples, given %d scores into %d", len(l.muOut), len(target), len(dst)))
	}
	for k, phi := range target {
		if l.opt.Offline {
			z := (phi - l.muOut[k]) / l.sdOut[k]
			if l.opt.ReferenceCode {
				dst[k] = 0.5*z*z + math.Log(l.sdOut[k]) + 0.5*math.Log(2*math.Pi)
			} else {
				dst[k] = 0.5 * math.Erfc(-z/math.Sqrt2)
			}
			continue
		}
		dst[k] = logRatio(phi, l.muIn[k], l.sdIn[k], l.muOut[k], l.sdOut[k])
	}
}
