package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
)

// heartScaleSHA is datasets/liblinear/heart_scale's SHA-256 (datasets/SHA256SUMS).
const heartScaleSHA = "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9"

// loadSpecData loads the data of a spec written into dir.
func loadSpecData(t *testing.T, dir, file string) (*pipeline.Data, error) {
	t.Helper()
	path := filepath.Join(dir, "audit.json")
	body := fmt.Sprintf(`{"method": {"name": "d2d"}, "data": {"file": %q, "format": "libsvm"}}`, file)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	var d pipeline.DataSource
	d.SetFromSpec(s, path)
	return d.Load(context.Background(), 1)
}

// writeRows writes n rows of a small LIBSVM file at path (two features, labels ±1).
func writeRows(t *testing.T, path string, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d 1:%d 2:%d\n", 1-2*(i%2), i%7, i%5)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A spec's data.file datasets/… with no such file beside the spec reads the copy built into
// the binary, as --data does, from any folder: not a file of that name in the working
// folder (a spec's paths are its folder's), and never over a file beside the spec, which
// is read from disk. A path naming nothing is refused naming the field, with where a spec's
// paths are taken from and the built-in data sets. Planted and caught: the fallback off
// for specs (refused), taken before the file beside the spec (270 rows, not 30), resolved
// against the working folder (BuiltinData's rule: 40 rows).
func TestSpecDataBuiltIn(t *testing.T) {
	t.Chdir(t.TempDir())
	writeRows(t, filepath.Join("datasets", "liblinear", "heart_scale"), 40) // the working folder's, never the spec's
	data, err := loadSpecData(t, t.TempDir(), "datasets/liblinear/heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	if data.Set.Len() != 270 || len(data.Inputs) != 1 || data.Inputs[0].SHA256 != heartScaleSHA {
		t.Errorf("nothing beside the spec: %d rows, inputs %+v; want the built-in heart_scale's 270 and %s", data.Set.Len(), data.Inputs, heartScaleSHA)
	}
	// named as the repository names it, not by the user's cache folder it was extracted to
	if data.Inputs[0].Path != "datasets/liblinear/heart_scale" || data.Description != "datasets/liblinear/heart_scale, built into the binary (libsvm)" {
		t.Errorf("the built-in copy is named %q, described %q; want datasets/liblinear/heart_scale", data.Inputs[0].Path, data.Description)
	}
	beside := t.TempDir()
	writeRows(t, filepath.Join(beside, "datasets", "liblinear", "heart_scale"), 30)
	if data, err = loadSpecData(t, beside, "datasets/liblinear/heart_scale"); err != nil {
		t.Fatal(err)
	}
	if data.Set.Len() != 30 || data.Inputs[0].Path != filepath.Join(beside, "datasets", "liblinear", "heart_scale") {
		t.Errorf("a file beside the spec: %d rows, named %q; want its 30, by its path", data.Set.Len(), data.Inputs[0].Path)
	}
	_, err = loadSpecData(t, t.TempDir(), "../datasets/liblinear/heart_scale")
	if err == nil || !strings.Contains(err.Error(), "data.file: load ") || !strings.Contains(err.Error(), "a spec's paths are relative to its own folder") || !strings.Contains(err.Error(), "datasets/liblinear/heart_scale") {
		t.Errorf("a path naming nothing: %v; want the field, where paths are taken from and the built-in sets", err)
	}
}

// An output folder that is a file, or has a file in its path, is refused saying so and
// naming --out, where mkdir said only "not a directory"; nothing is created. Planted and
// caught: the ENOTDIR case not singled out (the bare mkdir error).
func TestOpenOutOnAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ofile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, want string }{
		{file, "demo: output folder " + file + " is a file, not a folder: give --out a folder's name"},
		{filepath.Join(file, "sub"), "demo: output folder " + filepath.Join(file, "sub") + ": a file stands in its path where a folder must be: give --out another"},
	} {
		d, err := pipeline.OpenOut("demo", c.out, false)
		if err == nil {
			d.Close()
			t.Fatalf("%s: opened", c.out)
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s…", c.out, err, c.want)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "x" {
		t.Errorf("the file: %q, %v; want it untouched", b, err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("the folder holds %d entries; want the file alone", len(names))
	}
}

// A LIBSVM file read as CSV (one field a line) is refused with its file and line as before,
// and says what it most likely is and which setting to change: the flag, or the spec's
// field. Planted and caught: the hint dropped.
func TestCSVOfOneColumnHintsLIBSVM(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows")
	writeRows(t, path, 30)
	for _, c := range []struct {
		d    pipeline.DataSource
		name string
	}{{pipeline.DataSource{Path: path, Format: "csv"}, "--format"}, {pipeline.DataSource{Path: path, Format: "csv", Spec: "s.json"}, "s.json: data.format"}} {
		_, err := c.d.Load(context.Background(), 1)
		want := path + ":1: 1 column; want features plus a label column (not comma-separated: a file of space-separated index:value pairs is LIBSVM's; set " + c.name + " to libsvm)"
		if err == nil || err.Error() != want {
			t.Errorf("%+v:\n got %v\nwant %s", c.d, err, want)
		}
	}
}
