package artifact

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

type goldenCase struct {
	Shape   []int     `json:"shape"`
	DType   string    `json:"dtype"`
	Fortran bool      `json:"fortran"`
	Values  []float64 `json:"values"`
}

// The fixtures were written by NumPy (testdata/make_fixtures.py); the reader must give
// NumPy's own values bit for bit: float64 read as is, float32 widened exactly, Fortran
// order and big-endian files reordered.
func TestNPYMatchesNumPy(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases map[string]json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, msg := range golden.Cases {
		if !strings.HasSuffix(name, ".npy") {
			continue
		}
		n++
		var want goldenCase
		if err := json.Unmarshal(msg, &want); err != nil {
			t.Fatal(err)
		}
		a, err := LoadNPY(filepath.Join("testdata", name), reference.Limits{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !slices.Equal(a.Shape, want.Shape) || a.DType != want.DType || a.Fortran != want.Fortran || !slices.Equal(a.Data, want.Values) {
			t.Errorf("%s: shape %v dtype %s fortran %v data %v; NumPy: %v %s %v %v", name, a.Shape, a.DType, a.Fortran, a.Data, want.Shape, want.DType, want.Fortran, want.Values)
		}
		if a.Converted != (strings.HasSuffix(want.DType, "f4") || strings.HasSuffix(want.DType, "f2")) {
			t.Errorf("%s: Converted = %v for dtype %s", name, a.Converted, want.DType)
		}
	}
	if n < 8 {
		t.Fatalf("%d .npy golden cases; the fixtures have 8", n)
	}
}

func TestNPZMatchesNumPy(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all struct {
		Cases map[string]json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases map[string]map[string][]float64
	}
	golden.Cases = map[string]map[string][]float64{}
	for name, msg := range all.Cases {
		if strings.HasSuffix(name, ".npz") {
			var m map[string][]float64
			if err := json.Unmarshal(msg, &m); err != nil {
				t.Fatal(err)
			}
			golden.Cases[name] = m
		}
	}
	if len(golden.Cases) != 2 {
		t.Fatalf("%d .npz golden cases; the fixtures have 2", len(golden.Cases))
	}
	for name, want := range golden.Cases {
		arrays, err := LoadNPZ(filepath.Join("testdata", name), reference.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(arrays) != 2 || arrays[0].Name != filepath.Join("testdata", name)+":bias" || arrays[1].Name != filepath.Join("testdata", name)+":weights" {
			t.Fatalf("%s: arrays %v; want bias then weights", name, arrays)
		}
		for _, a := range arrays {
			key := a.Name[strings.LastIndexByte(a.Name, ':')+1:]
			if !slices.Equal(a.Data, want[key]) {
				t.Errorf("%s: %s = %v; NumPy: %v", name, key, a.Data, want[key])
			}
		}
	}
}

// npyBytes builds a .npy file by hand: version 1.0, the given header dict, raw data.
func npyBytes(header string, data []byte) []byte {
	h := header + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

func f8(vs ...float64) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, vs)
	return b.Bytes()
}

// Every hostile or unsupported file is refused with the file and the field that is wrong,
// and a header's claims cost nothing: a shape of 2^40 elements is refused, a shape larger
// than the data is a truncation found after reading what is there.
func TestNPYRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"not npy", []byte("PK\x03\x04 hello"), "not a .npy file"},
		{"int64 (NumPy's file)", must(os.ReadFile("testdata/int64.npy")), `unsupported dtype "<i8"`},
		{"object array (NumPy's file)", must(os.ReadFile("testdata/object.npy")), `unsupported dtype "|O"`},
		{"2^40 elements", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1048576, 1048576), }", nil), "exceed the cap"},
		{"truncated", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f8(1, 2)), "truncated: 2 of the 3 elements"},
		{"trailing bytes", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", f8(1, 2)), "bytes after the 1 elements"},
		{"NaN", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f8(1, nan())), "row 0, column 1 (0-based, of 1 × 2): NaN"},
		{"rank 3", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1), }", f8(1)), "rank 3"},
		{"unknown key", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}", f8(1)), `unknown key "x"`},
		{"missing shape", npyBytes("{'descr': '<f8', 'fortran_order': False}", f8(1)), `key "shape" missing`},
		{"header of 4 GB claimed", append([]byte("\x93NUMPY\x02\x00"), 0xff, 0xff, 0xff, 0xff), "at most 65536 are read"},
		{"version 9", []byte("\x93NUMPY\x09\x00\x00\x00"), "format version 9.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			got := testenv.Allocated(func() { _, err = ParseNPY(bytes.NewReader(c.in), "m.npy", reference.Limits{}) })
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "m.npy") {
				t.Fatalf("error %v; want m.npy… %q", err, c.want)
			}
			if got > 1<<20 {
				t.Errorf("refusal allocated %d bytes", got)
			}
		})
	}
}

func nan() float64 { var z float64; return z / z }

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func zipOf(entries map[string][]byte) []byte {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		f, _ := w.Create(n)
		f.Write(entries[n])
	}
	w.Close()
	return b.Bytes()
}

