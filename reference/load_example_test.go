package reference_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The package comment's pipeline on the repository's copy of scikit-learn's breast-cancer
// data: record IDs are the file's row numbers, preprocessing returns new datasets, and a
// deletion leaves the dataset it was applied to as it was.
func ExampleLoadSklearnCSV() {
	ds, err := reference.LoadSklearnCSV("../datasets/sklearn/breast_cancer.csv", reference.Limits{}) // IDs are file row numbers
	if err != nil {
		panic(err)
	}
	ds = ds.BinaryLabels(1).Standardize().NormalizeRows() // ±1 labels, ‖x‖ = 1
	next, err := ds.Apply(reference.DeleteID(17))         // a new dataset; ds is unchanged
	if err != nil {
		panic(err)
	}
	fmt.Println(ds.Len(), ds.Dim(), next.Len())
	// Output:
	// 569 30 568
}
