package reference

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// transform returns a copy of ds whose rows are rewritten by f (in place on the copy).
// For sparse data f sees only a row's stored values, so f must map 0 to 0 and treat the
// entries alike (scalings do; centring does not).
func (ds *Dataset) transform(f func(i int, row []float64)) *Dataset {
	out := ds.pick(seq(ds.Len()), cloneSet(ds.deleted))
	for i := range out.Len() {
		if out.sp != nil {
			_, vals := out.sp.Row(i)
			f(i, vals)
			continue
		}
		f(i, out.x.RawRowView(i))
	}
	return out
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Standardize returns a copy with every feature column shifted to mean 0 and scaled to
// standard deviation 1 (population form). Constant columns become 0. Centring fills in
// the zeros, so the copy of a sparse dataset is dense; MaxAbsScale keeps data sparse.
func (ds *Dataset) Standardize() *Dataset {
	if ds.sp != nil {
		ds = ds.dense()
	}
	n, d := ds.Len(), ds.Dim()
	mean := make([]float64, d)
	sd := make([]float64, d)
	for i := range n {
		for j, v := range ds.Row(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	for i := range n {
		for j, v := range ds.Row(i) {
			sd[j] += (v - mean[j]) * (v - mean[j])
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / float64(n))
	}
	return ds.transform(func(_ int, row []float64) {
		for j := range row {
			if sd[j] > 0 {
				row[j] = (row[j] - mean[j]) / sd[j]
			} else {
				row[j] = 0
			}
		}
	})
}

// dense is a dense copy of a sparse dataset.
func (ds *Dataset) dense() *Dataset {
	out := &Dataset{ids: ds.ids, x: ds.Features(), y: ds.y, d: ds.d, index: ds.index, deleted: ds.deleted}
	return out.pick(seq(ds.Len()), cloneSet(ds.deleted))
}

// MaxAbsScale returns a copy with every feature column divided by its largest absolute
// value, so features lie in [−1, 1]; all-zero columns stay 0. It maps 0 to 0, so sparse
// data stay sparse (scikit-learn's MaxAbsScaler; the usual scaling of text features).
func (ds *Dataset) MaxAbsScale() *Dataset {
	top := make([]float64, ds.d)
	for i := range ds.Len() {
		if ds.sp != nil {
			idx, val := ds.sp.Row(i)
			for k, c := range idx {
				top[c] = math.Max(top[c], math.Abs(val[k]))
			}
			continue
		}
		for j, v := range ds.x.RawRowView(i) {
			top[j] = math.Max(top[j], math.Abs(v))
		}
	}
	out := ds.pick(seq(ds.Len()), cloneSet(ds.deleted))
	scale := func(j int, v float64) float64 {
		if top[j] > 0 {
			return v / top[j]
		}
		return 0
	}
	for i := range out.Len() {
		if out.sp != nil {
			idx, val := out.sp.Row(i)
			for k, c := range idx {
				val[k] = scale(int(c), val[k])
			}
			continue
		}
		row := out.x.RawRowView(i)
		for j := range row {
			row[j] = scale(j, row[j])
		}
	}
	return out
}

// NormalizeRows returns a copy with every non-zero row scaled to Euclidean norm 1.
func (ds *Dataset) NormalizeRows() *Dataset {
	return ds.transform(func(_ int, row []float64) {
		nrm := Norm(row)
		if nrm > 0 {
			for j := range row {
				row[j] /= nrm
			}
		}
	})
}

// ScaleToUnitBall returns a copy with all rows divided by the largest row norm, so every
// row has norm ≤ 1 and the geometry between rows is kept.
func (ds *Dataset) ScaleToUnitBall() *Dataset {
	m := ds.MaxRowNorm()
	return ds.transform(func(_ int, row []float64) {
		if m > 0 {
			for j := range row {
				row[j] /= m
			}
		}
	})
}

// Scale returns a copy with every feature multiplied by c (e.g. 1/255 for pixels).
func (ds *Dataset) Scale(c float64) *Dataset {
	return ds.transform(func(_ int, row []float64) {
		for j := range row {
			row[j] *= c
		}
	})
}

// BinaryLabels returns a copy whose label is +1 where it equals positive and −1 elsewhere.
func (ds *Dataset) BinaryLabels(positive float64) *Dataset {
	out := ds.transform(func(int, []float64) {})
	for i, v := range out.y {
		if v == positive {
			out.y[i] = 1
		} else {
			out.y[i] = -1
		}
	}
	return out
}

// SelectClasses keeps the rows labelled positive or negative and relabels them +1 and −1
// (e.g. MNIST 3 vs 8). Record IDs are kept, so they still name rows of the source file.
func (ds *Dataset) SelectClasses(positive, negative float64) (*Dataset, error) {
	if positive == negative {
		return nil, fmt.Errorf("select classes: both classes are %v", positive)
	}
	var (
		ids        []int64
		npos, nneg int
	)
	for i := range ds.Len() {
		switch ds.y[i] {
		case positive:
			npos++
		case negative:
			nneg++
		default:
			continue
		}
		ids = append(ids, ds.ids[i])
	}
	// one class alone is no classification problem: every model fits it, so any audit
	// of it would pass without testing anything
	if npos == 0 || nneg == 0 {
		return nil, fmt.Errorf("select classes: %d rows labelled %v and %d labelled %v; want both classes present", npos, positive, nneg, negative)
	}
	sub, err := ds.Subset(ids)
	if err != nil {
		return nil, err
	}
	for i, v := range sub.y {
		if v == positive {
			sub.y[i] = 1
		} else {
			sub.y[i] = -1
		}
	}
	return sub, nil
}

// Sample returns k records drawn without replacement, in random order, using r.
func (ds *Dataset) Sample(k int, r *rand.Rand) (*Dataset, error) {
	if k < 1 || k > ds.Len() {
		return nil, fmt.Errorf("sample: %d records requested from %d", k, ds.Len())
	}
	perm := r.Perm(ds.Len())[:k]
	ids := make([]int64, k)
	for i, p := range perm {
		ids[i] = ds.ids[p]
	}
	return ds.Subset(ids)
}

// Split partitions the records into the first k (by the order of a random permutation
// drawn from r) and the rest.
func (ds *Dataset) Split(k int, r *rand.Rand) (first, rest *Dataset, err error) {
	if k < 1 || k >= ds.Len() {
		return nil, nil, fmt.Errorf("split: %d of %d records; want 1 ≤ k < n", k, ds.Len())
	}
	perm := r.Perm(ds.Len())
	a := make([]int64, k)
	b := make([]int64, ds.Len()-k)
	for i, p := range perm {
		if i < k {
			a[i] = ds.ids[p]
		} else {
			b[i-k] = ds.ids[p]
		}
	}
	if first, err = ds.Subset(a); err != nil {
		return nil, nil, err
	}
	rest, err = ds.Subset(b)
	return first, rest, err
}
