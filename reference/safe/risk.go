package safe

import (
	"math"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
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

// RiskGradient sets dst = ∇R(w) of the risk RetentionRisk(w; rows) + ForgettingRisk(w; xs,
// ts, λ, dir): the mean loss gradient over the rows plus the forgetting term's (the rows
// need the data: for the audit). It returns the risk too.
func RiskGradient(dst []float64, m multiclass.Network, w []float64, data *multiclass.Data, rows []int, xs, ts [][]float64, lambda float64, dir KLDirection) float64 {
	d := m.Dim()
	tmp := make([]float64, d)
	multiclass.MeanGradient(m, dst, tmp, w, data, rows)
	risk := RetentionRisk(m, w, data, rows)
	if len(xs) == 0 || lambda == 0 {
		return risk
	}
	C := m.Classes()
	z, gz := make([]float64, C), make([]float64, C)
	logF, logT := make([]float64, C), make([]float64, C)
	fg := make([]float64, d)
	for i, x := range xs {
		m.Logits(z, w, x)
		lse := multiclass.LogSumExp(z)
		for c := range C {
			logF[c] = z[c] - lse
			logT[c] = math.Log(ts[i][c])
		}
		risk += lambda / float64(len(xs)) * Divergence(m, w, x, ts[i], dir)
		if dir == TargetToModel {
			s := 0.0
			for _, v := range ts[i] {
				s += v
			}
			for c := range C {
				gz[c] = s*fexp.Exp(logF[c]) - ts[i][c]
			}
		} else {
			mean := 0.0
			for c := range C {
				mean += fexp.Exp(logF[c]) * (logF[c] - logT[c])
			}
			for c := range C {
				gz[c] = fexp.Exp(logF[c]) * (logF[c] - logT[c] - mean)
			}
		}
		m.BackLogits(tmp, w, x, gz)
		for j := range fg {
			fg[j] += tmp[j]
		}
	}
	for j := range dst {
		dst[j] += lambda / float64(len(xs)) * fg[j]
	}
	return risk
}
