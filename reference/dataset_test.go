package reference

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func small(t *testing.T) *Dataset {
	t.Helper()
	ds, err := NewDataset([]int64{10, 11, 12, 13}, mat.NewDense(4, 2, []float64{1, 0, 0, 1, -1, 0, 0, -1}), []float64{1, 1, -1, -1})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestDatasetDeleteByID(t *testing.T) {
	ds := small(t)
	next, err := ds.Without(11)
	if err != nil {
		t.Fatal(err)
	}
	if next.Len() != 3 || next.Has(11) || !ds.Has(11) {
		t.Fatalf("delete 11: got %v, receiver now has 11: %v", next.IDs(), ds.Has(11))
	}
	if row, ok := next.Lookup(12); !ok || next.Row(row)[0] != -1 {
		t.Fatalf("record 12 lost its features: row %d ok %v", row, ok)
	}
	_, err = next.Without(11)
	if !errors.Is(err, ErrUnknownID) || !strings.Contains(err.Error(), "already deleted") || !strings.Contains(err.Error(), "11") {
		t.Errorf("second delete of 11: %v; want an already-deleted error naming 11", err)
	}
	_, err = next.Without(99)
	if !errors.Is(err, ErrUnknownID) || !strings.Contains(err.Error(), "not in the dataset") || !strings.Contains(err.Error(), "99") {
		t.Errorf("delete of 99: %v; want a not-in-dataset error naming 99", err)
	}
	if _, err := ds.Without(10, 10); err == nil {
		t.Error("deleting one ID twice in a request must fail")
	}
	if _, err := ds.Without(10, 11, 12, 13); err == nil {
		t.Error("deleting every record must fail")
	}
}

func TestDatasetAddAndReAdd(t *testing.T) {
	ds := small(t)
	if _, err := ds.With(Record{ID: 12, X: []float64{0, 0}, Y: 1}); err == nil {
		t.Error("adding an existing ID must fail")
	}
	if _, err := ds.With(Record{ID: 20, X: []float64{0}, Y: 1}); err == nil {
		t.Error("adding a record of the wrong dimension must fail")
	}
	gone, _ := ds.Without(12)
	back, err := gone.With(Record{ID: 12, X: []float64{5, 5}, Y: 1})
	if err != nil {
		t.Fatalf("re-adding a deleted ID: %v", err)
	}
	if _, err := back.Without(12); err != nil {
		t.Errorf("deleting a re-added ID: %v", err)
	}
}

func TestApplyAllNamesTheFailingUpdate(t *testing.T) {
	ds := small(t)
	_, err := ds.ApplyAll([]Update{DeleteID(10), AddRecord(Record{ID: 30, X: []float64{1, 1}, Y: 1}), DeleteID(10)})
	if err == nil || !strings.Contains(err.Error(), "update 3 (delete 10)") || !strings.Contains(err.Error(), "already deleted") {
		t.Fatalf("got %v; want the third update named as deleting 10 again", err)
	}
	sets, err := ds.ApplyAll([]Update{DeleteID(10), AddRecord(Record{ID: 30, X: []float64{1, 1}, Y: 1})})
	if err != nil || len(sets) != 3 || sets[2].Len() != 4 || !sets[2].Has(30) || sets[2].Has(10) {
		t.Fatalf("sets %v err %v", sets, err)
	}
}

func TestSubsetAndValidation(t *testing.T) {
	ds := small(t)
	sub, err := ds.Subset([]int64{13, 10})
	if err != nil || sub.ID(0) != 13 || sub.ID(1) != 10 {
		t.Fatalf("subset order: %v %v", sub, err)
	}
	if _, err := ds.Subset([]int64{10, 10}); err == nil {
		t.Error("a repeated ID in a subset must fail")
	}
	if _, err := NewDataset([]int64{1, 1}, mat.NewDense(2, 1, []float64{0, 0}), []float64{1, 1}); err == nil {
		t.Error("duplicate IDs must fail")
	}
}

func TestPreprocessing(t *testing.T) {
	ds, err := NewDataset([]int64{0, 1, 2}, mat.NewDense(3, 2, []float64{1, 5, 2, 5, 3, 5}), []float64{3, 8, 3})
	if err != nil {
		t.Fatal(err)
	}
	st := ds.Standardize()
	var mean, sq float64
	for i := range 3 {
		mean += st.Row(i)[0]
		sq += st.Row(i)[0] * st.Row(i)[0]
		if st.Row(i)[1] != 0 {
			t.Errorf("a constant column standardises to 0, got %v", st.Row(i)[1])
		}
	}
	if abs(mean) > 1e-12 || abs(sq/3-1) > 1e-12 {
		t.Errorf("standardised column: mean %v, variance %v", mean/3, sq/3)
	}
	for i := range 3 {
		if n := Norm(ds.NormalizeRows().Row(i)); abs(n-1) > 1e-12 {
			t.Errorf("normalised row %d has norm %v", i, n)
		}
	}
	if m := ds.ScaleToUnitBall().MaxRowNorm(); abs(m-1) > 1e-12 {
		t.Errorf("ScaleToUnitBall: max norm %v", m)
	}
	sel, err := ds.SelectClasses(3, 8)
	if err != nil || sel.Label(0) != 1 || sel.Label(1) != -1 || sel.ID(1) != 1 {
		t.Errorf("SelectClasses: %v %v", sel, err)
	}
	if _, err := ds.SelectClasses(4, 5); err == nil {
		t.Error("selecting absent classes must fail")
	}
	// one class present, the other absent: a degenerate problem every model fits
	if _, err := ds.SelectClasses(3, 5); err == nil || !strings.Contains(err.Error(), "0 labelled 5") {
		t.Errorf("selecting one present class: %v; want a refusal naming the absent class", err)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// HashInto and HashRecords write the same canonical form, and any changed value changes it.
func TestHashInto(t *testing.T) {
	recs := []Record{{ID: 3, X: []float64{1, 2}, Y: 1}, {ID: 9, X: []float64{-1, 0.5}, Y: -1}}
	ds, err := FromRecords(2, recs)
	if err != nil {
		t.Fatal(err)
	}
	var a, b, c bytes.Buffer
	ds.HashInto(&a)
	HashRecords(&b, recs...)
	recs[1].X[1] = 0.25
	HashRecords(&c, recs...)
	if !bytes.Equal(a.Bytes(), b.Bytes()) || bytes.Equal(a.Bytes(), c.Bytes()) || a.Len() != 2*8*4 {
		t.Fatalf("hash forms: %d / %d bytes, equal %v, changed-equal %v", a.Len(), b.Len(), bytes.Equal(a.Bytes(), b.Bytes()), bytes.Equal(a.Bytes(), c.Bytes()))
	}
}
