package d2d

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// Distributed is the state of perturbed distributed descent (Algorithms 4–7): C copies,
// each a bootstrap sample of B slots split into K partitions with one model per partition;
// the published model is the average of one copy's partition models plus Gaussian noise.
//
// Slots hold rows of a record store that keeps every record ever seen, so a slot keeps
// pointing at its record across updates. Reservoir sampling (Algorithm 5) is keyed by
// record ID, which is the spec's fix for duplicate values (§2.7): a deletion names one
// record, and exactly the slots holding it are redrawn.
type Distributed struct {
	plan      DistPlan
	loss      reference.Loss
	store     *reference.Dataset
	obj       *reference.Objective
	member    []int       // store rows of 𝒟_i
	pos       map[int]int // store row → position in member
	copies    []*distCopy
	round     int
	gradEvals int64
	chosen    int
	secret    []float64
	published []float64
	grad      []float64
	seen      []float64 // descendRows's scratch
}

type distCopy struct {
	slots   []int       // B store rows
	thetas  [][]float64 // K partition models
	radius  []float64   // certified distance of each partition model to its minimiser (§3.11)
	touched []int       // partitions the last update modified
	changed []int       // slots changed per touched partition (parallel to touched)
}

func (c *distCopy) rows(j, per int) []int { return c.slots[j*per : (j+1)*per] }

// descendRows runs T steps of projected GD on the mean loss over the given rows (repeats
// count, as in a bootstrap sample): θ ← Proj_R(θ − η·(1/|S|)Σ_{i∈S}∇f_{z_i}(θ)). seen is
// scratch of length d.
//
// The step is a function of θ alone, so once the iterates repeat a state they cycle, and
// the rest of the run is known without computing it. An update gives a few touched
// partitions thousands of steps each, and in floating point the iterates settle into a
// cycle (often of length 1 to 10) within a few hundred: Brent's cycle detection finds it,
// and only the steps that reach the same point of the cycle as the full run are taken.
// The result is the full run's to the bit (TestDescendRowsSkipsOnlyRepeats).
func descendRows(obj *reference.Objective, theta, grad, seen []float64, eta, radius float64, steps int, rows []int) {
	copy(seen, theta) // the state Brent's detector compares against: x_0, then x at powers of 2
	power, lam := 1, 0
	for s := 1; s <= steps; s++ {
		descendStep(obj, theta, grad, eta, radius, rows) // θ = x_s
		lam++
		if sameBits(theta, seen) { // x_s = x_{s−lam}: the iterates repeat with period lam
			for range (steps - s) % lam {
				descendStep(obj, theta, grad, eta, radius, rows)
			}
			return
		}
		if lam == power {
			copy(seen, theta)
			power, lam = 2*power, 0
		}
	}
}

func descendStep(obj *reference.Objective, theta, grad []float64, eta, radius float64, rows []int) {
	obj.BatchGradient(grad, theta, rows)
	for j := range theta {
		theta[j] -= eta * grad[j]
	}
	reference.ProjectBall(theta, radius)
}

