package reference

// The readers as they were before streaming (encoding/csv and bufio.Scanner over whole
// lines), kept verbatim as the reference the streaming readers are compared with
// (FuzzStreamingMatchesLegacy) and measured against (BenchmarkParseCSV).

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// legacyParseCSV reads CSV from r; name is used in error messages.
func legacyParseCSV(r io.Reader, name string, opt CSVOptions) (*Dataset, error) {
	var (
		xs, ys []float64
		label  int
	)
	width, err := legacyreadCSV(r, name, opt.Comma, opt.Header, func(line int, rec []string, first bool) error {
		if first {
			if len(rec) < 2 {
				return &InputError{File: name, Line: line, Msg: fmt.Sprintf("%d column; want features plus a label column", len(rec))}
			}
			label = opt.LabelColumn
			if label < 0 {
				label += len(rec)
			}
			if label < 0 || label >= len(rec) {
				return &InputError{File: name, Line: line, Field: "label column",
					Msg: fmt.Sprintf("column %d does not exist; rows have %d columns", opt.LabelColumn, len(rec))}
			}
		}
		for j, s := range rec {
			v, err := parseFloat(name, line, fmt.Sprintf("column %d", j+1), s)
			if err != nil {
				return err
			}
			if j == label {
				ys = append(ys, v)
			} else {
				xs = append(xs, v)
			}
		}
		if err := (Limits{}).CheckValues("dense features", len(ys), len(rec)-1); err != nil {
			return &InputError{File: name, Line: line, Msg: err.Error()}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ys) == 0 {
		return nil, &InputError{File: name, Msg: "no data rows"}
	}
	return denseDataset(xs, ys, width-1)
}

// legacyreadCSV calls row for every record of r (skipping the first line when header is set),
// after checking that every record has as many fields as the first; first is true for the
// first record. It returns the number of fields. Errors name the file and line.
func legacyreadCSV(r io.Reader, name string, comma rune, header bool, row func(line int, rec []string, first bool) error) (int, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	if comma != 0 {
		cr.Comma = comma
	}
	width := -1
	skip := header
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return width, nil
		}
		if err != nil {
			if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
				return 0, &InputError{File: name, Line: pe.Line, Msg: pe.Err.Error()}
			}
			return 0, gzipError(name, err)
		}
		if skip {
			skip = false
			continue
		}
		line, _ := cr.FieldPos(0)
		first := width < 0
		if first {
			width = len(rec)
		}
		if len(rec) != width {
			return 0, &InputError{File: name, Line: line, Msg: fmt.Sprintf("row has %d fields, want %d like the first row", len(rec), width)}
		}
		if err := row(line, rec, first); err != nil {
			return 0, err
		}
	}
}

