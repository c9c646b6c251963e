package props_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/sglu"
)

// report is a props.TB that prints a failed check instead of stopping a test.
type report struct{}

func (report) Helper()                           {}
func (report) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (report) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func verdictOf(check func(props.TB)) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprint("caught: ", r)
		}
	}()
	check(report{})
	return "holds"
}

// Point the SGLU coupling checks at an implementation of PNSGD: here the reference one,
// and a copy with a planted bug that sums the batch's gradients instead of averaging them.
// In a test, pass the *testing.T instead of report{}.
func ExampleCheckPNSGDContraction() {
	ds, err := reference.SyntheticClassification(32, 3, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	data := ds.NormalizeRows()
	const lambda = 0.1
	loss := reference.Logistic{Lambda: lambda, Clip: 1}
	p := sglu.Params{Problem: sglu.Problem{Smoothness: 0.25 + lambda, Lipschitz: 1, StrongConvexity: lambda,
		StepSize: 1 / (0.25 + lambda), N: 32, Batch: 8, Radius: math.Inf(1)}, Sigma: 0.1}
	x0, y0 := []float64{1, -1, 0.5}, []float64{-2, 0, 1}

	ref := props.ReferencePNSGD(p, loss)
	fmt.Println("reference:", verdictOf(func(t props.TB) { props.CheckPNSGDContraction(t, ref, p.Problem, data, 3, x0, y0, 7) }))

	summed := p // the bug: a step of b times the size, as if the gradients were summed
	summed.StepSize *= float64(p.Batch)
	buggy := func(ctx context.Context, start []float64, d *reference.Dataset, K int, r *rand.Rand) ([]float64, error) {
		return props.ReferencePNSGD(summed, loss)(ctx, start, d, K, r)
	}
	got := verdictOf(func(t props.TB) { props.CheckPNSGDContraction(t, buggy, p.Problem, data, 3, x0, y0, 7) })
	fmt.Println("summed gradients:", got[:len("caught")])
	// Output:
	// reference: holds
	// summed gradients: caught
}