// sameBits: equal as stored, so −0 and +0 differ (a later step could tell them apart).
func sameBits(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// LearnDistributed runs Algorithm 4 on ds — C bootstrap samples of B slots, K partitions
// each, T projected GD steps per partition from θ = 0 — and publishes (Algorithm 7). All
// randomness (the samples and the noise) comes from r.
func LearnDistributed(ctx context.Context, plan DistPlan, loss reference.Loss, ds *reference.Dataset, r *rand.Rand) (*Distributed, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ds.Len() == 0 {
		return nil, fmt.Errorf("d2d distributed learn: empty dataset")
	}
	p := plan.Params
	d := ds.Dim()
	m := &Distributed{plan: plan, loss: loss, store: ds, obj: loss.Objective(ds), pos: map[int]int{}, grad: make([]float64, d), seen: make([]float64, d)}
	for i := range ds.Len() {
		m.pos[i] = len(m.member)
		m.member = append(m.member, i)
	}
	per := plan.B / plan.K
	for range p.Copies {
		c := &distCopy{slots: make([]int, plan.B), thetas: make([][]float64, plan.K), radius: make([]float64, plan.K)}
		for s := range c.slots {
			c.slots[s] = m.member[r.IntN(len(m.member))]
		}
		for j := range plan.K {
			c.thetas[j] = make([]float64, d)
			descendRows(m.obj, c.thetas[j], m.grad, m.seen, plan.StepSize, p.Radius, plan.T, c.rows(j, per))
			c.radius[j] = powGamma(plan.Gamma, float64(plan.T)) * 2 * p.Radius
		}
		m.copies = append(m.copies, c)
		m.gradEvals += int64(plan.B) * int64(plan.T)
	}
	m.publish(r)
	return m, nil
}

// average is the mean of a copy's partition models.
func (m *Distributed) average(c *distCopy) []float64 {
	avg := make([]float64, m.store.Dim())
	for _, th := range c.thetas {
		for j, v := range th {
			avg[j] += v / float64(len(c.thetas))
		}
	}
	return avg
}

// publish chooses the copy (when C > 1) and publishes its average plus noise.
func (m *Distributed) publish(r *rand.Rand) {
	p := m.plan.Params
	d := m.store.Dim()
	avgs := make([][]float64, len(m.copies))
	for l, c := range m.copies {
		avgs[l] = m.average(c)
	}
	noisy := func(v []float64, sigma float64) []float64 {
		out := make([]float64, d)
		reference.FillNormal(out, sigma, r)
		for j := range out {
			out[j] += v[j]
		}
		return out
	}
	m.chosen = 0
	switch {
	case len(m.copies) == 1:
		m.published = noisy(avgs[0], m.plan.Sigma)
	case p.Selection == NoisySelection:
		best := math.Inf(1)
		for l, a := range avgs {
			cand := noisy(a, m.plan.Sigma*math.Sqrt(float64(len(m.copies))))
			if v := m.obj.BatchValue(cand, m.member); v < best {
				best, m.chosen, m.published = v, l, cand
			}
		}
	default:
		best := math.Inf(1)
		for l, a := range avgs {
			if v := m.obj.BatchValue(a, m.member); v < best {
				best, m.chosen = v, l
			}
		}
		m.published = noisy(avgs[m.chosen], m.plan.Sigma)
	}
	m.secret = avgs[m.chosen]
}

// Update serves the next request (Algorithms 5 and 6): reservoir sampling keeps each copy's
// slots a bootstrap sample of 𝒟_i, only the partitions whose slots changed are re-optimised
// (T' steps each, from their previous models), and the model is published. An unknown or
// already-deleted ID, or a dataset below n/2, is an error and changes nothing.
func (m *Distributed) Update(ctx context.Context, u reference.Update, r *rand.Rand) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p := m.plan.Params
	round := m.round + 1
	var row int
	switch u.Kind {
	case reference.Add:
		if sr, ok := m.store.Lookup(u.ID); ok {
			if _, in := m.pos[sr]; in {
				return fmt.Errorf("d2d distributed update %d: add: record ID %d is already in the dataset", round, u.ID)
			}
			if !slices.Equal(m.store.Row(sr), u.Record.X) || m.store.Label(sr) != u.Record.Y {
				return fmt.Errorf("d2d distributed update %d: add: record ID %d was deleted earlier with other values", round, u.ID)
			}
			row = sr
		} else {
			next, err := m.store.With(u.Record)
			if err != nil {
				return fmt.Errorf("d2d distributed update %d: %w", round, err)
			}
			m.store, m.obj = next, m.loss.Objective(next)
			row = next.Len() - 1
		}
	case reference.Delete:
		sr, ok := m.store.Lookup(u.ID)
		_, in := m.pos[sr]
		switch {
		case !ok:
			return fmt.Errorf("d2d distributed update %d: delete: record ID %d is not in the dataset: %w", round, u.ID, reference.ErrUnknownID)
		case !in:
			return fmt.Errorf("d2d distributed update %d: delete: record ID %d was already deleted: %w", round, u.ID, reference.ErrUnknownID)
		case float64(len(m.member)-1) < p.Floor():
			return fmt.Errorf("d2d distributed update %d: %s leaves %d records, below the n_floor = %v the certificate assumes (Assumption 2.6: n/2 unless a floor is declared)",
				round, u, len(m.member)-1, p.Floor())
		}
		row = sr
	}
	// membership of 𝒟_i
	if u.Kind == reference.Add {
		m.pos[row] = len(m.member)
		m.member = append(m.member, row)
	} else {
		i := m.pos[row]
		last := m.member[len(m.member)-1]
		m.member[i], m.pos[last] = last, i
		m.member = m.member[:len(m.member)-1]
		delete(m.pos, row)
	}
	m.round = round
	ni := len(m.member)
	per := m.plan.B / m.plan.K
	Ti := m.plan.UpdateBudget(round)
	var moved []int
	for _, c := range m.copies {
		if u.Kind == reference.Add {
			moved = ReservoirAdd(moved[:0], c.slots, row, ni, r)
		} else {
			moved = ReservoirDelete(moved[:0], c.slots, row, m.member, r)
		}
		changed := make([]int, m.plan.K)
		for _, s := range moved {
			changed[s/per]++
		}
		c.touched, c.changed = c.touched[:0], c.changed[:0]
		for j, k := range changed {
			if k > 0 {
				c.touched = append(c.touched, j)
				c.changed = append(c.changed, k)
			}
		}
		steps := DistPartitionIters(Ti, p.N, m.plan.B, m.plan.K, len(c.touched))
		contraction := powGamma(m.plan.Gamma, float64(steps))
		for t, j := range c.touched {
			descendRows(m.obj, c.thetas[j], m.grad, m.seen, m.plan.StepSize, p.Radius, steps, c.rows(j, per))
			c.radius[j] = contraction * (c.radius[j] + m.plan.SlotSensitivity()*float64(c.changed[t]))
		}
		m.gradEvals += int64(steps) * int64(per) * int64(len(c.touched))
	}
	m.publish(r)
	return nil
}