func TestNPZRefusals(t *testing.T) {
	one := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", f8(1))
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"not a zip", []byte("hello"), "not a zip archive"},
		{"empty archive", zipOf(nil), "no arrays"},
		{"not npy entry", zipOf(map[string][]byte{"a.npy": one, "notes.txt": []byte("x")}), "m.npz:notes.txt: entry is not a .npy array"},
		{"bad entry", zipOf(map[string][]byte{"w.npy": []byte("junk")}), "m.npz:w"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseNPZBytes(c.in, "m.npz")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want %q", err, c.want)
			}
		})
	}
}

// fuzzAllocLimit is the O(k) bound of the fuzzers: an 8-byte element read as a float64
// costs 8 bytes (chunks grow by doubling: 16), float32 elements double that; plus a fixed
// 1 MiB for buffers.
func fuzzAllocLimit(k int) uint64 { return uint64(64*k + 1<<20) }

func FuzzParseNPY(f *testing.F) {
	for _, name := range []string{"c_f8.npy", "fortran_f4.npy", "big_endian_f8.npy", "object.npy"} {
		f.Add(must(os.ReadFile(filepath.Join("testdata", name))))
	}
	f.Add(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1048576, 1048576), }", nil))
	f.Add(npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", []byte{0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64}))
	f.Fuzz(func(t *testing.T, in []byte) {
		var (
			a   *Array
			err error
		)
		got := testenv.Allocated(func() { a, err = ParseNPY(bytes.NewReader(in), "fuzz.npy", reference.Limits{}) })
		if got > fuzzAllocLimit(len(in)) {
			t.Fatalf("%d input bytes allocated %d", len(in), got)
		}
		if err != nil {
			return
		}
		n := 1
		for _, s := range a.Shape {
			n *= s
		}
		if len(a.Data) != n || a.Rows()*a.Cols() != n {
			t.Fatalf("shape %v with %d elements", a.Shape, len(a.Data))
		}
	})
}

func FuzzParseNPZ(f *testing.F) {
	f.Add(must(os.ReadFile(filepath.Join("testdata", "models.npz"))))
	f.Add(must(os.ReadFile(filepath.Join("testdata", "models_compressed.npz"))))
	npy := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f8(1, 2))
	f.Add(rawZip(rawEntry{"w.npy", zip.Store, npy, 0, uint64(len(npy))}))                                       // a CRC of 0
	f.Add(rawZip(rawEntry{"w.npy", zip.Deflate, deflated(npy), crc32.ChecksumIEEE(npy), uint64(len(npy)) - 1})) // longer than declared
	ints := npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", f8(1, 2))
	f.Add(rawZip(rawEntry{"a.npy", zip.Store, ints, 0, uint64(len(ints))}, rawEntry{"w.npy", zip.Store, npy, crc32.ChecksumIEEE(npy), uint64(len(npy))})) // a skipped entry's CRC of 0
	f.Fuzz(func(t *testing.T, in []byte) {
		// as arrays are read (integers refused) and as a model's are (integers skipped)
		for _, skip := range []bool{false, true} {
			var err error
			got := testenv.Allocated(func() {
				_, _, err = parseNPZ(bytes.NewReader(in), int64(len(in)), "fuzz.npz", reference.Limits{}, skip)
			})
			// deflate expands at most ~1032:1, and what it expands to is bounded by the arrays'
			// own O(k) rule; a stored archive is O(k) outright
			if limit := 1032 * fuzzAllocLimit(len(in)); got > limit {
				t.Fatalf("skip %v: %d input bytes allocated %d (limit %d)", skip, len(in), got, limit)
			}
			// an archive read is intact: every entry, skipped ones too, has its declared
			// size and CRC-32
			if err == nil {
				zr := must2(zip.NewReader(bytes.NewReader(in), int64(len(in))))
				for _, zf := range zr.File {
					if err := entryIntact(zf); err != nil {
						t.Fatalf("skip %v: read, but %s: %v", skip, zf.Name, err)
					}
				}
			}
		}
	})
}

func Example() {
	arrays, err := LoadNPZ("testdata/models.npz", reference.Limits{}) // np.savez("models.npz", weights=m, bias=v)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range arrays {
		fmt.Printf("%s: %d × %d %s\n", a.Name, a.Rows(), a.Cols(), a.DType)
	}
	// Output:
	// testdata/models.npz:bias: 1 × 7 <f8
	// testdata/models.npz:weights: 3 × 5 <f8
}

