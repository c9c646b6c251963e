package hfaudit

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/multiclass"
	"github.com/unlearnaudit/unlearnaudit/reports"
	"gonum.org/v1/gonum/mat"
)

// ExperimentData is a train/test split of a multi-class dataset as HF's experiments use
// it, with the files read and a sentence on what was done to them.
type ExperimentData struct {
	Train, Test *multiclass.Data
	Classes     int
	Inputs      []reports.Input
	Title, Note string
}

// MNIST normalisation of the paper's code (torchvision's mean and standard deviation of
// the training pixels in [0, 1]).
const (
	mnistMean = 0.1307
	mnistStd  = 0.3081
)

// MNISTData draws train + test rows at random (stream seed) from the MNIST test set in the
// shared datasets, averages pool × pool pixel blocks (pool 1 keeps 28 × 28; 2 gives the
// spec's 14 × 14, d = 1,970 for softmax), and normalises pixels as the paper's code does,
// ((x/255) − 0.1307)/0.3081.
func MNISTData(datasetsDir string, train, test, pool int, seed uint64) (*ExperimentData, error) {
	dir, err := reference.FindSharedDatasets(datasetsDir)
	if err != nil {
		return nil, err
	}
	images := filepath.Join(dir, "mnist-t10k", "t10k-images-idx3-ubyte.gz")
	labels := reference.DefaultLabelsPath(images)
	all, err := reference.LoadIDX(images, labels)
	if err != nil {
		return nil, err
	}
	if pool < 1 || 28%pool != 0 {
		return nil, fmt.Errorf("hf mnist: pool %d; want 1, 2, 4, 7, 14 or 28", pool)
	}
	if train < 2 || test < 1 || train+test > all.Len() {
		return nil, fmt.Errorf("hf mnist: %d training and %d test rows; the file holds %d", train, test, all.Len())
	}
	side := 28 / pool
	p := side * side
	perm := reference.Stream(seed, 0, "hf-mnist/split").Perm(all.Len())
	build := func(rows []int) (*multiclass.Data, error) {
		return PooledImages(all, rows, 28, pool, mnistMean, mnistStd, 10)
	}
	out := &ExperimentData{Classes: 10, Inputs: []reports.Input{{Role: "images", Path: images}, {Role: "labels", Path: labels}}}
	if out.Train, err = build(perm[:train]); err != nil {
		return nil, fmt.Errorf("hf mnist: %w", err)
	}
	if out.Test, err = build(perm[train : train+test]); err != nil {
		return nil, fmt.Errorf("hf mnist: %w", err)
	}
	out.Title = fmt.Sprintf("MNIST %d×%d", side, side)
	out.Note = fmt.Sprintf("Data: the MNIST test set (t10k) from ../shared/datasets — the paper's training set is not available offline — %d training and %d test rows drawn at random (the paper's n = 1,000 and 0.4·n by default), pixels averaged over %d×%d blocks to %d×%d (d = %d for softmax; the spec's §5.11 allows downsampling, the paper uses 28×28, d = 7,850) and normalised as the paper's code does, (x/255 − 0.1307)/0.3081.",
		train, test, pool, pool, side, side, 10*(p+1))
	return out, nil
}

// WineData is UCI Wine from the shared datasets (sklearn's wine_data.csv), split 80/20 at
// random (142/36 rows, the review code's split sizes) and standardised with the training
// rows' means and standard deviations.
func WineData(datasetsDir string, seed uint64) (*ExperimentData, error) {
	dir, err := reference.FindSharedDatasets(datasetsDir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "sklearn", "wine_data.csv")
	all, err := reference.LoadSklearnCSV(path)
	if err != nil {
		return nil, err
	}
	n, p := all.Len(), all.Dim()
	train := int(math.Round(0.8 * float64(n)))
	perm := reference.Stream(seed, 0, "hf-wine/split").Perm(n)
	mean, sd := make([]float64, p), make([]float64, p)
	for _, i := range perm[:train] {
		for j, v := range all.Row(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(train)
	}
	for _, i := range perm[:train] {
		for j, v := range all.Row(i) {
			sd[j] += (v - mean[j]) * (v - mean[j])
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / float64(train))
		if sd[j] == 0 {
			sd[j] = 1
		}
	}
	build := func(rows []int) (*multiclass.Data, error) {
		x := mat.NewDense(len(rows), p, nil)
		y := make([]int, len(rows))
		for k, i := range rows {
			dst := x.RawRowView(k)
			for j, v := range all.Row(i) {
				dst[j] = (v - mean[j]) / sd[j]
			}
			y[k] = int(all.Label(i))
		}
		return multiclass.NewData(x, y, 3)
	}
	out := &ExperimentData{Classes: 3, Inputs: []reports.Input{{Role: "wine", Path: path}}, Title: "UCI Wine"}
	if out.Train, err = build(perm[:train]); err != nil {
		return nil, fmt.Errorf("hf wine: %s: %w", path, err)
	}
	if out.Test, err = build(perm[train:]); err != nil {
		return nil, fmt.Errorf("hf wine: %s: %w", path, err)
	}
	out.Note = fmt.Sprintf("Data: UCI Wine (scikit-learn's wine_data.csv from ../shared/datasets), %d rows split at random into %d training and %d test rows (the review code's 80/20), standardised with the training rows' statistics.", n, train, n-train)
	return out, nil
}

// Accuracy is the fraction of rows whose largest logit — the smallest loss over the
// labels — is the label.
func Accuracy(m multiclass.Model, w []float64, data *multiclass.Data) float64 {
	right := 0
	for i := range data.Len() {
		best, arg := math.Inf(1), -1
		for k := range m.Classes() {
			if l := m.Loss(w, data.Row(i), k); l < best {
				best, arg = l, k
			}
		}
		if arg == data.Y[i] {
			right++
		}
	}
	return float64(right) / float64(data.Len())
}

// PooledImages turns rows of a square-image dataset (side × side pixels in 0 … 255, as
// LoadIDX reads them, the label in 0 … classes−1) into multi-class data: pixels averaged
// over pool × pool blocks, scaled to [0, 1] and standardised, (x/255 − mean)/std.
func PooledImages(all *reference.Dataset, rows []int, side, pool int, mean, std float64, classes int) (*multiclass.Data, error) {
	if pool < 1 || side%pool != 0 {
		return nil, fmt.Errorf("pool %d does not divide the %d-pixel side", pool, side)
	}
	out := side / pool
	x := mat.NewDense(len(rows), out*out, nil)
	y := make([]int, len(rows))
	for k, i := range rows {
		src := all.Row(i)
		if len(src) != side*side {
			return nil, fmt.Errorf("row %d has %d pixels; want %d × %d", i, len(src), side, side)
		}
		dst := x.RawRowView(k)
		for r := range side {
			for c := range side {
				dst[(r/pool)*out+c/pool] += src[r*side+c]
			}
		}
		for j := range dst {
			dst[j] = (dst[j]/float64(pool*pool)/255 - mean) / std
		}
		y[k] = int(all.Label(i))
	}
	return multiclass.NewData(x, y, classes)
}
