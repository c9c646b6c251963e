package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// WriteFileAtomic renames a temporary file into place, which would replace whatever the
// path names with a plain file: a device, a FIFO, a symbolic link (not the file it points
// to). Each is refused, by name, and left as it was; a regular file is replaced.
func TestWriteFileAtomicRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	targets := map[string]string{} // path → what it is
	dev := filepath.Join(dir, "nul")
	// a character device of our own (1, 3: what /dev/null is), never a real one
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		targets[dev] = "a character device"
	} else {
		t.Logf("mknod (not root?): %v; the device case is skipped", err)
	}
	targets[testenv.FIFO(t, filepath.Join(dir, "ff"))] = "a FIFO"
	real := filepath.Join(dir, "real.md")
	if err := os.WriteFile(real, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "so")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	targets[link] = "a symbolic link"
	for path, what := range targets {
		before, _ := os.Lstat(path)
		var err error
		testenv.WithinDeadline(t, 5*time.Second, "WriteFileAtomic("+path+")", func() {
			err = WriteFileAtomic(path, []byte("report\n"))
		})
		if !errors.Is(err, regular.ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), what) {
			t.Errorf("WriteFileAtomic(%s): %v; want it refused as %s, by name", what, err, what)
		}
		if after, lerr := os.Lstat(path); lerr != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
			t.Errorf("%s was replaced: %v (%v)", what, after.Mode(), lerr)
		}
	}
	if b, _ := os.ReadFile(real); string(b) != "mine\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	// no temporary file is left behind
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	// a regular file is replaced
	if err := WriteFileAtomic(real, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new\n" {
		t.Errorf("regular file: %q", b)
	}
}
