package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is what Open's refusal of a FIFO, device, socket or folder wraps.
var ErrNotRegular = errors.New("not a regular file")

// An Error is Open's refusal of a path that is not a regular file: what it is instead.
type Error struct {
	Path string
	Kind string // "a FIFO", "a device", "a socket", "a folder", …
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %v (%s); want a file", e.Path, ErrNotRegular, e.Kind)
}

func (e *Error) Unwrap() error { return ErrNotRegular }

// Open opens path for reading if it is a regular file, without blocking (see the package
// documentation); anything else is refused with an *Error. The errors of os.Open are
// returned as they are (a *fs.PathError naming the path).
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &Error{Path: path, Kind: kind(st.Mode())}
	}
	return f, nil
}

// Replaceable refuses, with an *Error, a path that exists and is not a regular file: a
// writer that renames a new file into place would otherwise replace a device, a FIFO or a
// symbolic link (and not the file it points to) with a plain file. The path is not
// followed (Lstat): a symbolic link is refused as one. An absent path is no error.
func Replaceable(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &Error{Path: path, Kind: kind(st.Mode())}
	}
	return nil
}

// Check is nil for a regular file's mode, else the *Error naming path and what it is:
// for a caller that opened the file its own way (to write it, say) and checks it by fstat.
func Check(path string, mode fs.FileMode) error {
	if mode.IsRegular() {
		return nil
	}
	return &Error{Path: path, Kind: kind(mode)}
}

// kind names a file mode that is not regular.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "of mode " + m.String()
}

// A TooLargeError is ReadFile's refusal of a file longer than its limit.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %d bytes; not a file of this kind", e.Path, e.Limit)
}

// ReadFile reads a regular file (Open) of at most limit bytes; a longer one is refused with
// a *TooLargeError, having read no more than limit+1 bytes (none, when its size says so).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return b, nil
}
