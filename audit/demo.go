package audit

import (
	"fmt"
	"math/rand/v2"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/retrain"
)

// DemoConfig is what NewDemoSetup needs besides the data.
type DemoConfig struct {
	Deletes      []int64 // the IDs to delete; empty: the most influential record and two random ones
	Lambda       float64 // L2 weight of the logistic loss, > 0
	Epsilon      float64
	Delta        float64
	Seed         uint64
	Confidence   float64
	PowerAgainst float64
	// DeletesOnly makes the requests exactly Deletes, in order, on all of ds: no record is
	// held out to be added. It is the request sequence of models trained elsewhere, which
	// `audit verify` retrains from the spec's recipe.
	DeletesOnly bool
	// Attacks are the empirical attacks each method's check runs (nil: all).
	Attacks Attacks
}

// NewDemoSetup builds the demo's requests on ds. Two random records are held out to be
// added later; the deletions are cfg.Deletes or, by default, the record with the largest
// gradient at the minimiser (the one whose removal moves the model most) and two random
// ones. Requests alternate delete, add, delete, add, delete. The radius holds the
// unconstrained minimiser of every dataset the requests produce (reference.MinimiserRadius).
func NewDemoSetup(ds *reference.Dataset, cfg DemoConfig) (DemoSetup, error) {
	if !(cfg.Lambda > 0) {
		return DemoSetup{}, fmt.Errorf("demo: λ = %v; want λ > 0", cfg.Lambda)
	}
	r := reference.Stream(cfg.Seed, 0, "demo/requests")
	loss := reference.Logistic{Lambda: cfg.Lambda}
	setup := DemoSetup{All: ds, Lambda: cfg.Lambda, Radius: reference.MinimiserRadius(loss, ds), Epsilon: cfg.Epsilon, Delta: cfg.Delta,
		Seed: cfg.Seed, Confidence: cfg.Confidence, PowerAgainst: cfg.PowerAgainst, Attacks: cfg.Attacks}
	if cfg.Delta < minDelta {
		return DemoSetup{}, &SettingError{Flag: "delta", Index: -1, Msg: fmt.Sprintf("%g is too small to compute with: the noise scales grow with ln(c/δ), whose c/δ overflows float64 below about 1e-308 (the models come out NaN); want δ ≥ %g", cfg.Delta, minDelta)}
	}
	named := map[int64]bool{}
	for i, id := range cfg.Deletes {
		if !ds.Has(id) {
			return DemoSetup{}, &SettingError{Flag: "delete", Index: i, Msg: fmt.Sprintf("record ID %d is not in the dataset (IDs are 0-based row numbers of the file; rows dropped by --classes are gone): %v", id, reference.ErrUnknownID)}
		}
		if named[id] {
			return DemoSetup{}, &SettingError{Flag: "delete", Index: i, Msg: fmt.Sprintf("record ID %d named twice", id)}
		}
		named[id] = true
	}
	if cfg.DeletesOnly {
		if len(cfg.Deletes) == 0 {
			return DemoSetup{}, fmt.Errorf("deletes: none named; retraining without the deleted records needs their IDs")
		}
		for _, id := range cfg.Deletes {
			setup.Updates = append(setup.Updates, reference.DeleteID(id))
		}
		setup.Data, setup.Deletions = ds, cfg.Deletes
		return setup, nil
	}
	var candidates []int64
	for i := range ds.Len() {
		if !named[ds.ID(i)] {
			candidates = append(candidates, ds.ID(i))
		}
	}
	if len(candidates) < 5 {
		return DemoSetup{}, &SettingError{Flag: "delete", Index: -1, Msg: fmt.Sprintf("names %d of the %d records; the demo needs at least 5 others to hold out and keep", len(cfg.Deletes), ds.Len())}
	}
	shuffle(r, candidates)
	holdout := candidates[:2]
	d0, err := ds.Without(holdout...)
	if err != nil {
		return DemoSetup{}, err
	}
	deletes := cfg.Deletes
	if len(deletes) == 0 {
		opt, err := retrain.Minimize(loss.Objective(d0), setup.Radius, retrain.Options{})
		if err != nil {
			return DemoSetup{}, fmt.Errorf("demo: %w", err)
		}
		row, _ := loss.Objective(d0).MostInfluential(opt.Theta)
		best := d0.ID(row)
		deletes = []int64{best}
		for _, id := range candidates[2:] {
			if len(deletes) == 3 {
				break
			}
			if id != best {
				deletes = append(deletes, id)
			}
		}
	}
	for k, id := range deletes {
		setup.Updates = append(setup.Updates, reference.DeleteID(id))
		if k < len(holdout) {
			row, _ := ds.Lookup(holdout[k])
			setup.Updates = append(setup.Updates, reference.AddRecord(ds.Record(row)))
		}
	}
	setup.Data, setup.Deletions = d0, deletes
	return setup, nil
}

// minDelta is the least δ the demo computes with: c/δ stays finite for the constants c
// (up to 10⁸) the noise scales divide by δ.
const minDelta = 1e-300

func shuffle(r *rand.Rand, ids []int64) {
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
}