// legacyParseSklearnCSV reads the scikit-learn bundled CSV layout from r; name is used in errors.
func legacyParseSklearnCSV(r io.Reader, name string) (*Dataset, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	if !scan(sc) {
		if err := sc.Err(); err != nil {
			return nil, gzipError(name, err)
		}
		return nil, &InputError{File: name, Line: 1, Msg: "empty file; want a header \"n,d,class names…\""}
	}
	head := strings.Split(sc.Text(), ",")
	if len(head) < 2 {
		return nil, &InputError{File: name, Line: 1, Field: "header", Msg: "want \"n,d,class names…\""}
	}
	n, err1 := strconv.Atoi(strings.TrimSpace(head[0]))
	d, err2 := strconv.Atoi(strings.TrimSpace(head[1]))
	if err1 != nil || err2 != nil || n < 1 || d < 1 {
		return nil, &InputError{File: name, Line: 1, Field: "header", Msg: fmt.Sprintf("counts %s,%s are not positive integers", clip.Quote(head[0]), clip.Quote(head[1]))}
	}
	if err := (Limits{}).CheckValues("dense features", n, d); err != nil {
		return nil, &InputError{File: name, Line: 1, Field: "header", Msg: err.Error()}
	}
	// reserve what a small file needs; beyond that, grow with the rows read, so that a
	// header cannot make us allocate what the file does not hold
	xs := make([]float64, 0, min(n*d, 1<<16))
	ys := make([]float64, 0, min(n, 1<<12))
	line := 1
	for scan(sc) {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if len(ys) == n {
			return nil, &InputError{File: name, Line: line, Msg: fmt.Sprintf("more than the %d rows the header announces", n)}
		}
		fields := strings.Split(text, ",")
		if len(fields) != d+1 {
			return nil, &InputError{File: name, Line: line, Msg: fmt.Sprintf("row has %d fields, want %d features and a label", len(fields), d)}
		}
		for j, s := range fields {
			field := fmt.Sprintf("column %d", j+1)
			if j == d {
				field = "label"
			}
			v, err := parseFloat(name, line, field, s)
			if err != nil {
				return nil, err
			}
			if j == d {
				ys = append(ys, v)
			} else {
				xs = append(xs, v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, gzipError(name, err)
	}
	if len(ys) != n {
		return nil, &InputError{File: name, Line: line, Msg: fmt.Sprintf("file ends after %d rows; the header announces %d", len(ys), n)}
	}
	return denseDataset(xs, ys, d)
}

// legacyParseLIBSVM reads LIBSVM sparse text from r; name is used in errors. It holds only the
// entries it has read (memory proportional to the input), and refuses a dimension or a
// dense form above MaxValues.
func legacyParseLIBSVM(r io.Reader, name string, opt LIBSVMOptions) (*Dataset, error) {
	var (
		b      = newSparseBuilder(opt.Dim, 0, 0)
		ys     []float64
		maxCol int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	line := 0
	for scan(sc) {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		y, err := parseFloat(name, line, "label", fields[0])
		if err != nil {
			return nil, err
		}
		ys = append(ys, y)
		prev := 0
		for _, f := range fields[1:] {
			k, vs, ok := strings.Cut(f, ":")
			if !ok {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(f), Msg: "want index:value"}
			}
			col, err := strconv.Atoi(k)
			if err != nil || col < 1 {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(f), Msg: "index must be a positive integer"}
			}
			if col == prev {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(f), Msg: fmt.Sprintf("index %d appears twice", col)}
			}
			if col < prev {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(f), Msg: fmt.Sprintf("index %d does not follow %d; indices must ascend", col, prev)}
			}
			if opt.Dim > 0 && col > opt.Dim {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(f), Msg: fmt.Sprintf("index %d exceeds the dimension %d", col, opt.Dim)}
			}
			if err := (Limits{}).CheckValues("model parameters (one per feature)", 1, col); err != nil {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(f), Msg: fmt.Sprintf("index %d: %v", col, err)}
			}
			prev = col
			v, err := parseFloat(name, line, fmt.Sprintf("feature %d", col), vs)
			if err != nil {
				return nil, err
			}
			if v != 0 {
				b.m.Indices = append(b.m.Indices, int32(col-1))
				b.m.Values = append(b.m.Values, v)
			}
			maxCol = max(maxCol, col)
		}
		b.m.Rows++
		b.m.Indptr = append(b.m.Indptr, len(b.m.Values))
	}
	if err := sc.Err(); err != nil {
		return nil, gzipError(name, err)
	}
	if len(ys) == 0 {
		return nil, &InputError{File: name, Msg: "no data rows"}
	}
	d := maxCol
	if opt.Dim > 0 {
		d = opt.Dim
	}
	if d == 0 {
		return nil, &InputError{File: name, Msg: "no features in any row"}
	}
	sp := b.done()
	sp.Cols = d
	ids := make([]int64, len(ys))
	for i := range ids {
		ids[i] = int64(i)
	}
	// dense when at least a third of the entries are stored (and it fits): there BLAS's
	// kernels beat the indexed loops, and 12 bytes per stored entry approach 8 per entry
	if 3*sp.NNZ() >= len(ys)*d && (Limits{}).CheckValues("dense features", len(ys), d) == nil {
		xs := make([]float64, len(ys)*d)
		for i := range len(ys) {
			sp.DenseRow(xs[i*d:(i+1)*d], i)
		}
		return denseDataset(xs, ys, d)
	}
	ds, err := NewSparseDataset(ids, sp, ys)
	if err != nil {
		return nil, &InputError{File: name, Msg: err.Error()}
	}
	return ds, nil
}

// legacyParseMatrixCSV reads a numeric CSV matrix from r; name is used in errors.
func legacyParseMatrixCSV(r io.Reader, name string) (*mat.Dense, error) {
	var vals []float64
	rows := 0
	width, err := legacyreadCSV(r, name, 0, false, func(line int, rec []string, _ bool) error {
		for j, s := range rec {
			v, err := parseFloat(name, line, fmt.Sprintf("column %d", j+1), s)
			if err != nil {
				return &CellError{Row: rows, Col: j, Cols: len(rec), Err: err}
			}
			vals = append(vals, v)
		}
		rows++
		if err := (Limits{}).CheckValues("matrix", rows, len(rec)); err != nil {
			return &InputError{File: name, Line: line, Msg: err.Error()}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, &InputError{File: name, Msg: "no rows"}
	}
	return mat.NewDense(rows, width, vals), nil
}

// scan is sc.Scan for a line that was read whole: after a read error (a refused
// decompression) bufio.Scanner hands the rest of its buffer over as a last line, and the
// error, not that line, is what is wrong — the caller reports sc.Err() after its loop.
func scan(sc *bufio.Scanner) bool { return sc.Scan() && sc.Err() == nil }
