package atomicfile

import "os"

// A NotCreatedError is WriteNew's refusal to create its file: the file exists (never
// replaced: errors.Is(err, fs.ErrExist)) or cannot be made. Its text is the cause's.
type NotCreatedError struct{ Err error }

func (e *NotCreatedError) Error() string { return e.Err.Error() }
func (e *NotCreatedError) Unwrap() error { return e.Err }

// WriteNew writes body to a new file at path, with mode perm: a file already there,
// whatever it is, is refused, not replaced (O_EXCL, so one that appears meanwhile is
// refused too), and a file that cannot be written whole is removed, so that none is left
// that looks written. It is for records that must never change once made (a canary plan
// must match the training run drawn from it). A failure to create is a *NotCreatedError.
func WriteNew(path string, body []byte, perm os.FileMode) error {
	f, err := openFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return &NotCreatedError{err}
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// openFile is os.OpenFile; a test hands WriteNew a file that fails its writes.
var openFile = os.OpenFile
