// Package testenv is test plumbing shared across packages: where the real datasets are
// (the repository's datasets/) and how a test behaves when an optional one is missing;
// what code allocates; FIFOs and deadlines for code that must not block.
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// Datasets returns the path of the repository's datasets/ folder (the small real data
// sets, committed with their provenance): every test that reads real data reads it, so a
// clone needs nothing beside it. It fails the test when the folder is missing, which
// only a broken checkout can cause.
func Datasets(t testing.TB) string {
	t.Helper()
	root, err := moduleRoot()
	if err == nil {
		dir := filepath.Join(root, "datasets")
		if _, err = os.Stat(filepath.Join(dir, "SHA256SUMS")); err == nil {
			return dir
		}
	}
	t.Fatalf("the repository's datasets/ folder: %v", err)
	return ""
}

// FashionMNIST returns the folder of Debian's dataset-fashion-mnist package, which
// .ci/run installs. Missing, the test fails under CI and is skipped otherwise.
func FashionMNIST(t testing.TB) string {
	t.Helper()
	const dir = "/usr/share/datasets/fashion-mnist"
	_, err := os.Stat(filepath.Join(dir, "train-images-idx3-ubyte.gz"))
	if err == nil {
		return dir
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("Fashion-MNIST missing (apt-get install dataset-fashion-mnist): %v", err)
	}
	t.Skipf("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist): %v", err)
	return ""
}

// moduleRoot walks up from the working directory (a test runs in its package folder) to
// the folder holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// Allocated is the bytes f allocates: runtime.MemStats.TotalAlloc, which counts every
// allocation, freed or not, so code that reserves memory from a header's claim shows
// here even if it returns an error at once.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// FIFO makes a named pipe at path (and the folders above it) and returns path: an input
// that no one writes, so reading it, or opening it to read, blocks forever. Tests of
// code that must refuse such inputs without blocking run that code under WithinDeadline.
func FIFO(t testing.TB, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
	return path
}

// WithinDeadline runs f and fails the test, naming what, if f has not returned within d:
// code that blocks (on a FIFO, say) fails the test instead of hanging it. f runs on a
// goroutine of its own, which a failure leaves behind (a blocked open cannot be
// cancelled); the results f sets are the caller's to read once WithinDeadline returns.
func WithinDeadline(t testing.TB, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v: it blocked", what, d)
	}
}
