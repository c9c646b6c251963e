package reference

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCSV(t *testing.T) {
	in := "a,b,label\n1,2,1\n3,4,-1\n"
	ds, err := ParseCSV(strings.NewReader(in), "x.csv", CSVOptions{Header: true, LabelColumn: -1})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 2 || ds.Dim() != 2 || ds.Row(1)[1] != 4 || ds.Label(1) != -1 || ds.ID(1) != 1 {
		t.Fatalf("got %d×%d, row1 %v label %v", ds.Len(), ds.Dim(), ds.Row(1), ds.Label(1))
	}
	ds, err = ParseCSV(strings.NewReader("7,1,2\n8,3,4\n"), "x.csv", CSVOptions{LabelColumn: 0})
	if err != nil || ds.Label(0) != 7 || ds.Row(0)[0] != 1 {
		t.Fatalf("label column 0: %v %v", ds, err)
	}
}

// wantInputError asserts err is an *InputError whose message names the file and the line.
func wantInputError(t *testing.T, err error, file string, line int, frag string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v (%T); want an *InputError", err, err)
	}
	if ie.File != file || ie.Line != line || !strings.Contains(err.Error(), frag) {
		t.Fatalf("got %q (file %q line %d); want file %q, line %d, mentioning %q", err, ie.File, ie.Line, file, line, frag)
	}
}

func TestParseCSVErrors(t *testing.T) {
	_, err := ParseCSV(strings.NewReader("1,2,1\n3,1\n"), "d.csv", CSVOptions{LabelColumn: -1})
	wantInputError(t, err, "d.csv", 2, "2 fields, want 3")
	_, err = ParseCSV(strings.NewReader("1,2,1\n3,NaN,1\n"), "d.csv", CSVOptions{LabelColumn: -1})
	wantInputError(t, err, "d.csv", 2, "not finite")
	_, err = ParseCSV(strings.NewReader("1,2,1\n3,x,1\n"), "d.csv", CSVOptions{LabelColumn: -1})
	wantInputError(t, err, "d.csv", 2, "column 2")
	_, err = ParseCSV(strings.NewReader("1,2,1\n"), "d.csv", CSVOptions{LabelColumn: 5})
	wantInputError(t, err, "d.csv", 1, "label column")
	// 1e400 is a number, one no float64 holds; 1e-400 rounds to zero, as it means
	_, err = ParseCSV(strings.NewReader("1,2,1\n3,1e400,1\n"), "d.csv", CSVOptions{LabelColumn: -1})
	wantInputError(t, err, "d.csv", 2, `"1e400" overflows float64`)
	if ds, err := ParseCSV(strings.NewReader("1,2,1\n3,1e-400,-1\n"), "d.csv", CSVOptions{LabelColumn: -1}); err != nil || ds.Row(1)[1] != 0 {
		t.Errorf("an underflowing value: %v", err)
	}
}

func TestParseSklearnCSV(t *testing.T) {
	ds, err := ParseSklearnCSV(strings.NewReader("2,2,a,b\n1,2,0\n3,4,1\n"), "s.csv", Limits{})
	if err != nil || ds.Len() != 2 || ds.Label(1) != 1 {
		t.Fatalf("%v %v", ds, err)
	}
	_, err = ParseSklearnCSV(strings.NewReader("3,2,a,b\n1,2,0\n3,4,1\n"), "s.csv", Limits{})
	wantInputError(t, err, "s.csv", 3, "ends after 2 rows")
	_, err = ParseSklearnCSV(strings.NewReader("2,2,a,b\n1,2,0\n3,1\n"), "s.csv", Limits{})
	wantInputError(t, err, "s.csv", 3, "2 fields")
	_, err = ParseSklearnCSV(strings.NewReader("x,2\n"), "s.csv", Limits{})
	wantInputError(t, err, "s.csv", 1, "header")
}

