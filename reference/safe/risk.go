package safe

import (
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
)

// KL is Σ_c P_c·log(P_c/Q_c) over the classes where P_c > 0 (+Inf where Q_c = 0 there).
// P or Q may be unnormalised (LiteralScalar's target is).
func KL(p, q []float64) float64 {
	s := 0.0
	for c, pc := range p {
		if pc > 0 {
			s += pc * math.Log(pc/q[c])
		}
	}
	return s
}

// Divergence is the forgetting term's divergence between the model's prediction f at w
// and a target p̃, in the given direction.
func Divergence(m multiclass.Network, w, x, target []float64, dir KLDirection) float64 {
	f := make([]float64, m.Classes())
	multiclass.Probabilities(m, f, w, x)
	if dir == TargetToModel {
		return KL(target, f)
	}
	return KL(f, target)
}

// ForgettingRisk is the forgetting term (λ/m)·Σ_i d(f(x_i; w), t_i) over the points xs
// with their targets ts (Eq. 16 with SAFE's targets: R̃_t^fg; with the retrained model's
// predictions: R_t^fg). 0 for no points.
func ForgettingRisk(m multiclass.Network, w []float64, xs, ts [][]float64, lambda float64, dir KLDirection) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for i, x := range xs {
		s += Divergence(m, w, x, ts[i], dir)
	}
	return lambda * s / float64(len(xs))
}

// RetentionRisk is the mean loss (1/|rows|)·Σ ℓ(w; row) over the records left: what
// SAFE's retention term equals without reading them (Eq. 14). It needs the data, so only
// the audit and the tests call it.
func RetentionRisk(m multiclass.Model, w []float64, data *multiclass.Data, rows []int) float64 {
	return multiclass.MeanLoss(m, w, data, rows)
}

// ForgetPoints are the deleted points' features, in Deleted's order (copies).
func (u *Unlearner) ForgetPoints() [][]float64 {
	out := make([][]float64, len(u.forgot))
	for i, f := range u.forgot {
		out[i] = slices.Clone(f.x)
	}
	return out
}
