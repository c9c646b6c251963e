package datasets

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outside are the ways a file could read data, golden values or specs from the folder
// beside the repository where they were kept before they were committed here: a clone has
// nothing beside it, so no file may name one. The patterns are built from their parts so
// that this file, which must name them to look for them, does not itself name the folder.
var outside = func() []string {
	beside := "shar" + "ed"
	return []string{"../" + beside, beside + "/datasets", beside + "/golden", beside + "/spec"}
}()

// historyDocs may name the old layout: they tell what was, not what to run.
var historyDocs = map[string]bool{"CHANGELOG.md": true}

// No file of the repository — code, tests, scripts, examples, docs — reads or names a
// folder beside it: everything a test, an example or the binary reads is in the clone.
func TestNothingReadsBesideTheRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root %s: %v", root, err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || rel == "audit-report" || strings.HasPrefix(d.Name(), "reproduce-") {
				return filepath.SkipDir // git's own files; the outputs .gitignore names
			}
			return nil
		}
		if historyDocs[rel] || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checked++
		for _, s := range outside {
			if i := bytes.Index(b, []byte(s)); i >= 0 {
				line := bytes.Count(b[:i], []byte("\n")) + 1
				t.Errorf("%s:%d names %q: a clone has nothing beside it; read the repository's copy (datasets/, docs/spec/, or the package's testdata/)", rel, line, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 500 {
		t.Fatalf("only %d files checked under %s: the walk missed the repository", checked, root)
	}
}
