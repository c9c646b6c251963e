package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docPath is a code span that names a file of this repository: a slash-separated relative
// path with a file extension. docs/spec, the papers' specs as they were written, is not
// read: it names the papers' own code (the official HF code's utils/perturbation.py).
var docPath = regexp.MustCompile("`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\\.(?:go|md|py|sh|json|txt|npz|npy|csv|s|pt|safetensors))(?:[:#][^`]*)?`")

// Every file a document names in a code span exists, from the repository's root or from
// the document's folder: a red-team reader followed docs/pytorch.md to
// audit/onerundemo_test.go and docs/noisy-release.md to audit/noisy_test.go, both moved
// long before.
func TestDocsNameFilesThatExist(t *testing.T) {
	root := repoRoot(t)
	docs := []string{"README.md", "CONTRIBUTING.md"}
	for _, dir := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == "spec" {
				return filepath.SkipDir // the papers' specs, copied as written: they name the papers' own code
			}
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				rel, _ := filepath.Rel(root, p)
				docs = append(docs, filepath.ToSlash(rel))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	named := 0
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range docPath.FindAllStringSubmatch(line, -1) {
				named++
				p := filepath.FromSlash(m[1])
				if _, err := os.Stat(filepath.Join(root, p)); err == nil {
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.Dir(doc), p)); err == nil {
					continue
				}
				t.Errorf("%s:%d names %s, which is neither in the repository nor beside the document", doc, i+1, m[1])
			}
		}
	}
	if named == 0 {
		t.Fatal("no document names a file: the pattern matches nothing")
	}
}
