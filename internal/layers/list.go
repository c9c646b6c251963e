package layers

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A Package is one package of the module as go list ./... sees it.
type Package struct {
	Path    string   // import path relative to the module ("" for the root)
	Doc     string   // the package comment's first sentence (go/doc's synopsis)
	Imports []string // the packages of the module its non-test files import, relative
}

// List reads the packages of the module rooted at root, whose path is module, for this
// platform, as go list ./... lists them: folders named testdata or starting with . or _
// and nested modules are skipped. It parses the files itself, rather than running go
// list, so that go test's cache sees every file it read and reruns a test when one
// changes.
func List(root, module string) ([]Package, error) {
	var pkgs []Package
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if p != root {
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		bp, err := build.ImportDir(p, build.ImportComment)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading package %s: %w", p, err)
		}
		rel, _ := filepath.Rel(root, p)
		pkg := Package{Path: filepath.ToSlash(rel), Doc: bp.Doc}
		if pkg.Path == "." {
			pkg.Path = ""
		}
		for _, imp := range bp.Imports {
			if r, ok := strings.CutPrefix(imp, module+"/"); ok {
				pkg.Imports = append(pkg.Imports, r)
			}
		}
		pkgs = append(pkgs, pkg)
		return nil
	})
	return pkgs, err
}