func TestParseLIBSVM(t *testing.T) {
	ds, err := ParseLIBSVM(strings.NewReader("+1 1:0.5 3:-1\n-1 2:2 # comment\n"), "h", LIBSVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Dim() != 3 || ds.Row(0)[2] != -1 || ds.Row(0)[1] != 0 || ds.Row(1)[1] != 2 || ds.Label(1) != -1 {
		t.Fatalf("got rows %v %v", ds.Row(0), ds.Row(1))
	}
	_, err = ParseLIBSVM(strings.NewReader("1 1:1\n1 3:1 2:1\n"), "h", LIBSVMOptions{})
	wantInputError(t, err, "h", 2, "ascend")
	_, err = ParseLIBSVM(strings.NewReader("1 1:1\n1 2:1 2:1\n"), "h", LIBSVMOptions{})
	wantInputError(t, err, "h", 2, "index 2 appears twice")
	_, err = ParseLIBSVM(strings.NewReader("1 1:1\n1 2\n"), "h", LIBSVMOptions{})
	wantInputError(t, err, "h", 2, "index:value")
	_, err = ParseLIBSVM(strings.NewReader("1 1:inf\n"), "h", LIBSVMOptions{})
	wantInputError(t, err, "h", 1, "not finite")
}

// idx builds an idx image file of n images of r×c and its label file.
func idx(n, r, c int) (images, labels []byte) {
	var bi, bl bytes.Buffer
	binary.Write(&bi, binary.BigEndian, []uint32{0x803, uint32(n), uint32(r), uint32(c)})
	for i := range n * r * c {
		bi.WriteByte(byte(i))
	}
	binary.Write(&bl, binary.BigEndian, []uint32{0x801, uint32(n)})
	for i := range n {
		bl.WriteByte(byte(i % 10))
	}
	return bi.Bytes(), bl.Bytes()
}

func TestParseIDX(t *testing.T) {
	im, lb := idx(3, 2, 2)
	ds, err := ParseIDX(bytes.NewReader(im), "i", bytes.NewReader(lb), "l", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 3 || ds.Dim() != 4 || ds.Row(2)[3] != 11 || ds.Label(2) != 2 {
		t.Fatalf("got %d×%d row2 %v", ds.Len(), ds.Dim(), ds.Row(2))
	}
	_, err = ParseIDX(bytes.NewReader(im[:len(im)-2]), "i", bytes.NewReader(lb), "l", Limits{})
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "i" || ie.Record != 3 || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("truncated images: %v; want an error naming file i, record 3", err)
	}
	_, err = ParseIDX(bytes.NewReader(im), "i", bytes.NewReader(lb[:9]), "l", Limits{})
	if !errors.As(err, &ie) || ie.File != "l" {
		t.Fatalf("truncated labels: %v", err)
	}
}

func TestLoadIDXGzipAndTruncatedGzip(t *testing.T) {
	dir := t.TempDir()
	im, lb := idx(5, 3, 3)
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	ip, lp := filepath.Join(dir, "x-images-idx3-ubyte.gz"), filepath.Join(dir, "x-labels-idx1-ubyte.gz")
	os.WriteFile(ip, gz(im), 0o644)
	os.WriteFile(lp, gz(lb), 0o644)
	if got := DefaultLabelsPath(ip); got != lp {
		t.Fatalf("DefaultLabelsPath = %s, want %s", got, lp)
	}
	ds, err := LoadIDX(ip, lp, Limits{})
	if err != nil || ds.Len() != 5 {
		t.Fatalf("%v %v", ds, err)
	}
	full := gz(im)
	os.WriteFile(ip, full[:len(full)/2], 0o644)
	_, err = LoadIDX(ip, lp, Limits{})
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != ip {
		t.Fatalf("truncated gzip: %v; want an *InputError naming %s", err, ip)
	}
}

// The repository's data sets load with the shapes datasets/PROVENANCE.md states.
func TestRealDatasets(t *testing.T) {
	dir := testenv.Datasets(t)
	bc, err := LoadSklearnCSV(filepath.Join(dir, "sklearn", "breast_cancer.csv"), Limits{})
	if err != nil || bc.Len() != 569 || bc.Dim() != 30 {
		t.Fatalf("breast cancer: %v %v", bc, err)
	}
	hs, err := LoadLIBSVM(filepath.Join(dir, "liblinear", "heart_scale"), LIBSVMOptions{})
	if err != nil || hs.Len() != 270 || hs.Dim() != 13 {
		t.Fatalf("heart_scale: %v %v", hs, err)
	}
	dg, err := LoadCSV(filepath.Join(dir, "sklearn", "digits.csv.gz"), CSVOptions{LabelColumn: -1})
	if err != nil || dg.Len() != 1797 || dg.Dim() != 64 {
		t.Fatalf("digits: %v %v", dg, err)
	}
	ip := filepath.Join(dir, "mnist-t10k", "t10k-images-idx3-ubyte.gz")
	mn, err := LoadIDX(ip, DefaultLabelsPath(ip), Limits{})
	if err != nil || mn.Len() != 10000 || mn.Dim() != 784 {
		t.Fatalf("mnist: %v %v", mn, err)
	}
	pair, err := mn.SelectClasses(3, 8)
	if err != nil || pair.Len() != 1984 {
		t.Fatalf("mnist 3 vs 8: %d rows (PROVENANCE.md: 1010 threes + 974 eights = 1984), %v", pair.Len(), err)
	}
	var threes int
	for _, y := range pair.Labels() {
		if y == 1 {
			threes++
		}
	}
	if threes != 1010 {
		t.Errorf("%d threes, PROVENANCE.md says 1010", threes)
	}
	for i := range pair.Len() {
		for _, v := range pair.Row(i) {
			if v < 0 || v > 255 || math.IsNaN(v) {
				t.Fatalf("pixel %v out of range", v)
			}
		}
	}
}

func TestParseMatrixCSV(t *testing.T) {
	m, err := ParseMatrixCSV(strings.NewReader("1, 2\n3,4\n5,6\n"), "m.csv", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := m.Dims(); r != 3 || c != 2 || m.At(2, 1) != 6 {
		t.Fatalf("got %d×%d", r, c)
	}
	_, err = ParseMatrixCSV(strings.NewReader("1,2\n3\n"), "m.csv", Limits{})
	wantInputError(t, err, "m.csv", 2, "1 fields, want 2")
	_, err = ParseMatrixCSV(strings.NewReader("1,2\n3,inf\n"), "m.csv", Limits{})
	wantInputError(t, err, "m.csv", 2, "not finite")
	// A matrix holds models' parameters or per-record scores, not a data set: the message
	// must not send a user looking for features and labels in a scores file.
	if strings.Contains(err.Error(), "feature") || strings.Contains(err.Error(), "label") {
		t.Fatalf("got %q; a matrix's bad value must not be called a feature or label", err)
	}
}

// Images and labels need not share compression: DefaultLabelsPath finds the gzipped or
// plain twin of the labels file the MNIST naming gives, and prefers the exact name.
func TestDefaultLabelsPathFindsTwin(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gzImages, plainLabels := filepath.Join(dir, "a-images-idx3-ubyte.gz"), write("a-labels-idx1-ubyte")
	if got := DefaultLabelsPath(gzImages); got != plainLabels {
		t.Errorf("gzipped images, plain labels: %s, want %s", got, plainLabels)
	}
	plainImages, gzLabels := filepath.Join(dir, "b-images-idx3-ubyte"), write("b-labels-idx1-ubyte.gz")
	if got := DefaultLabelsPath(plainImages); got != gzLabels {
		t.Errorf("plain images, gzipped labels: %s, want %s", got, gzLabels)
	}
	exact := write("b-labels-idx1-ubyte")
	if got := DefaultLabelsPath(plainImages); got != exact {
		t.Errorf("both present: %s, want the exact name %s", got, exact)
	}
	if got, want := DefaultLabelsPath(filepath.Join(dir, "c-images-idx3-ubyte")), filepath.Join(dir, "c-labels-idx1-ubyte"); got != want {
		t.Errorf("neither present: %s, want the MNIST name %s", got, want)
	}
}

// The one cap, Limits.MaxValues, stops a dense load at the line that crosses it and
// says how to raise it; lowered here so that a small file reaches it.
func TestLoadersStopAtMaxValues(t *testing.T) {
	lim := Limits{MaxValues: 6} // three rows of two features
	_, err := ParseCSV(strings.NewReader("1,2,1\n3,4,0\n5,6,1\n7,8,0\n"), "rows.csv", CSVOptions{Limits: lim})
	if err == nil {
		t.Fatal("a fourth row of two features passed a cap of 6 values")
	}
	for _, want := range []string{"rows.csv:4", "4 × 2 values exceed the cap of 6", "--max-values"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if _, err := ParseSklearnCSV(strings.NewReader("4,2,a,b\n"), "sk.csv", lim); err == nil || !strings.Contains(err.Error(), "cap of 6") {
		t.Errorf("sklearn header of 4 × 2 under a cap of 6: %v", err)
	}
	if _, err := ParseCSV(strings.NewReader("1,2,1\n3,4,0\n5,6,1\n"), "ok.csv", CSVOptions{Limits: lim}); err != nil {
		t.Errorf("3 × 2 under a cap of 6: %v", err)
	}
}
