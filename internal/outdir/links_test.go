package outdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// A symbolic link planted at any element of a name inside the folder is refused, naming
// it, by every operation: OUT/trials pointing outside (the run wrote its checkpoints
// there: O_NOFOLLOW guarded only the last element) or inside the folder (which os.Root
// alone would follow), and a checkpoint that is itself a link. Nothing is written through
// it, with Force too.
func TestLinksInsideTheFolderAreNotFollowed(t *testing.T) {
	for _, inside := range []bool{false, true} {
		dir := t.TempDir()
		elsewhere := filepath.Join(t.TempDir(), "elsewhere")
		if inside {
			elsewhere = filepath.Join(dir, "sub")
		}
		if err := os.MkdirAll(elsewhere, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(elsewhere, "x.jsonl"), "the user's\n")
		link := filepath.Join(dir, "trials")
		if err := os.Symlink(elsewhere, link); err != nil {
			t.Fatal(err)
		}
		d := mustOpen(t, dir, Options{Force: true})
		refused := func(what string, err error, path string) {
			t.Helper()
			if !errors.Is(err, regular.ErrLink) || !strings.Contains(err.Error(), path) {
				t.Errorf("inside %v: %s: %v; want a refusal of the link %s", inside, what, err, path)
			}
		}
		refused("MkdirAll", d.MkdirAll("trials"), link)
		refused("MkdirAll deeper", d.MkdirAll("trials/a/b"), link)
		refused("Claim", d.Claim("trials/x.jsonl"), link)
		refused("Appending", d.Appending("trials/y.jsonl"), link)
		refused("Remove", d.Remove("trials/x.jsonl"), link)
		refused("WriteFiles", d.WriteFiles(map[string][]byte{"trials/z.json": []byte("{}")}), link)
		for _, flag := range []int{os.O_RDWR, os.O_RDWR | os.O_CREATE, os.O_RDWR | os.O_CREATE | os.O_EXCL} {
			f, err := d.OpenFile("trials/new.jsonl", flag, 0o644)
			if err == nil {
				f.Close()
			}
			refused("OpenFile", err, link)
		}
		refused("WriteAtomic", d.WriteAtomic("trials/x.jsonl", writeBytes([]byte("over"))), link)
		if err := d.Close(); err != nil {
			t.Error(err)
		}
		entries, _ := os.ReadDir(elsewhere)
		if b, _ := os.ReadFile(filepath.Join(elsewhere, "x.jsonl")); len(entries) != 1 || string(b) != "the user's\n" {
			t.Errorf("inside %v: the link's folder now holds %d entries, x.jsonl %q", inside, len(entries), b)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("inside %v: the link was replaced (%v)", inside, err)
		}
	}

	// the last element a link: OpenFile refuses it whatever the flags; a real folder's
	// files open as before
	dir := t.TempDir()
	d := mustOpen(t, dir, Options{})
	defer d.Close()
	if err := d.MkdirAll("trials"); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "target")
	writeFile(t, target, "mine")
	if err := os.Symlink(target, d.Join("trials/c.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_RDWR, os.O_RDWR | os.O_CREATE, os.O_RDWR | os.O_CREATE | os.O_EXCL} {
		f, err := d.OpenFile("trials/c.jsonl", flag, 0o644)
		if err == nil {
			f.Close()
		}
		if flag&os.O_EXCL != 0 {
			if !errors.Is(err, os.ErrExist) && !errors.Is(err, regular.ErrLink) {
				t.Errorf("OpenFile(O_EXCL) over a link: %v", err)
			}
			continue
		}
		if !errors.Is(err, regular.ErrLink) || !strings.Contains(err.Error(), d.Join("trials/c.jsonl")) {
			t.Errorf("OpenFile(%#x) of a link: %v; want it refused by name", flag, err)
		}
	}
	f, err := d.OpenFile("trials/d.jsonl", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("line\n")
	f.Close()
	if b, err := os.ReadFile(filepath.Join(dir, "trials", "d.jsonl")); err != nil || string(b) != "line\n" {
		t.Errorf("a file of the folder's own: %q, %v", b, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "mine" {
		t.Errorf("the link's target was written: %q", b)
	}
}
