package outdir

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

// The folder's own bookkeeping at a fixed path, .audit-manifest.json or .audit.lock, made
// a FIFO (which hung Open forever), a device or a symbolic link: Open refuses it at once,
// naming it, with Force too, and leaves it as it was.
func TestOpenRefusesNonRegularBookkeeping(t *testing.T) {
	elsewhere := filepath.Join(t.TempDir(), "elsewhere.json")
	writeFile(t, elsewhere, `{"schema": "`+ManifestSchema+`", "files": []}`)
	makers := map[string]func(path string) error{
		"a FIFO":          func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"a symbolic link": func(p string) error { return os.Symlink(elsewhere, p) },
		"a character device": func(p string) error {
			return syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3) // our own node (1, 3), never /dev's
		},
	}
	for _, file := range []string{ManifestFile, LockFile} {
		for what, make := range makers {
			for _, force := range []bool{false, true} {
				dir := t.TempDir()
				path := filepath.Join(dir, file)
				if err := make(path); err != nil {
					t.Logf("%s as %s: %v; skipped (not root?)", what, file, err)
					continue
				}
				before, _ := os.Lstat(path)
				var err error
				testenv.WithinDeadline(t, 5*time.Second, "Open with "+what+" as "+file, func() {
					var d *Dir
					if d, err = Open(dir, Options{Force: force}); err == nil {
						d.Close()
					}
				})
				if !errors.Is(err, regular.ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), what) {
					t.Errorf("%s as %s (force %v): %v; want a refusal naming it", what, file, force, err)
				}
				if after, lerr := os.Lstat(path); lerr != nil || !os.SameFile(before, after) {
					t.Errorf("%s as %s (force %v) was replaced or removed (%v)", what, file, force, lerr)
				}
			}
		}
	}
}

// Force takes over the user's files, but a FIFO or a symbolic link where a report goes is
// not a file to replace: WriteFiles refuses it by name and leaves it.
func TestForceDoesNotReplaceNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := testenv.FIFO(t, filepath.Join(dir, "report.md"))
	target := filepath.Join(t.TempDir(), "mine.json")
	writeFile(t, target, "mine")
	link := filepath.Join(dir, "report.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	d := mustOpen(t, dir, Options{Force: true})
	defer d.Close()
	for _, p := range []string{fifo, link} {
		name := filepath.Base(p)
		var err error
		testenv.WithinDeadline(t, 5*time.Second, "WriteFiles over "+name, func() {
			err = d.WriteFiles(map[string][]byte{name: []byte("report")})
		})
		if !errors.Is(err, regular.ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("WriteFiles over %s: %v; want a refusal naming it", p, err)
		}
		if st, err := os.Lstat(p); err != nil || st.Mode().IsRegular() {
			t.Errorf("%s was replaced by a file (%v)", p, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "mine" {
		t.Errorf("the link's target was written: %q", b)
	}
}
