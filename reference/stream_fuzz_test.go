package reference

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The streaming readers read what the readers before them read (encoding/csv with
// TrimLeadingSpace, bufio.Scanner over lines; legacy_test.go keeps them): the same
// values, or the same error, word for word, and the same cell of a matrix. Two
// refusals are new and skipped here: a field past MaxFieldBytes, and MaxValues crossed
// (never reached at these sizes).

// sameError reports whether the streaming reader's error matches the legacy one's; skip
// is true for a long field, which only the streaming reader refuses.
func sameError(t *testing.T, got, want error) (skip bool) {
	t.Helper()
	if got != nil && strings.Contains(got.Error(), "bytes; a number takes a few dozen") {
		return true
	}
	if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
		t.Fatalf("streaming: %v\nlegacy:    %v", got, want)
	}
	var g, w *CellError
	if errors.As(got, &g) != errors.As(want, &w) || g != nil && (g.Row != w.Row || g.Col != w.Col || g.Cols != w.Cols) {
		t.Fatalf("streaming cell %+v, legacy %+v", g, w)
	}
	return got != nil
}

func sameDataset(t *testing.T, got, want *Dataset) {
	t.Helper()
	if got.Len() != want.Len() || got.Dim() != want.Dim() || got.IsSparse() != want.IsSparse() {
		t.Fatalf("streaming %d × %d (sparse %v), legacy %d × %d (sparse %v)", got.Len(), got.Dim(), got.IsSparse(), want.Len(), want.Dim(), want.IsSparse())
	}
	for i := range got.Len() {
		if got.Label(i) != want.Label(i) || got.ID(i) != want.ID(i) {
			t.Fatalf("row %d: label %v id %d, legacy %v id %d", i, got.Label(i), got.ID(i), want.Label(i), want.ID(i))
		}
		if got.IsSparse() {
			gi, gv := got.Sparse().Row(i)
			wi, wv := want.Sparse().Row(i)
			if !equalSlices(gi, wi) || !equalSlices(gv, wv) {
				t.Fatalf("row %d: %v %v, legacy %v %v", i, gi, gv, wi, wv)
			}
		} else if !equalSlices(got.Row(i), want.Row(i)) {
			t.Fatalf("row %d: %v, legacy %v", i, got.Row(i), want.Row(i))
		}
	}
}

func equalSlices[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzParseCSVMatchesLegacy(f *testing.F) {
	for _, s := range []string{
		"1,2,1\n3,4,-1\n", "a,b\n1,2\n", "1,\"2\",3\n", "\"1\n\",2\n", "1, 2 ,3\r\n4,5,6\r", "\n\n1,2\n\r\n3,4",
		"1,2\"\n", "\"1\"x,2\n", "\"1\"\"2\",3\n", "\"abc\n", "\"abc\n\r", "1,\t\u00a02\n", "1,2,3\n4,5\n", "1,x,2\n3,4\n",
		"\"a\nb\",c\nd,\"e\n", " \n", "1,2\r\r\n", "1;2;3\n4;5;6\n", "1§2\n3§4\n", "1,2\n3,\"4\"\r5\n",
	} {
		f.Add(s, false, -1, int32(0))
		f.Add(s, true, 0, int32(';'))
	}
	f.Add("1§2\n3§4\n", false, 1, int32('§'))
	f.Add("1\t\t2\n3\t4\t\n", false, -1, int32('\t'))
	f.Add("1 2\n3  4\n", false, -1, int32(' '))
	f.Fuzz(func(t *testing.T, in string, header bool, label int, comma int32) {
		opt := CSVOptions{Header: header, LabelColumn: label, Comma: comma}
		got, err := ParseCSV(strings.NewReader(in), "f.csv", opt)
		want, werr := legacyParseCSV(strings.NewReader(in), "f.csv", opt)
		if sameError(t, err, werr) {
			return
		}
		sameDataset(t, got, want)
	})
}

func FuzzParseMatrixCSVMatchesLegacy(f *testing.F) {
	for _, s := range []string{"1,2\n3,4\n", "1e308,-1e308\n", "1,2\n3,x\n", "1,2\n3\n", "\"1\",2\n\"3\"\"\",4\n", "1,2,3\n4,5,6,7\n8,x\n", "0x1p3,1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseMatrixCSV(strings.NewReader(in), "m.csv", Limits{})
		want, werr := legacyParseMatrixCSV(strings.NewReader(in), "m.csv")
		if sameError(t, err, werr) {
			return
		}
		if !mat.Equal(got, want) {
			t.Fatalf("streaming %v, legacy %v", mat.Formatted(got), mat.Formatted(want))
		}
	})
}

func FuzzParseSklearnCSVMatchesLegacy(f *testing.F) {
	for _, s := range []string{"2,2,a,b\n1,2,0\n3,4,1\n", "1,1\n5,0\n", "2,1\n\n  \n1,0\r\n 2 , 1 \n", "x,2\n", "1,2\n1,2\n3,4,5\n", "1,1\n\"1\",0\n", "", "\n", "3,1\n1,0\n", "1,1\n1,x,2\n", "1,1\n1,0\n2,0\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseSklearnCSV(strings.NewReader(in), "s.csv", Limits{})
		want, werr := legacyParseSklearnCSV(strings.NewReader(in), "s.csv")
		if sameError(t, err, werr) {
			return
		}
		sameDataset(t, got, want)
	})
}

func FuzzParseLIBSVMMatchesLegacy(f *testing.F) {
	for _, s := range []string{"+1 1:0.5 3:-1\n-1 2:2 # comment\n", "1 1:1\n1 3:1 2:1\n", "1 2\n", "1#x 1:2\n1 1:3", "  \n1\u00a01:2\u20032:3\r\n", "1 1:0 2:0\n", "1 1:inf\n", "x\n", "1 :2\n", "1 1:2:3\n"} {
		f.Add(s, 0)
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, in string, dim int) {
		opt := LIBSVMOptions{Dim: dim}
		if dim < 0 || dim > 1<<20 {
			return // a dimension is a caller's choice, not the file's
		}
		got, err := ParseLIBSVM(strings.NewReader(in), "h", opt)
		want, werr := legacyParseLIBSVM(strings.NewReader(in), "h", opt)
		if sameError(t, err, werr) {
			return
		}
		sameDataset(t, got, want)
		for i := range got.Len() {
			if math.IsNaN(got.Label(i)) {
				t.Fatal("NaN label")
			}
		}
	})
}