// ReservoirAdd is Algorithm 5 for an addition to a dataset that now holds n_i records:
// each slot independently becomes the new record with probability 1/n_i (equivalently, N ~
// Bin(B, 1/n_i) distinct slots chosen uniformly). It appends the changed slot positions to
// changed and returns it.
func ReservoirAdd(changed, slots []int, record, ni int, r *rand.Rand) []int {
	for s := range slots {
		if r.Float64() < 1/float64(ni) {
			slots[s] = record
			changed = append(changed, s)
		}
	}
	return changed
}

// ReservoirDelete is Algorithm 5 for a deletion, keyed by record: every slot holding the
// deleted record is replaced by an independent uniform draw from members (𝒟_i, which no
// longer holds it). Keying by record rather than by value is the spec's fix for duplicate
// values (§2.7): the paper's value rule is biased when several records share a value. It
// appends the changed slot positions to changed and returns it.
func ReservoirDelete(changed, slots []int, record int, members []int, r *rand.Rand) []int {
	for s, cur := range slots {
		if cur == record {
			slots[s] = members[r.IntN(len(members))]
			changed = append(changed, s)
		}
	}
	return changed
}

// CoupledRetrain is the retrain from scratch that the proof of Theorem 4.5 compares with
// (Appendix F): Algorithm 4 on 𝒟_i with the chosen copy's current slots, i.e. T steps from
// θ = 0 on each partition. It returns the average of the partition models.
func (m *Distributed) CoupledRetrain() []float64 {
	p := m.plan.Params
	c := m.copies[m.chosen]
	per := m.plan.B / m.plan.K
	avg := make([]float64, m.store.Dim())
	theta := make([]float64, m.store.Dim())
	for j := range m.plan.K {
		clear(theta)
		descendRows(m.obj, theta, m.grad, m.seen, m.plan.StepSize, p.Radius, m.plan.T, c.rows(j, per))
		for k, v := range theta {
			avg[k] += v / float64(m.plan.K)
		}
	}
	return avg
}

