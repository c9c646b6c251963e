package multiclass

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// Split is a train/test split of a multi-class dataset as the experiments use it, with
// the files read and a sentence on what was done to them.
type Split struct {
	Train, Test *Data
	Classes     int
	Files       []File // the files read, in the order read
	Title, Note string
}

// File is one file a loader read and its role in the data (e.g. "images", "labels").
type File struct {
	Role, Path string
}

// MNIST normalisation (torchvision's mean and standard deviation of the training pixels
// in [0, 1]).
const (
	mnistMean = 0.1307
	mnistStd  = 0.3081
)

// MNIST draws train + test rows at random (stream seed) from the MNIST test set of the
// datasets folder (reference.FindDatasets: --datasets, else the built-in copy of the
// repository's datasets/), averages pool × pool pixel blocks (pool 1 keeps 28 × 28; 2
// gives 14 × 14, d = 1,970 for softmax), and normalises pixels as torchvision's recipe does,
// ((x/255) − 0.1307)/0.3081.
func MNIST(datasetsDir string, train, test, pool int, seed uint64) (*Split, error) {
	dir, err := reference.FindDatasets(datasetsDir)
	if err != nil {
		return nil, err
	}
	images := filepath.Join(dir, "mnist-t10k", "t10k-images-idx3-ubyte.gz")
	labels := reference.DefaultLabelsPath(images)
	all, err := reference.LoadIDX(images, labels, reference.Limits{})
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
	build := func(rows []int) (*Data, error) {
		return PooledImages(all, rows, 28, pool, mnistMean, mnistStd, 10)
	}
	out := &Split{Classes: 10, Files: []File{{Role: "images", Path: images}, {Role: "labels", Path: labels}}}
	if out.Train, err = build(perm[:train]); err != nil {
		return nil, fmt.Errorf("hf mnist: %w", err)
	}
	if out.Test, err = build(perm[train : train+test]); err != nil {
		return nil, fmt.Errorf("hf mnist: %w", err)
	}
	out.Title = fmt.Sprintf("MNIST %d×%d", side, side)
	out.Note = fmt.Sprintf("Data: the MNIST test set (t10k) of the repository's datasets/mnist-t10k — the paper's training set is not available offline — %d training and %d test rows drawn at random (the paper's n = 1,000 and 0.4·n by default), pixels averaged over %d×%d blocks to %d×%d (d = %d for softmax; the spec's §5.11 allows downsampling, the paper uses 28×28, d = 7,850) and normalised as the paper's code does, (x/255 − 0.1307)/0.3081.",
		train, test, pool, pool, side, side, 10*(p+1))
	return out, nil
}

// Wine is UCI Wine from the repository's datasets/ (sklearn's wine_data.csv), split 80/20 at
// random (142/36 rows) and standardised with the training rows' means and standard
// deviations.
func Wine(datasetsDir string, seed uint64) (*Split, error) {
	dir, err := reference.FindDatasets(datasetsDir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "sklearn", "wine_data.csv")
	all, err := reference.LoadSklearnCSV(path, reference.Limits{})
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
	build := func(rows []int) (*Data, error) {
		x := mat.NewDense(len(rows), p, nil)
		y := make([]int, len(rows))
		for k, i := range rows {
			dst := x.RawRowView(k)
			for j, v := range all.Row(i) {
				dst[j] = (v - mean[j]) / sd[j]
			}
			y[k] = int(all.Label(i))
		}
		return NewData(x, y, 3)
	}
	out := &Split{Classes: 3, Files: []File{{Role: "wine", Path: path}}, Title: "UCI Wine"}
	if out.Train, err = build(perm[:train]); err != nil {
		return nil, fmt.Errorf("hf wine: %s: %w", path, err)
	}
	if out.Test, err = build(perm[train:]); err != nil {
		return nil, fmt.Errorf("hf wine: %s: %w", path, err)
	}
	out.Note = fmt.Sprintf("Data: UCI Wine (scikit-learn's wine_data.csv of the repository's datasets/), %d rows split at random into %d training and %d test rows (the review code's 80/20), standardised with the training rows' statistics.", n, train, n-train)
	return out, nil
}

// DefaultFashionMNIST is where Debian's dataset-fashion-mnist package puts the data.
const DefaultFashionMNIST = "/usr/share/datasets/fashion-mnist"

// Fashion-MNIST's pixel mean and standard deviation (torchvision's usual values).
const (
	fashionMean = 0.2860
	fashionStd  = 0.3530
)

// FashionMNIST draws train rows at random from Fashion-MNIST's training file and test
// rows from its test file (Debian's dataset-fashion-mnist in dir, DefaultFashionMNIST
// when empty), pools pixels over pool × pool blocks and standardises them.
func FashionMNIST(dir string, train, test, pool int, seed uint64) (*Split, error) {
	if dir == "" {
		dir = DefaultFashionMNIST
	}
	out := &Split{Classes: 10}
	load := func(name string, n int) (*reference.Dataset, []int, error) {
		images := filepath.Join(dir, name+"-images-idx3-ubyte.gz")
		labels := reference.DefaultLabelsPath(images)
		all, err := reference.LoadIDX(images, labels, reference.Limits{})
		if err != nil {
			return nil, nil, fmt.Errorf("fashion-mnist (Debian's dataset-fashion-mnist; --fashion-dir): %w", err)
		}
		if n < 1 || n > all.Len() {
			return nil, nil, fmt.Errorf("fashion-mnist %s: %d rows asked; the file holds %d", name, n, all.Len())
		}
		out.Files = append(out.Files, File{Role: name + " images", Path: images}, File{Role: name + " labels", Path: labels})
		return all, reference.Stream(seed, 0, "safe-fashion/"+name).Perm(all.Len())[:n], nil
	}
	trainAll, trainRows, err := load("train", train)
	if err != nil {
		return nil, err
	}
	testAll, testRows, err := load("t10k", test)
	if err != nil {
		return nil, err
	}
	if out.Train, err = PooledImages(trainAll, trainRows, 28, pool, fashionMean, fashionStd, 10); err != nil {
		return nil, fmt.Errorf("fashion-mnist: %w", err)
	}
	if out.Test, err = PooledImages(testAll, testRows, 28, pool, fashionMean, fashionStd, 10); err != nil {
		return nil, fmt.Errorf("fashion-mnist: %w", err)
	}
	side := 28 / pool
	out.Title = fmt.Sprintf("Fashion-MNIST %d×%d", side, side)
	out.Note = fmt.Sprintf("Fashion-MNIST (Debian's dataset-fashion-mnist): %d training rows drawn at random from its 60,000 training images and %d test rows from its 10,000 test images, pixels averaged over %d×%d blocks to %d×%d and standardised, (x/255 − 0.2860)/0.3530.",
		train, test, pool, pool, side, side)
	return out, nil
}

// PooledImages turns rows of a square-image dataset (side × side pixels in 0 … 255, as
// reference.LoadIDX reads them, the label in 0 … classes−1) into multi-class data: pixels
// averaged over pool × pool blocks, scaled to [0, 1] and standardised, (x/255 − mean)/std.
func PooledImages(all *reference.Dataset, rows []int, side, pool int, mean, std float64, classes int) (*Data, error) {
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
	return NewData(x, y, classes)
}
