package props_test

import (
	"math"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"github.com/unlearnaudit/unlearnaudit/retrain"
	"pgregory.net/rapid"
)

func TestSensitivityLemma212(t *testing.T)      { rapid.Check(t, props.Sensitivity) }
func TestD2DTrajectorySecretState(t *testing.T) { rapid.Check(t, props.D2DTrajectory(d2d.SecretState)) }
func TestD2DTrajectoryPerfect(t *testing.T)     { rapid.Check(t, props.D2DTrajectory(d2d.Perfect)) }
func TestD2DTrajectoryConvexStrong(t *testing.T) {
	rapid.Check(t, props.D2DTrajectory(d2d.ConvexStrong))
}
func TestD2DTrajectoryConvexWeak(t *testing.T) { rapid.Check(t, props.D2DTrajectory(d2d.ConvexWeak)) }
func TestSigmaMonotone(t *testing.T)           { rapid.Check(t, props.SigmaMonotone) }
func TestContraction(t *testing.T)             { rapid.Check(t, props.Contraction) }

// Spec d2d §4.4.9: the §3 theorems hold for adaptive request sequences.
func TestD2DAdaptiveSecretState(t *testing.T) {
	rapid.Check(t, props.D2DAdaptiveTrajectory(d2d.SecretState))
}
func TestD2DAdaptivePerfect(t *testing.T) { rapid.Check(t, props.D2DAdaptiveTrajectory(d2d.Perfect)) }
func TestD2DAdaptiveConvexStrong(t *testing.T) {
	rapid.Check(t, props.D2DAdaptiveTrajectory(d2d.ConvexStrong))
}
func TestD2DAdaptiveConvexWeak(t *testing.T) {
	rapid.Check(t, props.D2DAdaptiveTrajectory(d2d.ConvexWeak))
}

func TestDistributedTrajectoryPaper(t *testing.T) {
	rapid.Check(t, props.DistributedTrajectory(d2d.PaperSchedule))
}
func TestDistributedTrajectoryFixed(t *testing.T) {
	rapid.Check(t, props.DistributedTrajectory(d2d.FixedSchedule))
}

// Spec d2d §4.4.5, tight case: on a ridge objective whose Hessian has exactly the declared
// eigenvalues m = λ and M = c² + λ, a step with η = 2/(M+m) scales the error along either
// extreme eigenvector by γ exactly (by −γ along the M one).
func TestContractionTightOnQuadratic(t *testing.T) {
	const c, lambda = 0.8, 0.1
	ds, err := reference.FromRecords(2, []reference.Record{{ID: 0, X: []float64{c, 0}, Y: 1}, {ID: 1, X: []float64{-c, 0}, Y: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	loss := reference.Ridge{Lambda: lambda}
	radius := 100.0
	k := loss.Constants(ds, radius)
	if math.Abs(k.Smoothness-(c*c+lambda)) > 1e-15 || k.StrongConvexity != lambda {
		t.Fatalf("declared constants %+v, want M = c² + λ and m = λ", k)
	}
	star, err := retrain.Minimize(loss.Objective(ds), radius, retrain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gamma, eta := d2d.Contraction(k.Smoothness, k.StrongConvexity), d2d.StepSize(k.Smoothness, k.StrongConvexity)
	for _, dir := range [][]float64{{1, 0}, {0, 1}} {
		theta := []float64{star.Theta[0] + dir[0], star.Theta[1] + dir[1]}
		g := make([]float64, 2)
		for step := 1; step <= 30; step++ {
			d2d.Descend(loss.Objective(ds), theta, g, eta, radius, 1)
			if d, want := reference.Distance(theta, star.Theta), math.Pow(gamma, float64(step)); math.Abs(d-want) > 1e-12 {
				t.Fatalf("direction %v, step %d: ‖θ_t − θ*‖ = %.15g, want γ^t = %.15g", dir, step, d, want)
			}
		}
	}
}
