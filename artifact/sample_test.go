package artifact

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// A directory of models is a sample, one row per file in name order; NumPy's archive of
// weights and bias reads as bias then weights, flattened.
func TestLoadSampleFromDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.npz", "b.npz"} {
		if err := os.WriteFile(filepath.Join(dir, name), must(os.ReadFile("testdata/models.npz")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "README.txt"), []byte("not a model"), 0o644)
	m, files, err := LoadSample(dir, reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	r, c := m.Dims()
	if r != 2 || c != 7+15 || len(files) != 2 || !strings.HasSuffix(files[1], "b.npz") {
		t.Fatalf("%d × %d from %v; want 2 × 22 from a.npz, b.npz", r, c, files)
	}
	params, layout, err := LoadModel(filepath.Join(dir, "a.npz"), reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(layout) != 2 || !strings.Contains(layout[0], ":bias [7]") || m.At(1, 7) != params[7] {
		t.Errorf("layout %v, row 1 col 7 = %v, params[7] = %v", layout, m.At(1, 7), params[7])
	}
}

// Models of different sizes in one sample are refused, naming both files.
func TestLoadSampleRefusesMixedDimensions(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.npy"), must(os.ReadFile("testdata/vector_f8.npy")), 0o644)
	os.WriteFile(filepath.Join(dir, "b.npy"), must(os.ReadFile("testdata/c_f8.npy")), 0o644)
	_, _, err := LoadSample(dir, reference.Limits{})
	if err == nil || !strings.Contains(err.Error(), "b.npy: 15 parameters") || !strings.Contains(err.Error(), "a.npy, the first model, has 7") {
		t.Fatalf("error %v; want both files named", err)
	}
	if _, _, err := LoadSample(t.TempDir(), reference.Limits{}); err == nil || !strings.Contains(err.Error(), "no model files") {
		t.Errorf("empty directory: %v", err)
	}
}

// One .npy matrix is a sample whose rows are the models.
func TestLoadSampleFromOneMatrix(t *testing.T) {
	m, _, err := LoadSample("testdata/fortran_f8.npy", reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := LoadNPY("testdata/c_f8.npy", reference.Limits{})
	if r, cols := m.Dims(); r != 3 || cols != 5 || m.At(2, 4) != c.Data[14] {
		t.Fatalf("%d × %d, last %v; want 3 × 5 in C order", r, cols, m.At(2, 4))
	}
}

// LoadScores reads a one-array .npz as its matrix, as LoadSample does, and refuses one of
// several arrays (NumPy's models.npz: weights and bias), which LoadSample reads as one
// model's layers, naming the file and the arrays.
func TestLoadScoresOneMatrix(t *testing.T) {
	if _, _, err := LoadSample("testdata/models.npz", reference.Limits{}); err != nil {
		t.Fatal(err)
	}
	_, _, err := LoadScores("testdata/models.npz", reference.Limits{})
	if err == nil || !strings.Contains(err.Error(), "testdata/models.npz: 2 arrays") || !strings.Contains(err.Error(), "weights") {
		t.Errorf("two arrays as scores: %v", err)
	}
	m, _, err := LoadScores(filepath.Join("..", "cmd", "audit", "testdata", "verify", "scores_good.npz"), reference.Limits{})
	if err != nil || m.RawMatrix().Rows != 40 || m.RawMatrix().Cols != 50 {
		t.Errorf("one array: %v", err)
	}
}

// A folder named x.npy inside a sample's folder was skipped in silence: the sample then
// lacks a model the user meant. It is refused by name; other folders are still ignored.
func TestLoadSampleRefusesFolderNamedLikeAModel(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.npy"), must(os.ReadFile("testdata/vector_f8.npy")), 0o644)
	os.Mkdir(filepath.Join(dir, "checkpoints"), 0o755)
	if _, files, err := LoadSample(dir, reference.Limits{}); err != nil || len(files) != 1 {
		t.Fatalf("a plain subfolder: %v, %v", files, err)
	}
	bad := filepath.Join(dir, "x.npy")
	os.Mkdir(bad, 0o755)
	if _, _, err := LoadSample(dir, reference.Limits{}); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "a folder named like a model file") {
		t.Errorf("a folder x.npy: %v; want it refused by name", err)
	}
}

// A model CSV that np.savetxt wrote without delimiter="," (one cell of spaced numbers a
// line), or with a header row, is refused with the loader's file, line and cell as before,
// and what to write instead; any other bad cell gets no guess. The refusal is still the
// loader's InputError. Planted and caught: the hints dropped, the header hint given on
// every line.
func TestModelCSVHints(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{"1.0 2.0 3.0\n4.0 5.0 6.0\n", `m.csv:1: column 1: "1.0 2.0 3.0" is not a number (numbers separated by spaces: write the CSV with commas, np.savetxt(path, w, delimiter=","))`},
		{"w0,w1\n1,2\n", `m.csv:1: column 1: "w0" is not a number (a header row? a model's CSV holds numbers only: np.savetxt without header=)`},
		{"1,2\n3,x\n", `m.csv:2: column 2: "x" is not a number`},
	} {
		p := filepath.Join(dir, "m.csv")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := LoadModel(p, reference.Limits{})
		var ie *reference.InputError
		if err == nil || !strings.HasSuffix(err.Error(), c.want) || !errors.As(err, &ie) {
			t.Errorf("%q:\n got %v\nwant …%s (an InputError)", c.body, err, c.want)
		}
	}
}
