// Package atomicfile writes a file whole or not at all: through a temporary file in the
// same folder, renamed into place, refusing to replace anything but a regular file. The
// trial engine's shard manifests and merged checkpoints are written with it.
//
// It is a copy of the root's audit.WriteAtomic family (audit/files.go), made for the
// split of the audit root (issue 42, item 2) so that audit/trials need not import the
// root; item 1 moves the root's copy into internal as well, and the two become one when
// the branches merge.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// WriteFileAtomic writes body to path through a temporary file in the same directory,
// renamed into place: a reader never sees half a file, and a failure leaves none.
func WriteFileAtomic(path string, body []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(body)
		return err
	})
}

// WriteAtomic is WriteFileAtomic for a body too large to hold: write streams it into the
// temporary file (buffered), which is renamed into place only if write succeeds. A path
// that exists and is not a regular file (a device, a FIFO, a symbolic link) is refused,
// not replaced: see regular.Replaceable.
func WriteAtomic(path string, write func(io.Writer) error) error {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer root.Close()
	return WriteAtomicIn(root, filepath.Base(path), path, write)
}

// WriteAtomicIn is WriteAtomic of the file name directly inside the folder root (path is
// its name for messages): the temporary file is created, and renamed, beneath root, and
// a name that exists and is not a regular file is refused, not replaced.
func WriteAtomicIn(root *os.Root, name, path string, write func(io.Writer) error) error {
	replaceable := func() error {
		st, err := root.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := regular.Check(path, st.Mode()); err != nil {
			return fmt.Errorf("write %s: refused: %w", path, err)
		}
		return nil
	}
	if err := replaceable(); err != nil {
		return err
	}
	tmp, tmpName, err := createTemp(root, "."+name+".")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	merr := tmp.Chmod(0o644)
	cerr := tmp.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		root.Remove(tmpName)
		return fmt.Errorf("write %s: %w", path, err)
	}
	// checked again: the write may have taken a while
	if err := replaceable(); err != nil {
		root.Remove(tmpName)
		return err
	}
	if err := root.Rename(tmpName, name); err != nil {
		root.Remove(tmpName)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// createTemp is os.CreateTemp beneath root: a new file named prefix and a random number,
// created exclusively (O_EXCL: no link followed, nothing opened that exists), mode 0600.
func createTemp(root *os.Root, prefix string) (*os.File, string, error) {
	for range 10000 {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36)
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("create a temporary file %s*: %w", prefix, fs.ErrExist)
}
