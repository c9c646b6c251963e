// Command detection prints the detection benchmark: the fraction of audits FAILed on
// pairs of laws μ-GDP apart (μ = 0 is the false-FAIL rate of honest pairs, which must stay
// within 1 − confidence = 5 %), per route and number of unlearned models, with the
// statistics before and after the pre-registered family and the rank test (package
// audit/detection), and on the fixtures scikit-learn and PyTorch wrote (testdata/), at
// the claim ε = 1, δ = 1e-3, confidence 0.95. Run from the repository root:
//
//	go run ./bench/detection [-audits 100]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit/detection"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

func main() {
	audits := flag.Int("audits", 100, "seeded audits per simulated cell")
	flag.Parse()
	if err := run(*audits); err != nil {
		fmt.Fprintln(os.Stderr, "detection:", err)
		os.Exit(1)
	}
}

var models = []int{1, 8, 32, 64}

func run(audits int) error {
	fmt.Printf("Fraction FAILed at the claim (ε = 1, δ = 1e-3), confidence 0.95; before → after; %d seeded audits a simulated cell. One model is ranked among 64 retrains.\n\n", audits)
	fmt.Println("| pair | route | 1 model | 8 | 32 | 64 |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, route := range []detection.Route{detection.Scores, detection.Parameters} {
		for _, mu := range []float64{0, 0.5, 1, 3, 10} {
			row := fmt.Sprintf("| μ = %g | %s |", mu, route)
			for _, n := range models {
				before, err := detection.Rate(route, detection.Before, mu, n, audits)
				if err != nil {
					return err
				}
				after, err := detection.Rate(route, detection.After, mu, n, audits)
				if err != nil {
					return err
				}
				row += fmt.Sprintf(" %.2f → %.2f |", before, after)
			}
			fmt.Println(row)
		}
	}
	deletes := make([]int64, 50) // records 0..49 (bench/detection/bcdata.py)
	for i := range deletes {
		deletes[i] = int64(i)
	}
	data, err := detection.LoadData(filepath.Join("bench", "detection", "testdata", "sklearn_logreg", "data.csv"), deletes)
	if err != nil {
		return err
	}
	for _, c := range []struct {
		dir, prefix string
		route       detection.Route
	}{{"sklearn_logreg", "models_", detection.Parameters}, {"sklearn_logreg", "models_", detection.ParametersWithData}, {"sklearn_logreg", "deleted_", detection.Scores},
		{"torch_mlp", "params_", detection.Parameters}, {"torch_mlp", "deleted_", detection.Scores}} {
		load := func(sample string) (*mat.Dense, error) {
			m, _, err := artifact.LoadSample(filepath.Join("bench", "detection", "testdata", c.dir, c.prefix+sample+".npy"), reference.Limits{})
			return m, err
		}
		ret, err := load("retrained")
		if err != nil {
			return err
		}
		for _, sample := range []string{"honest", "fake"} {
			u, err := load(sample)
			if err != nil {
				return err
			}
			row := fmt.Sprintf("| %s %s | %s |", c.dir, sample, c.route)
			for _, n := range models {
				before, err := detection.SubsetRate(c.route, detection.Before, u, ret, n, data)
				if err != nil {
					return err
				}
				after, err := detection.SubsetRate(c.route, detection.After, u, ret, n, data)
				if err != nil {
					return err
				}
				row += fmt.Sprintf(" %.2f → %.2f |", before, after)
			}
			fmt.Println(row)
		}
	}
	return nil
}
