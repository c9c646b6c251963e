package pipeline

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
	"github.com/unlearnaudit/unlearnaudit/reports/table"
	"gonum.org/v1/gonum/mat"
)

// EstimateAnswer is audit estimate's answer (its --json object): D_α(A‖B) estimated from
// samples, with a resampling interval — an estimate, not a bound.
type EstimateAnswer struct {
	Method     string       `json:"method"`
	Alpha      float64      `json:"alpha"`
	Estimate   table.Number `json:"estimate"`
	Lower      table.Number `json:"lower"`
	Upper      table.Number `json:"upper"`
	PlugIn     table.Number `json:"plug_in"`
	SE         float64      `json:"standard_error"`
	Confidence float64      `json:"confidence"`
	Resamples  int          `json:"resamples"`
	SamplesA   int          `json:"samples_a"`
	SamplesB   int          `json:"samples_b"`
	Dimension  int          `json:"dimension"`
	Note       string       `json:"note"`
}

// Estimate estimates D_α(A‖B) from the rows of a and b with the named estimator
// (estimate.ByName); its errors speak of samples A and B, which the caller names.
func Estimate(method string, a, b *mat.Dense, o estimate.Options) (*EstimateAnswer, error) {
	e, err := estimate.ByName(method, a, b, o)
	if err != nil {
		return nil, err
	}
	na, d := a.Dims()
	nb, _ := b.Dims()
	return &EstimateAnswer{Method: method, Alpha: o.Alpha, Estimate: table.Number(e.Value), Lower: table.Number(e.Interval.Lower), Upper: table.Number(e.Interval.Upper),
		PlugIn: table.Number(e.PlugIn), SE: e.SE, Confidence: o.Confidence, Resamples: e.Reps, SamplesA: na, SamplesB: nb, Dimension: d,
		Note: "an estimate with a resampling interval, not a bound; see audit/estimate for each estimator's regime"}, nil
}

// WriteText prints the answer as audit estimate does without --json: one line.
func (e *EstimateAnswer) WriteText(w io.Writer) {
	fmt.Fprintf(w, "D_%g(A‖B) ≈ %s, %g%% interval [%s, %s]  (%s, %d and %d samples in %d dimensions; an estimate, not a bound)\n",
		e.Alpha, table.G10(float64(e.Estimate)), 100*e.Confidence, table.G10(float64(e.Lower)), table.G10(float64(e.Upper)), e.Method, e.SamplesA, e.SamplesB, e.Dimension)
}

// ExampleBound is one example's row of an EpsilonAnswer.
type ExampleBound struct {
	Example      int          `json:"example"`
	Epsilon      table.Number `json:"epsilon_lower_bound"`
	Threshold    table.Number `json:"threshold"`
	Above        bool         `json:"flag_above"`
	FP           int          `json:"false_positives"`
	FN           int          `json:"false_negatives"`
	PointEpsilon table.Number `json:"point_estimate"`
	GDPEpsilon   table.Number `json:"gdp_epsilon"`
}

// EpsilonAnswer is audit epsilon's answer (its --json object): an ε lower bound from a
// distinguishing game on each example's scores, and the competition's scorer.
type EpsilonAnswer struct {
	EpsilonLowerBound table.Number       `json:"epsilon_lower_bound"`
	Delta             float64            `json:"delta"`
	Confidence        float64            `json:"confidence"`
	Strategy          string             `json:"strategy"`
	Resolution        table.Number       `json:"max_certifiable_epsilon"`
	PerExample        []ExampleBound     `json:"per_example"`
	Competition       CompetitionAnswer  `json:"competition"`
	Models            struct{ A, B int } `json:"models"`
	Note              string             `json:"note"`

	examples int // the examples scored (columns), for the text's first line
}

// CompetitionAnswer is the NeurIPS 2023 unlearning competition's scorer's part of an
// EpsilonAnswer.
type CompetitionAnswer struct {
	Epsilons        []float64 `json:"epsilons"`
	ForgettingScore float64   `json:"forgetting_score"`
	EMax            float64   `json:"e_max"`
	Note            string    `json:"note"`
}

// Epsilon bounds ε from below by g on each example's scores (a and b: one row per model,
// one column per example, as many columns each) and scores them as the competition does.
func Epsilon(a, b *mat.Dense, g epsilon.Game) (*EpsilonAnswer, error) {
	na, k := a.Dims()
	nb, _ := b.Dims()
	pe, err := g.PerExample(a, b)
	if err != nil {
		return nil, err
	}
	out := &EpsilonAnswer{Delta: g.Delta, Confidence: g.Confidence, Strategy: g.Strategy.String(), Resolution: table.Number(pe.Resolution),
		Note: "epsilon_lower_bound holds at the stated confidence for every example at once; point, GDP and competition values are estimates", examples: k}
	out.Models.A, out.Models.B = na, nb
	for _, e := range pe.Examples {
		res := e.Result
		out.PerExample = append(out.PerExample, ExampleBound{Example: e.Example, Epsilon: table.Number(res.Epsilon), Threshold: table.Number(res.Rule.Threshold),
			Above: res.Rule.Above, FP: res.Counts.FP, FN: res.Counts.Pos - res.Counts.TP, PointEpsilon: table.Number(res.Point), GDPEpsilon: table.Number(e.GDP.Epsilon)})
	}
	out.EpsilonLowerBound = table.Number(pe.Epsilon)
	rowsA, rowsB := make([][]float64, na), make([][]float64, nb)
	for i := range na {
		rowsA[i] = mat.Row(nil, i, a)
	}
	for i := range nb {
		rowsB[i] = mat.Row(nil, i, b)
	}
	comp, err := epsilon.Competition(rowsA, rowsB)
	if err != nil {
		return nil, err
	}
	out.Competition = CompetitionAnswer{Epsilons: comp.Epsilons, ForgettingScore: comp.Score, EMax: comp.EMax,
		Note: "NeurIPS 2023 machine-unlearning competition scorer (δ = 1e-5, ε capped at 50); an estimate without confidence"}
	return out, nil
}

// WriteText prints the answer as audit epsilon does without --json: the bound, a table of
// the examples and the competition's forgetting score.
func (out *EpsilonAnswer) WriteText(w io.Writer) {
	fmt.Fprintf(w, "ε lower bound: %s at δ = %g, %g%% confidence for all %d examples (%s thresholds; these trials can show at most %s)\n",
		table.G10(float64(out.EpsilonLowerBound)), out.Delta, 100*out.Confidence, out.examples, out.Strategy, table.G10(float64(out.Resolution)))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "example\tε lower bound\tpoint ε\tGDP ε\tcompetition ε")
	for j, e := range out.PerExample {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", j, table.G10(float64(e.Epsilon)), table.G10(float64(e.PointEpsilon)), table.G10(float64(e.GDPEpsilon)), table.G10(out.Competition.Epsilons[j]))
	}
	tw.Flush()
	fmt.Fprintf(w, "competition forgetting score: %.4f (E_max = %g)\n", out.Competition.ForgettingScore, out.Competition.EMax)
}
