//go:build !unix || aix

package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// lock is, where flock(2) is not available (AIX, Windows, Plan 9, wasm), the lock file itself, created exclusively.
// A process that dies holding it leaves it behind: the error then names the holder, and
// the file is removed by hand once that process is known to be gone.
type lock struct {
	f    *os.File
	path string
}

func acquire(dir string) (*lock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		h := holder{}
		if g, err := regular.Open(path); err == nil {
			h = readHolder(g)
			g.Close()
		}
		return nil, &LockedError{Dir: dir, PID: h.PID, Host: h.Host}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if _, err := f.Write(thisHolder()); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &lock{f: f, path: path}, nil
}

func (l *lock) release() error {
	return errors.Join(l.f.Close(), os.Remove(l.path))
}