// CertifiedDelta is the certified distance between the published average's mean and the
// coupled retrain's (spec d2d §3.11): the average over partitions of each model's certified
// distance to its partition minimiser, kept by the recursion r ← γ^{T'}(r + (4LK/(mB))·s)
// for touched partitions, plus the retrain's γ^T·D.
func (m *Distributed) CertifiedDelta() float64 {
	c := m.copies[m.chosen]
	var s float64
	for _, r := range c.radius {
		s += r / float64(len(c.radius))
	}
	return s + powGamma(m.plan.Gamma, float64(m.plan.T))*2*m.plan.Params.Radius
}

// Release returns the published model, the chosen copy's average, and diagnostics: the
// certified Δ of §3.11 and the partitions the last update touched. (The coupled retrain is
// a full retrain; CoupledRetrain computes it when a check needs it.)
func (m *Distributed) Release() reference.Release {
	return reference.Release{
		Published: slices.Clone(m.published), Secret: slices.Clone(m.secret),
		Diagnostics: map[string]float64{
			"certified_delta":    m.CertifiedDelta(),
			"touched_partitions": float64(len(m.copies[m.chosen].touched)),
		},
	}
}

// Published returns a copy of the published model.
func (m *Distributed) Published() []float64 { return slices.Clone(m.published) }

// Secret returns the chosen copy's noise-free average.
func (m *Distributed) Secret() []float64 { return slices.Clone(m.secret) }

// Round is the number of updates served.
func (m *Distributed) Round() int { return m.round }

// GradientEvaluations counts per-example gradient evaluations so far.
func (m *Distributed) GradientEvaluations() int64 { return m.gradEvals }

// Plan returns the plan.
func (m *Distributed) Plan() DistPlan { return m.plan }

// Members returns the record IDs of 𝒟_i.
func (m *Distributed) Members() []int64 {
	out := make([]int64, len(m.member))
	for i, r := range m.member {
		out[i] = m.store.ID(r)
	}
	return out
}

// SlotIDs returns the record IDs in copy l's slots, in slot order.
func (m *Distributed) SlotIDs(l int) []int64 {
	out := make([]int64, len(m.copies[l].slots))
	for i, r := range m.copies[l].slots {
		out[i] = m.store.ID(r)
	}
	return out
}

// PartitionModel returns a copy of partition j's model in copy l.
func (m *Distributed) PartitionModel(l, j int) []float64 { return slices.Clone(m.copies[l].thetas[j]) }

// PartitionRadius is the certified distance of partition j's model in copy l to its
// partition minimiser.
func (m *Distributed) PartitionRadius(l, j int) float64 { return m.copies[l].radius[j] }

// Touched returns the partitions of copy l the last update re-optimised.
func (m *Distributed) Touched(l int) []int { return slices.Clone(m.copies[l].touched) }

// PartitionData returns the slots of partition j in copy l as a dataset (one row per slot,
// IDs are slot positions), for checks against exact minimisers.
func (m *Distributed) PartitionData(l, j int) *reference.Dataset {
	per := m.plan.B / m.plan.K
	rows := m.copies[l].rows(j, per)
	recs := make([]reference.Record, len(rows))
	for k, r := range rows {
		recs[k] = m.store.Record(r)
		recs[k].ID = int64(j*per + k)
	}
	ds, err := reference.FromRecords(m.store.Dim(), recs)
	if err != nil {
		panic(err) // slot positions are unique and rows come from a valid store
	}
	return ds
}

// Chosen is the copy the last publication came from.
func (m *Distributed) Chosen() int { return m.chosen }
