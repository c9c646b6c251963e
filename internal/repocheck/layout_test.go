package repocheck

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/layers"
)

var update = flag.Bool("update", false, "rewrite docs/reference.md's layout table from the packages' comments")

const (
	module      = "github.com/unlearnaudit/unlearnaudit"
	layoutStart = "<!-- layout: generated from each package's comment by `go test ./internal/repocheck -run TestReferenceLayout -update`; edit the package comments, not these rows -->"
	layoutEnd   = "<!-- end of the generated layout -->"
)

// layoutTable is the table of every package of the module (as go list ./... lists them),
// by import path, with the first sentence of its package comment.
func layoutTable(t *testing.T, root string) string {
	t.Helper()
	pkgs, err := layers.List(root, module)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(pkgs, func(a, b layers.Package) int { return strings.Compare(a.Path, b.Path) })
	var b strings.Builder
	b.WriteString("| package | what it holds |\n|---|---|\n")
	for _, p := range pkgs {
		b.WriteString("| `" + p.Path + "` | " + synopsis(p) + " |\n")
	}
	return b.String()
}

// synopsis is a package comment's first sentence without its "Package name" or "Command
// name" opening, escaped for a Markdown table cell.
func synopsis(p layers.Package) string {
	s := p.Doc
	for _, lead := range []string{"Package ", "Command "} {
		if rest, ok := strings.CutPrefix(s, lead); ok {
			if _, after, ok := strings.Cut(rest, " "); ok {
				s = after
			}
			break
		}
	}
	if s == "" {
		return "(no package comment)"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// docs/reference.md's layout table is the one the packages' comments make: a package
// added, moved or removed, or a comment reworded, changes it, and the test fails until
// -update rewrites it. Planted: a row deleted from the page, or a package added without a
// row, fails it.
func TestReferenceLayout(t *testing.T) {
	root := repoRoot(t)
	page := filepath.Join(root, "docs", "reference.md")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, layoutStart), strings.Index(doc, layoutEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated layout between the markers %q and %q", page, layoutStart, layoutEnd)
	}
	table := layoutTable(t, root)
	if n := strings.Count(table, "\n") - 2; n < 40 {
		t.Fatalf("the layout has %d packages: the module was not read", n)
	}
	want := doc[:i+len(layoutStart)] + "\n" + table + doc[j:]
	if want == doc {
		return
	}
	if *update {
		if err := os.WriteFile(page, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the layout table of %s", page)
		return
	}
	got := doc[i+len(layoutStart)+1 : j]
	gl, wl := strings.Split(got, "\n"), strings.Split(table, "\n")
	for _, l := range wl {
		if !slices.Contains(gl, l) {
			t.Errorf("docs/reference.md's layout lacks the row %s", l)
		}
	}
	for _, l := range gl {
		if !slices.Contains(wl, l) {
			t.Errorf("docs/reference.md's layout has the row %s, which no package makes", l)
		}
	}
	t.Errorf("docs/reference.md's layout table is not the packages' own: run go test ./internal/repocheck -run TestReferenceLayout -update")
}
