package reference_test

import (
	"math"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"pgregory.net/rapid"
)

// records maps ID → (features, label) for comparing datasets whose row orders differ.
func records(ds *reference.Dataset) map[int64]reference.Record {
	out := map[int64]reference.Record{}
	for i := range ds.Len() {
		out[ds.ID(i)] = ds.Record(i)
	}
	return out
}

func sameRecords(t *rapid.T, what string, a, b *reference.Dataset) {
	ra, rb := records(a), records(b)
	if len(ra) != len(rb) {
		t.Fatalf("%s: %d and %d records", what, len(ra), len(rb))
	}
	for id, r := range ra {
		s, ok := rb[id]
		if !ok || !slices.Equal(r.X, s.X) || r.Y != s.Y {
			t.Fatalf("%s: record %d differs: %+v vs %+v", what, id, r, s)
		}
	}
}

// A Store serves any request sequence — valid or not — exactly as Dataset.Apply does:
// the same errors, word for word, and the same records after every request. Snapshots
// stay as they were; views reflect the store.
func TestStoreMatchesDataset(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.IntRange(1, 4).Draw(t, "d")
		n := rapid.IntRange(1, 8).Draw(t, "n")
		row := func(label string) []float64 {
			x := make([]float64, d)
			for j := range x {
				x[j] = float64(rapid.IntRange(-3, 3).Draw(t, label))
			}
			return x
		}
		var recs []reference.Record
		for i := range n {
			recs = append(recs, reference.Record{ID: int64(i), X: row("x"), Y: float64(rapid.IntRange(-1, 1).Draw(t, "y"))})
		}
		ds, err := reference.FromRecords(d, recs)
		if err != nil {
			t.Fatal(err)
		}
		s := reference.NewStore(ds)
		snap := s.Snapshot()
		for range rapid.IntRange(1, 40).Draw(t, "length") {
			id := int64(rapid.IntRange(0, 12).Draw(t, "id")) // small range: repeats and unknown IDs
			var u reference.Update
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				u = reference.DeleteID(id)
			case 1:
				u = reference.AddRecord(reference.Record{ID: id, X: row("add"), Y: 1})
			case 2: // malformed: wrong width or a NaN
				x := row("bad")
				if rapid.Bool().Draw(t, "nan") {
					x[0] = math.NaN()
				} else {
					x = append(x, 0)
				}
				u = reference.AddRecord(reference.Record{ID: id, X: x, Y: 1})
			default:
				u = reference.DeleteID(id)
			}
			next, errDS := ds.Apply(u)
			checkErr := s.Check(u)
			errS := s.Apply(u)
			if (errDS == nil) != (errS == nil) || errDS != nil && (errDS.Error() != errS.Error() || checkErr == nil || checkErr.Error() != errS.Error()) {
				t.Fatalf("%s: dataset says %v, store says %v (check %v)", u, errDS, errS, checkErr)
			}
			if errDS == nil {
				ds = next
			}
			if s.Len() != ds.Len() {
				t.Fatalf("%s: store holds %d, dataset %d", u, s.Len(), ds.Len())
			}
			v := s.View()
			sameRecords(t, "view after "+u.String(), v, ds)
			for i := range v.Len() {
				if r, ok := v.Lookup(v.ID(i)); !ok || r != i {
					t.Fatalf("view index: ID %d at row %d, Lookup says %d", v.ID(i), i, r)
				}
			}
		}
		sameRecords(t, "snapshot", snap, func() *reference.Dataset { d0, _ := reference.FromRecords(d, recs); return d0 }())
	})
}

// Deleting from a store and adding the record back allocates nothing once capacity is there.
func TestStoreUpdatesDoNotAllocate(t *testing.T) {
	ds, err := reference.SyntheticClassification(500, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := reference.NewStore(ds)
	rec := ds.Record(7)
	if err := s.Apply(reference.DeleteID(rec.ID)); err != nil { // leaves a row of spare capacity
		t.Fatal(err)
	}
	if err := s.Apply(reference.AddRecord(rec)); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := s.Apply(reference.DeleteID(rec.ID)); err != nil {
			t.Fatal(err)
		}
		if err := s.Apply(reference.AddRecord(rec)); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per delete + add, want 0", allocs)
	}
}
