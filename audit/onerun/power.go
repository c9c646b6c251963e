package onerun

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"
)

// MaxShift is the largest score separation SmallestShift searches: canaries whose scores
// separate by 12 standard deviations are all but perfectly told apart.
const MaxShift = 12

// shiftSteps is the number of halvings of [0, MaxShift]: a resolution of 12/2¹⁰ ≈ 0.012.
const shiftSteps = 10

// powerStream is the second PCG word of the power simulation: "onepower" in ASCII.
const powerStream = 0x6f6e65706f776572

// PowerAt is the share of reps simulated runs whose one-run ε lower bound (EpsilonOneRun,
// Bonferroni, at significance and δ) exceeds target, when nIn included canaries score
// N(shift, 1) and nOut excluded ones N(0, 1): a canary score of a μ-GDP mechanism with
// μ = shift, the leak the Gaussian pair names. The runs are drawn from seed with common
// random numbers: every shift reads the same standard normals, so PowerAt(…, seed) is one
// sample's power curve, and SmallestShift's search on it is exact for that sample.
func PowerAt(nIn, nOut int, shift, target, significance, delta float64, reps int, seed uint64) (float64, error) {
	z, err := powerNormals(nIn, nOut, reps, seed)
	if err != nil {
		return 0, err
	}
	return powerOn(z, nIn, shift, target, significance, delta)
}

// SmallestShift is the smallest shift, to within MaxShift/2¹⁰, at which PowerAt reaches
// power on the same simulated runs (bisection on the sample's curve, which rises with the
// shift); +Inf when even MaxShift does not reach it.
func SmallestShift(nIn, nOut int, target, significance, delta, power float64, reps int, seed uint64) (float64, error) {
	if !(power > 0 && power < 1) {
		return 0, fmt.Errorf("one-run power: power %v: want one in (0, 1)", power)
	}
	z, err := powerNormals(nIn, nOut, reps, seed)
	if err != nil {
		return 0, err
	}
	reached := func(shift float64) (bool, error) {
		p, err := powerOn(z, nIn, shift, target, significance, delta)
		return p >= power, err
	}
	ok, err := reached(MaxShift)
	if err != nil || !ok {
		return math.Inf(1), err
	}
	lo, hi := 0.0, float64(MaxShift)
	for range shiftSteps {
		mid := (lo + hi) / 2
		ok, err := reached(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// powerNormals draws reps runs of nIn + nOut standard normals, run by run.
func powerNormals(nIn, nOut, reps int, seed uint64) ([][]float64, error) {
	if nIn < 1 || nOut < 1 || reps < 1 {
		return nil, fmt.Errorf("one-run power: %d included, %d excluded canaries, %d runs: want at least one of each", nIn, nOut, reps)
	}
	r := rand.New(rand.NewPCG(seed, powerStream))
	z := make([][]float64, reps)
	for i := range z {
		z[i] = make([]float64, nIn+nOut)
		for j := range z[i] {
			z[i][j] = r.NormFloat64()
		}
	}
	return z, nil
}

// powerOn is the share of the runs z whose bound exceeds target at the shift.
func powerOn(z [][]float64, nIn int, shift, target, significance, delta float64) (float64, error) {
	hits := 0
	in := make([]float64, nIn)
	for _, run := range z {
		for j := range in {
			in[j] = run[j] + shift
		}
		a, err := NewAuditor(in, run[nIn:])
		if err != nil {
			return 0, fmt.Errorf("one-run power: %w", err)
		}
		eps, err := a.EpsilonOneRun(significance, delta, threshold.Bonferroni)
		if err != nil {
			return 0, fmt.Errorf("one-run power: %w", err)
		}
		if eps > target {
			hits++
		}
	}
	return float64(hits) / float64(len(z)), nil
}
