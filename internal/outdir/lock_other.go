//go:build !unix || aix

package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// lock is, where flock(2) is not available (AIX, Windows, Plan 9, wasm), the lock file itself, created exclusively.
// A process that dies holding it leaves it behind: the error then names the holder, and
// the file is removed by hand once that process is known to be gone. A file already
// there is never written nor removed: without flock no stale lock can be told from a
// live one.
type lock struct {
	f    *os.File
	root *os.Root
}

func acquire(root *os.Root, dir string) (*lock, error) {
	path := filepath.Join(dir, LockFile)
	// O_CREATE|O_EXCL: os.Root follows no link then, and opens nothing that exists
	f, err := root.OpenFile(LockFile, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		h := holder{}
		if li, err := root.Lstat(LockFile); err == nil && li.Mode().IsRegular() {
			if g, err := root.Open(LockFile); err == nil {
				if gi, err := g.Stat(); err == nil && os.SameFile(li, gi) {
					h = readHolder(g)
				}
				g.Close()
			}
		}
		return nil, &LockedError{Dir: dir, PID: h.PID, Host: h.Host}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if _, err := f.Write(thisHolder()); err != nil {
		f.Close()
		root.Remove(LockFile)
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &lock{f: f, root: root}, nil
}

// release closes the lock file, then removes it if it is still the one this process
// created (Windows removes no open file).
func (l *lock) release() error {
	a, aerr := l.f.Stat()
	err := l.f.Close()
	if aerr == nil {
		if b, berr := l.root.Lstat(LockFile); berr == nil && os.SameFile(a, b) {
			err = errors.Join(err, l.root.Remove(LockFile))
		}
	}
	return err
}