// A non-finite value of a matrix is located by its row and column, in C and in Fortran
// order, never by its flat index alone (issue 40: "record 161: element 160" in a file of
// 30 columns).
func TestNPYNonFiniteLocated(t *testing.T) {
	vals := make([]float64, 12)
	vals[6] = math.Inf(1)
	for _, c := range []struct {
		order    string
		row, col int
	}{{"False", 1, 2}, {"True", 0, 2}} {
		_, err := ParseNPY(bytes.NewReader(npyBytes("{'descr': '<f8', 'fortran_order': "+c.order+", 'shape': (3, 4), }", f8(vals...))), "m.npy", reference.Limits{})
		var ce *reference.CellError
		if !errors.As(err, &ce) || ce.Row != c.row || ce.Col != c.col || ce.Cols != 4 {
			t.Errorf("fortran_order %s: %v (%+v), want row %d, column %d of 4", c.order, err, ce, c.row, c.col)
			continue
		}
		if want := fmt.Sprintf("row %d, column %d (0-based, of 3 × 4): +Inf", c.row, c.col); !strings.Contains(err.Error(), want) {
			t.Errorf("fortran_order %s: %q lacks %q", c.order, err, want)
		}
	}
}

// A fitted estimator saved with np.savez (testdata/estimator.npz, NumPy's own writing: see
// make_fixtures.py) holds integer and boolean arrays beside its weights — classes_, n_iter_,
// a flag. A model read skips them, naming them, and reads the weights in name order (coef,
// then intercept: models.npz's first row and first bias); naming one says why it was not
// read; LoadNPZ, which reads arrays of scores and references, still refuses them. Planted
// and caught: buffers refused again in a model read (the file unreadable).
func TestNPZModelSkipsIntegerBuffers(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases struct {
			Models struct{ Bias, Weights []float64 } `json:"models.npz"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(g.Cases.Models.Weights[:5]), g.Cases.Models.Bias[0])
	path := filepath.Join("testdata", "estimator.npz")
	arrays, skipped, err := loadNPZModel(path, reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	wantSkipped := []string{"classes: <i8 [2], not floating point (a buffer such as classes_ or n_iter_, not a weight)",
		"fitted: |b1 [1], not floating point (a buffer such as classes_ or n_iter_, not a weight)",
		"n_iter: <i4 [1], not floating point (a buffer such as classes_ or n_iter_, not a weight)"}
	if len(arrays) != 2 || !slices.Equal(skipped, wantSkipped) {
		t.Fatalf("%d arrays, skipped %q; want coef and intercept, skipped %q", len(arrays), skipped, wantSkipped)
	}
	params, _, err := LoadModel(path, reference.Limits{})
	if err != nil || !slices.Equal(params, want) {
		t.Errorf("LoadModel: %v, %v; want %v", params, err, want)
	}
	if _, _, err := LoadModelTensors(path, []string{"intercept", "classes"}, reference.Limits{}); err == nil || !strings.Contains(err.Error(), "classes: not read: <i8 [2], not floating point") {
		t.Errorf("naming a skipped array: %v", err)
	}
	if _, err := LoadNPZ(path, reference.Limits{}); err == nil || !strings.Contains(err.Error(), `unsupported dtype "<i8"`) {
		t.Errorf("LoadNPZ: %v; want the integer array refused", err)
	}
}

// A model file given alone (LoadSample of a file, not a folder) reads as it does among a
// folder's models: an estimator's .npz with integer arrays beside its weights, and a CSV's
// refusal with its hint. Both differed: the archive was refused on its integers, the CSV
// given no hint. Planted and caught: the file read with LoadNPZ again, the hint dropped.
func TestSampleOfOneFileReadsAsAModel(t *testing.T) {
	src := filepath.Join("testdata", "estimator.npz")
	want, _, err := LoadModel(src, reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m, files, err := LoadSample(src, reference.Limits{})
	if err != nil || m.RawMatrix().Rows != 1 || !slices.Equal(m.RawRowView(0), want) || !slices.Equal(files, []string{src}) {
		t.Fatalf("LoadSample(%s): %v, %v; want one model, %v", src, m, err, want)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "m.csv")
	if err := os.WriteFile(p, []byte("1.0 2.0 3.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadSample(p, reference.Limits{}); err == nil || !strings.Contains(err.Error(), "numbers separated by spaces") {
		t.Errorf("LoadSample(%s): %v; want the CSV hint", p, err)
	}
}

// LoadSampleParts says what it read of the first model as LoadModelTensors' layout says it:
// a folder's first file, a file alone, a file whose rows are the models (its one array),
// and with --tensor's names their order. Planted and caught: a folder's last model's
// parts, none for a file alone.
func TestLoadSamplePartsIsTheFirstModelsLayout(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "estimator.npz")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.npz", "b.npz"} {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first := filepath.Join(dir, "a.npz")
	for _, c := range []struct {
		path, model string
		names       []string
	}{{dir, first, nil}, {src, src, nil}, {dir, first, []string{"intercept", "coef"}}, {filepath.Join("testdata", "c_f8.npy"), filepath.Join("testdata", "c_f8.npy"), nil}} {
		_, _, parts, err := LoadSampleParts(c.path, c.names, reference.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		_, want, err := LoadModelTensors(c.model, c.names, reference.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(parts, want) || len(parts) == 0 {
			t.Errorf("%s %v: parts %q; want %q", c.path, c.names, parts, want)
		}
	}
}
