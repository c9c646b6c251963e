package regular

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// A FIFO with no writer, a character device and a folder are refused at once, naming the
// path and what it is; a regular file opens. Open must not block on the FIFO: it runs
// under a deadline.
func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := testenv.FIFO(t, filepath.Join(dir, "model.npy"))
	file := filepath.Join(dir, "spec.json")
	os.WriteFile(file, []byte("{}"), 0o644)
	for _, c := range []struct{ path, want string }{
		{fifo, "a FIFO"},
		{"/dev/zero", "a character device"},
		{dir, "a folder"},
	} {
		var err error
		testenv.WithinDeadline(t, 5*time.Second, "Open("+c.path+")", func() {
			var f *os.File
			if f, err = Open(c.path); err == nil {
				f.Close()
			}
		})
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s): %v; want it refused as %s, by name", c.path, err, c.want)
		}
	}
	f, err := Open(file)
	if err != nil {
		t.Fatalf("regular file: %v", err)
	}
	f.Close()
	// a symbolic link to a regular file is a regular file; one to a FIFO is not
	link := filepath.Join(dir, "link")
	os.Symlink(fifo, link)
	if _, err := Open(link); !errors.Is(err, ErrNotRegular) {
		t.Errorf("link to a FIFO: %v", err)
	}
}

// ReadFile holds at most limit+1 bytes and refuses a longer file by name; a device is
// refused before any read, so /dev/zero costs nothing.
func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "spec.json")
	os.WriteFile(p, []byte(strings.Repeat("x", 101)), 0o644)
	var tl *TooLargeError
	if _, err := ReadFile(p, 100); !errors.As(err, &tl) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "100 bytes") {
		t.Errorf("101 bytes at limit 100: %v", err)
	}
	if b, err := ReadFile(p, 101); err != nil || len(b) != 101 {
		t.Errorf("101 bytes at limit 101: %d bytes, %v", len(b), err)
	}
	if _, err := ReadFile("/dev/zero", 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: %v", err)
	}
}

// A file whose size already says it is too long is refused before any read: a 1 GiB file
// (sparse: it costs no disk) at a 1 MiB limit allocates next to nothing, not the limit.
func TestReadFileRefusesBySize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "report.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var rerr error
	alloc := testenv.Allocated(func() { _, rerr = ReadFile(p, 1<<20) })
	var tl *TooLargeError
	if !errors.As(rerr, &tl) || !strings.Contains(rerr.Error(), p) {
		t.Fatalf("1 GiB at a 1 MiB limit: %v", rerr)
	}
	if alloc > 64<<10 {
		t.Errorf("the refusal allocated %d bytes; want it made before reading", alloc)
	}
}
