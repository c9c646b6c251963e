//go:build unix && !aix

package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// lock is a held flock(2) on the folder's lock file. The kernel releases it when its
// holder exits, however it exits: a lock left by a dead process is free, and the next
// opener removes it and creates its own.
type lock struct {
	f    *os.File
	root *os.Root
}

// lockTries bounds acquire's attempts: a lock file replaced, or seen empty, between two
// steps is looked at again, up to this many times, lockWait apart for an empty one.
const (
	lockTries = 100
	lockWait  = 4 * time.Millisecond
)

// acquire takes the folder's lock without waiting. The lock file is created exclusively
// (O_CREATE|O_EXCL, which follows no link and opens nothing that exists), so a file
// already there is never written: its flock held is a *LockedError; a stale lock of this
// tool's (see takeStale) is removed and created anew; anything else is refused, untouched.
func acquire(root *os.Root, dir string) (*lock, error) {
	path := filepath.Join(dir, LockFile)
	empty := false
	for range lockTries {
		f, err := root.OpenFile(LockFile, os.O_RDWR|os.O_CREATE|os.O_EXCL|unix.O_NONBLOCK, 0o644)
		if err == nil {
			l, err := holdNew(f, root, dir, path)
			if l != nil || err != nil {
				return l, err
			}
			continue // removed before we held it: start over
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if empty, err = takeStale(root, dir, path); err != nil {
			return nil, err
		}
		if empty {
			time.Sleep(lockWait)
		}
	}
	if empty {
		return nil, fmt.Errorf("lock %s: %s is empty and no process holds it: not a lock record of this tool (a run killed the instant it created its lock leaves one); remove it if no audit is writing %s", dir, path, dir)
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps being replaced", path)
}

// holdNew flocks the lock file f that acquire just created and writes this process in as
// its holder. Another opener may hold the flock for a moment, looking at the file before
// it has a record (takeStale lets go of an empty one): that is waited for, a little. It
// returns neither a lock nor an error if the file was removed before it was held.
func holdNew(f *os.File, root *os.Root, dir, path string) (*lock, error) {
	var err error
	for range lockTries {
		if err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); !errors.Is(err, unix.EWOULDBLOCK) {
			break
		}
		time.Sleep(lockWait)
	}
	if err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			h := readHolder(f)
			return nil, &LockedError{Dir: dir, PID: h.PID, Host: h.Host}
		}
		return nil, fmt.Errorf("lock %s: %w (the file system must support flock: one writer per folder)", path, err)
	}
	// A holder releasing the lock removes the file first: if it did so between our
	// create and our flock, we hold a lock on a file no one else will open.
	if !samePath(root, f) {
		f.Close()
		return nil, nil
	}
	if _, err := f.WriteAt(thisHolder(), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &lock{f: f, root: root}, nil
}

// takeStale looks at the lock file already in the folder, writing nothing to it. Held by
// a live process (its flock taken), it is a *LockedError naming the holder. Free, it is
// removed if it is a stale lock of this tool's: a regular file of one link, owned by this
// user, holding a holder record (lock.go) — removed while flocked, as release removes
// it, so that an opener that has it open too sees it replaced and looks again. Anything
// else (a hard link to another file, someone else's file, other content, a FIFO, a
// symbolic link) is refused, naming it. empty reports a file with no record yet (its
// creator between its create and its flock, or killed there): the caller looks again.
func takeStale(root *os.Root, dir, path string) (empty bool, err error) {
	li, err := root.Lstat(LockFile)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // released meanwhile: create it again
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := regular.Check(path, li.Mode()); err != nil {
		return false, fmt.Errorf("lock %s: %w", dir, err)
	}
	// read-only and without blocking: nothing is written, and a FIFO swapped in does
	// not hang the open (it is then not the file seen, and looked at again)
	f, err := root.OpenFile(LockFile, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", dir, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return false, fmt.Errorf("lock %s: %w", dir, err)
	} else if !os.SameFile(li, st) {
		return false, nil // replaced between the look and the open (a link followed?): again
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return false, fmt.Errorf("lock %s: %w (the file system must support flock: one writer per folder)", path, err)
		}
		h := readHolder(f)
		if !samePath(root, f) {
			return false, nil // taken over meanwhile: the new holder is named next time
		}
		return false, &LockedError{Dir: dir, PID: h.PID, Host: h.Host}
	}
	// flocked: no live process holds it
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", dir, err)
	}
	if !samePath(root, f) {
		return false, nil // released (removed) between our open and our flock
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		if sys.Nlink != 1 {
			return false, fmt.Errorf("lock %s: %s has %d links (a hard link to another file): not a lock file this tool created, and left as it is; move it away", dir, path, sys.Nlink)
		}
		if uid := os.Getuid(); int(sys.Uid) != uid {
			return false, fmt.Errorf("lock %s: %s belongs to user %d, not to this user (%d): not a lock file this process's user created, and left as it is; move it away", dir, path, sys.Uid, uid)
		}
	}
	if st.Size() == 0 {
		return true, nil
	}
	if _, ok := parseHolder(f); !ok {
		return false, fmt.Errorf("lock %s: %s does not hold a lock record of this tool ({\"pid\":…,\"host\":…}): it is left as it is; move it away", dir, path)
	}
	if err := root.Remove(LockFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("lock %s: remove the stale %s: %w", dir, path, err)
	}
	return false, nil
}

// samePath reports whether the lock file's name in root still names the open file f.
func samePath(root *os.Root, f *os.File) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := root.Lstat(LockFile)
	return err == nil && os.SameFile(a, b)
}

// release removes the lock file while still holding it (see acquire), then unlocks.
func (l *lock) release() error {
	var err error
	if samePath(l.root, l.f) {
		err = l.root.Remove(LockFile)
	}
	return errors.Join(err, l.f.Close()) // closing the last descriptor releases the flock
}
