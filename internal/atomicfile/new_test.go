package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// WriteNew writes a new file, refuses one that exists without touching it (whatever it
// is), and removes the file it made when the body cannot be written.
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plan.json")
	if err := WriteNew(p, []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteNew(p, []byte("second\n"), 0o644)
	var nc *NotCreatedError
	if !errors.As(err, &nc) || !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteNew over an existing file: %v; want a NotCreatedError of fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first\n" {
		t.Errorf("the existing file holds %q after a refused WriteNew, want it unchanged", b)
	}
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "link")); err == nil {
		if err := WriteNew(filepath.Join(dir, "link"), []byte("x"), 0o644); !errors.As(err, &nc) {
			t.Errorf("WriteNew through a dangling link: %v; want it refused", err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "elsewhere")); err == nil {
			t.Error("WriteNew created the file a dangling link points to")
		}
	}
	// a file whose writes fail: it is closed before WriteNew writes to it
	defer func(f func(string, int, os.FileMode) (*os.File, error)) { openFile = f }(openFile)
	openFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := os.OpenFile(name, flag, perm)
		if err == nil {
			f.Close()
		}
		return f, err
	}
	q := filepath.Join(dir, "torn.json")
	if err := WriteNew(q, []byte("body"), 0o644); err == nil || errors.As(err, &nc) {
		t.Errorf("WriteNew with a failing write: %v; want the write's error", err)
	}
	if _, err := os.Lstat(q); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file of a failed write is left (%v); want it removed", err)
	}
}
