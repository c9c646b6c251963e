package outdir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/unlearnaudit/unlearnaudit/internal/atomicfile"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// Every file operation inside the folder goes through its os.Root, which never leaves
// the folder, and through parent, which refuses a symbolic link at any element of a name
// (a *regular.LinkError): os.Root follows a link that stays inside the folder, and a link
// planted there (OUT/trials pointing at the user's folder, or at OUT itself) would have
// the tool write where it was not told to. Each element is looked at (Lstat) before it is
// entered, and what is entered is checked to be what was looked at (os.SameFile): a link
// swapped in between the two is refused too, and could only have led inside the folder.
// This is portable (os.Root exists everywhere), where openat2's RESOLVE_NO_SYMLINKS is
// Linux's alone, from 5.6, and covers opening only, not the mkdir, rename and unlink
// a folder's writer also does.

// parent opens the folder holding the named file (slash-separated, relative to the
// folder) beneath d's root, every folder on the way a folder of its own, not a link; with
// create, missing ones are created and remembered for Close. It returns the folder, the
// name's last element and a function that closes what parent opened.
func (d *Dir) parent(name string, create bool) (*os.Root, string, func(), error) {
	elems := strings.Split(name, "/")
	cur, opened := d.root, []*os.Root{}
	done := func() {
		for _, r := range opened {
			r.Close()
		}
	}
	for i, e := range elems[:len(elems)-1] {
		if e == "." {
			continue
		}
		rel := strings.Join(elems[:i+1], "/")
		li, err := cur.Lstat(e)
		if create && errors.Is(err, fs.ErrNotExist) {
			if err = cur.Mkdir(e, 0o755); err == nil {
				d.createdIn = append([]string{rel}, d.createdIn...)
			} else if !errors.Is(err, fs.ErrExist) {
				done()
				return nil, "", nil, fmt.Errorf("create %s: %w", d.Join(rel), err)
			}
			li, err = cur.Lstat(e)
		}
		if err != nil {
			done()
			return nil, "", nil, err
		}
		if li.Mode()&fs.ModeSymlink != 0 {
			done()
			return nil, "", nil, &regular.LinkError{Path: d.Join(rel)}
		}
		if !li.IsDir() {
			done()
			return nil, "", nil, fmt.Errorf("%s: not a folder (%w)", d.Join(rel), syscall.ENOTDIR)
		}
		sub, err := cur.OpenRoot(e)
		if err != nil {
			done()
			return nil, "", nil, fmt.Errorf("open %s: %w", d.Join(rel), err)
		}
		opened = append(opened, sub)
		if si, err := sub.Stat("."); err != nil || !os.SameFile(li, si) {
			done()
			return nil, "", nil, &regular.LinkError{Path: d.Join(rel)} // replaced since it was looked at
		}
		cur = sub
	}
	return cur, elems[len(elems)-1], done, nil
}

// lstat is os.Lstat of the named file, beneath the folder (see parent).
func (d *Dir) lstat(name string) (fs.FileInfo, error) {
	r, base, done, err := d.parent(name, false)
	if err != nil {
		return nil, err
	}
	defer done()
	return r.Lstat(base)
}

// OpenFile is os.OpenFile of the named file (slash-separated, relative to the folder)
// beneath the folder, following no symbolic link: one at any element of the name is a
// *regular.LinkError. It is how the audit engine opens its checkpoints (atomicfile.Folder).
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	r, base, done, err := d.parent(name, false)
	if err != nil {
		return nil, err
	}
	defer done()
	excl := flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL
	li, lerr := r.Lstat(base)
	switch {
	case lerr == nil && li.Mode()&fs.ModeSymlink != 0:
		return nil, &regular.LinkError{Path: d.Join(name)}
	case excl:
		// O_CREATE|O_EXCL: os.Root follows no link, and opens nothing that exists
		return r.OpenFile(base, flag, perm)
	case lerr != nil && !errors.Is(lerr, fs.ErrNotExist):
		return nil, lerr
	}
	f, err := r.OpenFile(base, flag, perm)
	if err != nil {
		return nil, err
	}
	// what was opened is what was looked at (or, created, what is there now): a link
	// swapped in between is refused
	fi, err := f.Stat()
	if err == nil && lerr != nil {
		li, lerr = r.Lstat(base)
	}
	if err != nil || lerr != nil || !os.SameFile(li, fi) {
		f.Close()
		return nil, &regular.LinkError{Path: d.Join(name)}
	}
	return f, nil
}

// WriteAtomic writes the named file (slash-separated, relative to the folder) through a
// temporary file beside it, renamed into place, beneath the folder and following no
// link (atomicfile.WriteAtomicIn). It records nothing in the manifest: WriteFiles does, and
// an appended file (a checkpoint: atomicfile.Folder) is recorded by Appending.
func (d *Dir) WriteAtomic(name string, write func(io.Writer) error) error {
	r, base, done, err := d.parent(name, false)
	if err != nil {
		return fmt.Errorf("write %s: %w", d.Join(name), err)
	}
	defer done()
	return atomicfile.WriteAtomicIn(r, base, d.Join(name), write)
}

// remove removes the named file beneath the folder (unlink follows no link).
func (d *Dir) remove(name string) error {
	r, base, done, err := d.parent(name, false)
	if err != nil {
		return err
	}
	defer done()
	return r.Remove(base)
}

// readFile reads the named file beneath the folder, a regular file of at most limit
// bytes (regular.ReadFile's refusals, by the file's path).
func (d *Dir) readFile(name string, limit int64) ([]byte, error) {
	f, err := d.openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	path := d.Join(name)
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, &regular.TooLargeError{Path: path, Limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, &regular.TooLargeError{Path: path, Limit: limit}
	}
	return b, nil
}

// openRegular opens the named file for reading beneath the folder, without blocking on
// a FIFO: a *regular.Error if it is not a regular file.
func (d *Dir) openRegular(name string) (*os.File, error) {
	f, err := d.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = regular.Check(d.Join(name), st.Mode())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// The folder is an atomicfile.Folder: the engine's checkpoints and the merged trials are
// written through it.
var _ atomicfile.Folder = (*Dir)(nil)
