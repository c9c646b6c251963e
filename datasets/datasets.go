// Package datasets holds the small real data sets the toolkit's tests, examples and
// reproductions run on — scikit-learn's breast cancer, digits, diabetes, iris and wine,
// LIBLINEAR's heart_scale and the MNIST test set, about 1.9 MB — committed beside this
// file with their provenance and licences (PROVENANCE.md) and embedded in every binary
// that imports the package, so that a clone or an installed `audit` needs nothing beside
// it.
//
// The loaders of package reference read files by path (and reports name each input by
// its path and SHA-256), so Dir writes the embedded copy out once to a folder of the
// user's cache and returns it; FS gives the files without touching the disk. SHA256SUMS
// holds each data file's digest as it was staged from its source; TestFilesMatchSHA256SUMS
// holds the committed and the embedded copies to it.
package datasets

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
)

//go:embed PROVENANCE.md SHA256SUMS liblinear mnist-t10k sklearn
var files embed.FS

// FS is the embedded data sets, laid out as this folder: sklearn/breast_cancer.csv,
// liblinear/heart_scale, mnist-t10k/t10k-images-idx3-ubyte.gz, …
func FS() fs.FS { return files }

// Dir returns a folder holding the embedded data sets (the layout of FS), for code that
// reads them by path. The first call in a process writes them, if they are not there
// already with the same bytes, to datasets-HASH under the user's cache folder
// (os.UserCacheDir()/unlearnaudit; HASH is of the embedded files, so two versions of the
// tool never share a folder), or, when that cannot be written, to a new temporary folder;
// every file found there is compared with the embedded one and rewritten if it differs.
func Dir() (string, error) { return dirOnce() }

var dirOnce = sync.OnceValues(func() (string, error) {
	sum, err := contentHash()
	if err != nil {
		return "", fmt.Errorf("datasets: %w", err)
	}
	name := "datasets-" + sum[:16]
	var firstErr error
	if cache, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(cache, "unlearnaudit", name)
		if firstErr = writeOut(dir); firstErr == nil {
			return dir, nil
		}
	}
	tmp, err := os.MkdirTemp("", "unlearnaudit-"+name+"-")
	if err != nil {
		return "", fmt.Errorf("datasets: write the embedded copy: %w", cmpErr(firstErr, err))
	}
	if err := writeOut(tmp); err != nil {
		return "", fmt.Errorf("datasets: write the embedded copy: %w", cmpErr(firstErr, err))
	}
	return tmp, nil
})

// cmpErr is the first of two errors that is set.
func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// contentHash is the SHA-256 of every embedded file's path and bytes, in path order.
func contentHash() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// writeOut makes dir hold every embedded file: one already there with the same bytes is
// kept, any other is written beside it under a temporary name and renamed over it, so a
// reader (another process doing the same) never sees half a file.
func writeOut(dir string) error {
	return fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		want, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		if got, err := os.ReadFile(dst); err == nil && bytes.Equal(got, want) {
			return nil
		}
		f, err := os.CreateTemp(filepath.Dir(dst), "."+path.Base(p)+".*")
		if err != nil {
			return err
		}
		_, werr := f.Write(want)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(f.Name(), dst)
		}
		if werr != nil {
			os.Remove(f.Name())
		}
		return werr
	})
}
