package corpus

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// The corpus has a case for every cause of issue 41 that hostile input shows (1–11),
// each with a command and the exit statuses that are clean, and names unique (each is a
// folder). The full-scale list is checked without writing it (it is about 250 MB).
func TestCasesNameEveryCause(t *testing.T) {
	cases := Cases(Options{})
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	causes := map[int]int{}
	names := map[string]bool{}
	for _, c := range cases {
		causes[c.Cause]++
		if names[c.Name] || c.Name == "" || strings.ContainsAny(c.Name, "/ ") {
			t.Errorf("case name %q: empty, repeated or not a folder name", c.Name)
		}
		names[c.Name] = true
		if len(c.Args) == 0 || len(c.Exit) == 0 || c.What == "" {
			t.Errorf("%s: args %v, exit %v, what %q: each must be given", c.Name, c.Args, c.Exit, c.What)
		}
	}
	for cause := 1; cause <= 11; cause++ {
		if causes[cause] == 0 {
			t.Errorf("no case for cause %d", cause)
		}
	}
	// the sizes the issue names, at full scale
	for _, n := range []string{"c01-offset-tuple-nested-2000000", "c04-csv-row-63MB-verify", "c04-csv-row-20MB-estimate", "c05-merge-18MB-sigterm"} {
		if !names[n] {
			t.Errorf("no case %s", n)
		}
	}
}

// Writing the corpus twice gives the same files, byte for byte, links and FIFOs alike, and
// every case's folder holds what its Keep names (unless a setup command makes it). Written at 1/1000 of its sizes (about
// 600 KB) so that the test is cheap; the sizes only scale the same builders.
func TestWriteIsDeterministic(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	ca, err := Write(a, Options{Divide: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(b, Options{Divide: 1000}); err != nil {
		t.Fatal(err)
	}
	if len(ca) == 0 {
		t.Fatal("no cases written")
	}
	ta, tb := tree(t, a), tree(t, b)
	if la, lb := strings.Split(ta, "\n"), strings.Split(tb, "\n"); ta != tb {
		for i := range min(len(la), len(lb)) {
			if la[i] != lb[i] {
				t.Errorf("two writes differ, first at\n%s\n%s", la[i], lb[i])
				break
			}
		}
		if len(la) != len(lb) {
			t.Errorf("two writes hold %d and %d files", len(la), len(lb))
		}
	}
	read, err := Read(a)
	if err != nil || !reflect.DeepEqual(read, ca) || !reflect.DeepEqual(read, Cases(Options{Divide: 1000})) {
		t.Errorf("cases.json does not hold the cases written (%v)", err)
	}
	for _, c := range ca {
		entries, err := os.ReadDir(filepath.Join(a, c.Name))
		if err != nil || len(entries) == 0 {
			t.Errorf("%s: folder %v, %v", c.Name, entries, err)
		}
		for _, k := range c.Keep {
			if _, err := os.Lstat(filepath.Join(a, c.Name, k)); err != nil && len(c.Setup) == 0 {
				t.Errorf("%s: keeps %s, which is not written (nor made by a setup command): %v", c.Name, k, err)
			}
		}
	}
	// the hard link of cause 3 is one file
	lock, err1 := os.Stat(filepath.Join(a, "c03-lock-hardlinked-to-user-file", "out", ".audit.lock"))
	notes, err2 := os.Stat(filepath.Join(a, "c03-lock-hardlinked-to-user-file", "notes.txt"))
	if err1 != nil || err2 != nil || !os.SameFile(lock, notes) {
		t.Errorf("out/.audit.lock is not a hard link to notes.txt (%v, %v)", err1, err2)
	}
}

// tree is every file under dir: its path, kind, link count and target, and its bytes' hash.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v nlink=%d", rel, info.Mode().Type(), info.Sys().(*syscall.Stat_t).Nlink)
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(&b, " -> %s", target)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
