package olu

import (
	"errors"
	"fmt"
	"math"
)

// StepKind names the step-size schedules of the paper's Table 1.
type StepKind int

const (
	// StronglyConvexSteps is η_t = 1/(μt) (Theorems 2 and 6).
	StronglyConvexSteps StepKind = iota
	// ConvexSteps is η_t = D/(L√t) (Theorem 3).
	ConvexSteps
	// AdaptiveSteps is η_t = D/√p(t), p(t) = Σ_{s≤t} ‖∇f_s(z_s)‖² (Theorem 4); a round
	// with p(t) = 0 takes no step.
	AdaptiveSteps
	// ConstantSteps is a fixed η (Theorem 5).
	ConstantSteps
)

func (k StepKind) String() string {
	switch k {
	case StronglyConvexSteps:
		return "1/(μt)"
	case ConvexSteps:
		return "D/(L√t)"
	case AdaptiveSteps:
		return "D/√p(t)"
	case ConstantSteps:
		return "constant"
	}
	return fmt.Sprintf("StepKind(%d)", int(k))
}

// Steps is a step-size schedule: Kind with the constants it reads (Mu for 1/(μt), D and
// L for D/(L√t), D for D/√p(t), Eta for a constant step).
type Steps struct {
	Kind     StepKind
	Mu, D, L float64
	Eta      float64
}

// Validate refuses a schedule whose constants cannot give finite positive steps.
func (s Steps) Validate() error {
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("olu: steps %v: %s = %v, want a finite positive number", s.Kind, name, v)
		}
		return nil
	}
	switch s.Kind {
	case StronglyConvexSteps:
		return pos("μ", s.Mu)
	case ConvexSteps:
		return errors.Join(pos("D", s.D), pos("L", s.L))
	case AdaptiveSteps:
		return pos("D", s.D)
	case ConstantSteps:
		return pos("η", s.Eta)
	}
	return fmt.Errorf("olu: unknown step kind %d", int(s.Kind))
}

// At is η_t for round t ≥ 1; p is the adaptive schedule's running sum of squared gradient
// norms up to and including round t (ignored by the others).
func (s Steps) At(t int, p float64) float64 {
	switch s.Kind {
	case StronglyConvexSteps:
		return 1 / (s.Mu * float64(t))
	case ConvexSteps:
		return s.D / (s.L * math.Sqrt(float64(t)))
	case AdaptiveSteps:
		if p <= 0 {
			return 0
		}
		return s.D / math.Sqrt(p)
	}
	return s.Eta
}
