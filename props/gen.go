package props

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"
)

// grid is the resolution of drawn values: numbers are drawn as integers in [−grid, grid]
// and divided by grid, because rapid's float generator leans toward extreme values.
const grid = 1000

// scaled draws a number in [lo, hi] on a grid of (hi−lo)/grid.
func scaled(t *rapid.T, lo, hi float64, label string) float64 {
	k := rapid.IntRange(0, grid).Draw(t, label)
	return lo + (hi-lo)*float64(k)/grid
}

// logScaled draws a number log-uniformly in [lo, hi] on a grid.
func logScaled(t *rapid.T, lo, hi float64, label string) float64 {
	k := rapid.IntRange(0, grid).Draw(t, label)
	return lo * fexp.Pow(hi/lo, float64(k)/grid)
}

// DataConfig bounds the datasets Dataset draws.
type DataConfig struct {
	MinRows, MaxRows int  // default 4..64 (spec d2d §4.2)
	MaxDim           int  // default 5
	Regression       bool // real labels in [−1, 1] instead of ±1
}

func (c DataConfig) withDefaults() DataConfig {
	if c.MinRows == 0 {
		c.MinRows = 4
	}
	if c.MaxRows == 0 {
		c.MaxRows = 64
	}
	if c.MaxDim == 0 {
		c.MaxDim = 5
	}
	return c
}

// Dataset draws a small dataset: features on a grid in [−1, 1]^d, labels ±1 (or on a grid
// in [−1, 1] for regression), IDs 0..n−1.
func Dataset(c DataConfig) *rapid.Generator[*reference.Dataset] {
	c = c.withDefaults()
	return rapid.Custom(func(t *rapid.T) *reference.Dataset {
		n := rapid.IntRange(c.MinRows, c.MaxRows).Draw(t, "n")
		d := rapid.IntRange(1, c.MaxDim).Draw(t, "d")
		return drawRows(t, n, d, 0, c.Regression)
	})
}

func drawRows(t *rapid.T, n, d int, firstID int64, regression bool) *reference.Dataset {
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	ids := make([]int64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, float64(rapid.IntRange(-grid, grid).Draw(t, "x"))/grid)
		}
		if regression {
			y[i] = float64(rapid.IntRange(-grid, grid).Draw(t, "y")) / grid
		} else {
			y[i] = float64(2*rapid.IntRange(0, 1).Draw(t, "y") - 1)
		}
		ids[i] = firstID + int64(i)
	}
	ds, err := reference.NewDataset(ids, x, y)
	if err != nil {
		panic(err) // the generator only draws finite values with unique IDs
	}
	return ds
}

// Record draws one record with the given ID, shaped like ds.
func Record(t *rapid.T, ds *reference.Dataset, id int64, regression bool) reference.Record {
	r := drawRows(t, 1, ds.Dim(), id, regression)
	return r.Record(0)
}

// Loss draws an L2-regularised loss: logistic (or ridge for regression) with
// λ ∈ [0.02, 1] (spec d2d §4.2).
func Loss(regression bool) *rapid.Generator[reference.Loss] {
	return rapid.Custom(func(t *rapid.T) reference.Loss {
		lambda := scaled(t, 0.02, 1, "lambda")
		if regression {
			return reference.Ridge{Lambda: lambda}
		}
		return reference.Logistic{Lambda: lambda}
	})
}

// SequenceConfig shapes the update sequences Updates draws.
type SequenceConfig struct {
	MaxLen     int // default 30
	Floor      int // every intermediate dataset keeps at least this many records; default n/2 rounded up
	Regression bool
}

// Updates draws a sequence of additions and deletions valid for ds (spec d2d §4.2): add a
// fresh random record, delete a random record, add a copy of an existing record's values
// under a new ID, or delete the most recently added record — never going below the floor.
func Updates(t *rapid.T, ds *reference.Dataset, c SequenceConfig) []reference.Update {
	if c.MaxLen == 0 {
		c.MaxLen = 30
	}
	if c.Floor == 0 {
		c.Floor = (ds.Len() + 1) / 2
	}
	length := rapid.IntRange(1, c.MaxLen).Draw(t, "length")
	cur := ds
	var next int64
	for i := range ds.Len() {
		next = max(next, ds.ID(i)+1)
	}
	var out []reference.Update
	var added []int64
	for range length {
		var u reference.Update
		kind := rapid.IntRange(0, 3).Draw(t, "kind")
		canDelete := cur.Len()-1 >= c.Floor
		switch {
		case kind == 0 || !canDelete && kind != 2:
			u = reference.AddRecord(Record(t, cur, next, c.Regression))
			added = append(added, next)
			next++
		case kind == 2:
			src := cur.Record(rapid.IntRange(0, cur.Len()-1).Draw(t, "copy"))
			src.ID = next
			u = reference.AddRecord(src)
			added = append(added, next)
			next++
		case kind == 3 && len(added) > 0 && cur.Has(added[len(added)-1]):
			u = reference.DeleteID(added[len(added)-1])
			added = added[:len(added)-1]
		default:
			u = reference.DeleteID(cur.ID(rapid.IntRange(0, cur.Len()-1).Draw(t, "victim")))
		}
		nxt, err := cur.Apply(u)
		if err != nil {
			panic(fmt.Sprintf("props: generated an invalid update %s: %v", u, err))
		}
		cur = nxt
		out = append(out, u)
	}
	return out
}
