package safeaudit

import (
	"fmt"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/audit/hfaudit"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// DefaultFashionMNIST is where Debian's dataset-fashion-mnist package puts the data.
const DefaultFashionMNIST = "/usr/share/datasets/fashion-mnist"

// Fashion-MNIST's pixel mean and standard deviation (torchvision's usual values).
const (
	fashionMean = 0.2860
	fashionStd  = 0.3530
)

// FashionData draws train rows at random from Fashion-MNIST's training file and test rows
// from its test file (Debian's dataset-fashion-mnist in dir), pools pixels over pool ×
// pool blocks and standardises them.
func FashionData(dir string, train, test, pool int, seed uint64) (*hfaudit.ExperimentData, error) {
	if dir == "" {
		dir = DefaultFashionMNIST
	}
	out := &hfaudit.ExperimentData{Classes: 10}
	load := func(name string, n int, stream string) (*reference.Dataset, []int, error) {
		images := filepath.Join(dir, name+"-images-idx3-ubyte.gz")
		labels := reference.DefaultLabelsPath(images)
		all, err := reference.LoadIDX(images, labels)
		if err != nil {
			return nil, nil, fmt.Errorf("fashion-mnist (Debian's dataset-fashion-mnist; --fashion-dir): %w", err)
		}
		if n < 1 || n > all.Len() {
			return nil, nil, fmt.Errorf("fashion-mnist %s: %d rows asked; the file holds %d", name, n, all.Len())
		}
		out.Inputs = append(out.Inputs, reports.Input{Role: name + " images", Path: images}, reports.Input{Role: name + " labels", Path: labels})
		return all, reference.Stream(seed, 0, "safe-fashion/"+name).Perm(all.Len())[:n], nil
	}
	trainAll, trainRows, err := load("train", train, "train")
	if err != nil {
		return nil, err
	}
	testAll, testRows, err := load("t10k", test, "t10k")
	if err != nil {
		return nil, err
	}
	if out.Train, err = hfaudit.PooledImages(trainAll, trainRows, 28, pool, fashionMean, fashionStd, 10); err != nil {
		return nil, fmt.Errorf("fashion-mnist: %w", err)
	}
	if out.Test, err = hfaudit.PooledImages(testAll, testRows, 28, pool, fashionMean, fashionStd, 10); err != nil {
		return nil, fmt.Errorf("fashion-mnist: %w", err)
	}
	side := 28 / pool
	out.Title = fmt.Sprintf("Fashion-MNIST %d×%d", side, side)
	out.Note = fmt.Sprintf("Fashion-MNIST (Debian's dataset-fashion-mnist): %d training rows drawn at random from its 60,000 training images and %d test rows from its 10,000 test images, pixels averaged over %d×%d blocks to %d×%d and standardised, (x/255 − 0.2860)/0.3530.",
		train, test, pool, pool, side, side)
	return out, nil
}
