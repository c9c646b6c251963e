package multiclass

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// Dataset is the data as a reference.Dataset — record IDs 0 … n−1, the labels as numbers
// — for code that draws subsets by record ID, such as package mia's attacks.
func (d *Data) Dataset() (*reference.Dataset, error) {
	ids := make([]int64, d.Len())
	labels := make([]float64, d.Len())
	for i := range ids {
		ids[i], labels[i] = int64(i), float64(d.Y[i])
	}
	return reference.NewDataset(ids, mat.DenseCopyOf(d.X), labels)
}

// FromDataset reads a reference.Dataset whose labels are the classes 0 … classes−1 back
// into Data (the features copied).
func FromDataset(ds *reference.Dataset, classes int) (*Data, error) {
	y := make([]int, ds.Len())
	for i := range y {
		l := ds.Label(i)
		if l != float64(int(l)) {
			return nil, fmt.Errorf("multiclass data: record %d has label %v, not a class", ds.ID(i), l)
		}
		y[i] = int(l)
	}
	return NewData(mat.DenseCopyOf(ds.Features()), y, classes)
}
