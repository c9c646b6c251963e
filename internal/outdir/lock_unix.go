//go:build unix && !aix

package outdir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// lock is a held flock(2) on the folder's lock file. The kernel releases it when its
// holder exits, however it exits: a lock left by a dead process is free, and the next
// holder rewrites the record of who holds it.
type lock struct {
	f    *os.File
	path string
}

// acquire takes the folder's lock without waiting.
func acquire(dir string) (*lock, error) {
	path := filepath.Join(dir, LockFile)
	for range 100 {
		// not through a symbolic link (O_NOFOLLOW), and without blocking on a FIFO
		// (O_NONBLOCK): the lock is a regular file of the folder's own, or refused
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|regular.NoFollow|unix.O_NONBLOCK, 0o644)
		if regular.IsLinkRefusal(err, path) {
			return nil, fmt.Errorf("lock %s: %w", dir, regular.Check(path, os.ModeSymlink))
		}
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		st, err := f.Stat()
		if err == nil {
			err = regular.Check(path, st.Mode())
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			h := readHolder(f)
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, &LockedError{Dir: dir, PID: h.PID, Host: h.Host}
			}
			return nil, fmt.Errorf("lock %s: %w (the file system must support flock: one writer per folder)", path, err)
		}
		// A holder releasing the lock removes the file first: if it did so between our
		// open and our flock, we hold a lock on a file no one else will open. Start over.
		if !samePath(f, path) {
			f.Close()
			continue
		}
		rec := thisHolder()
		// written over the old record, then cut to length: a reader never sees it empty
		if _, err := f.WriteAt(rec, 0); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if err := f.Truncate(int64(len(rec))); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return &lock{f: f, path: path}, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps being replaced", path)
}

// samePath reports whether path still names the open file f.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// release removes the lock file while still holding it (see acquire), then unlocks.
func (l *lock) release() error {
	var err error
	if samePath(l.f, l.path) {
		err = os.Remove(l.path)
	}
	return errors.Join(err, l.f.Close()) // closing the last descriptor releases the flock
}
