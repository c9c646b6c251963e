package reference

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/mat"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// InputError describes bad input: the file, the line (or, for binary formats, the record),
// the field, and what was expected. Line and Field are zero when they do not apply.
type InputError struct {
	File   string
	Line   int    // 1-based line number; 0 when not line-based
	Record int    // 1-based record number for binary formats; 0 otherwise
	Field  string // field name or column, if known
	Msg    string
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Record > 0 {
		fmt.Fprintf(&b, ": record %d", e.Record)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// A CellError is a matrix file's refusal of one value, located by its row and column
// (0-based) in a matrix of Cols columns, for a caller that knows what rows and columns
// hold (verify's scores: models × deleted records) to name them so; Err is the format's
// own error (its file and line), which Error returns.
type CellError struct {
	Row, Col, Cols int
	Err            error
}

func (e *CellError) Error() string { return e.Err.Error() }
func (e *CellError) Unwrap() error { return e.Err }

// open opens a data file, transparently decompressing gzip (detected by magic bytes).
func open(path string, lim Limits) (io.ReadCloser, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	r, err := inflate(path, f, lim)
	if err != nil {
		f.Close()
		return nil, err
	}
	return readCloser{r, f}, nil
}

// inflate reads r, decompressing it if it is gzip (by its magic bytes), bounded by the
// value budget of lim and the amplification (Limits.CheckInflation).
func inflate(name string, r io.Reader, lim Limits) (io.Reader, error) {
	src := &CountingReader{R: r}
	br := bufio.NewReader(src)
	magic, _ := br.Peek(2)
	if !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, &InputError{File: name, Msg: fmt.Sprintf("bad gzip header: %v", err)}
	}
	return lim.LimitInflation(name, zr, src), nil
}

type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// gzipError turns a decompression failure into an InputError naming the file.
func gzipError(name string, err error) error {
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &InputError{File: name, Msg: fmt.Sprintf("file is truncated or corrupt: %v", err)}
	}
	return err
}

func parseFloat(name string, line int, field, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0):
		return 0, &InputError{File: name, Line: line, Field: field, Msg: fmt.Sprintf("%s overflows float64 (largest ±%g)", clip.Quote(s), math.MaxFloat64)}
	case errors.Is(err, strconv.ErrRange):
		// underflow: the value rounds to zero or a subnormal, which is what it means
	case err != nil:
		return 0, &InputError{File: name, Line: line, Field: field, Msg: fmt.Sprintf("%s is not a number", clip.Quote(s))}
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, &InputError{File: name, Line: line, Field: field, Msg: fmt.Sprintf("value %s is not finite; values must be finite", clip.Quote(s))}
	}
	if !plainDecimal(strings.TrimSpace(s)) {
		return 0, &InputError{File: name, Line: line, Field: field, Msg: fmt.Sprintf("%s is not a plain decimal number (digits, a point, an exponent: hex floats and underscores are Go's syntax, not a data file's)", clip.Quote(s))}
	}
	return v, nil
}

// plainDecimal reports whether s is a number as data files write them, and as NumPy,
// pandas and R read them: an optional sign, digits with an optional decimal point (at
// least one digit), and an optional exponent. strconv.ParseFloat also takes Go's hex
// floats (0x1p3) and underscores (1_000), which no other reader of the file would.
func plainDecimal[T string | []byte](s T) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// CSVOptions says how to read a delimited text file.
type CSVOptions struct {
	Header      bool // the first line names the columns and is skipped
	LabelColumn int  // 0-based column holding the label; negative counts from the end (-1 = last)
	Comma       rune // field separator; 0 means ','
	Limits      Limits
}

// LoadCSV reads a delimited text file (plain or gzip) with one row per record and one
// label column. Record IDs are the 0-based row numbers, header excluded.
func LoadCSV(path string, opt CSVOptions) (*Dataset, error) {
	rc, err := open(path, opt.Limits)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ParseCSV(rc, path, opt)
}

// ParseCSV reads CSV from r; name is used in error messages. It streams (see
// MaxFieldBytes): the values cost twice their float64 size, whatever the lines' length.
func ParseCSV(r io.Reader, name string, opt CSVOptions) (*Dataset, error) {
	var (
		vals  chunks[float64]
		label int
	)
	width, rows, err := readCSV(r, name, opt.Comma, opt.Header, csvShape{
		limit: func(rows, fields int) error { return opt.Limits.CheckValues("dense features", rows, fields-1) },
		first: func(line, fields int) error {
			if fields < 2 {
				return &InputError{File: name, Line: line, Msg: fmt.Sprintf("%d column; want features plus a label column", fields)}
			}
			label = opt.LabelColumn
			if label < 0 {
				label += fields
			}
			if label < 0 || label >= fields {
				return &InputError{File: name, Line: line, Field: "label column",
					Msg: fmt.Sprintf("column %d does not exist; rows have %d columns", opt.LabelColumn, fields)}
			}
			return nil
		},
	}, &vals)
	if err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, &InputError{File: name, Msg: "no data rows"}
	}
	xs, ys := splitLabel(&vals, rows, width, label)
	return denseDataset(xs, ys, width-1)
}

// splitLabel copies rows × width values, row-major, into the features (every column
// but label) and the labels.
func splitLabel(vals *chunks[float64], rows, width, label int) (xs, ys []float64) {
	xs, ys = make([]float64, 0, rows*(width-1)), make([]float64, 0, rows)
	col := 0
	vals.each(func(b []float64) {
		for _, v := range b {
			if col == label {
				ys = append(ys, v)
			} else {
				xs = append(xs, v)
			}
			if col++; col == width {
				col = 0
			}
		}
	})
	return xs, ys
}

// csvShape is what a CSV reader checks of the records: limit is Limits.CheckValues' check of rows
// records of fields fields, applied to the first record as each field is read and to
// every later one as it starts, so that a record past the cap is refused where it
// crosses it, not after it is read; first (optional) checks the first record's width;
// cell (optional) wraps the error of the value at row, col of a record of cols fields.
type csvShape struct {
	limit func(rows, fields int) error
	first func(line, fields int) error
	cell  func(row, col, cols int, err error) error
}

// readCSV streams the records of r (skipping the first when header is set) into vals,
// row-major, after checking that every record has as many fields as the first, and
// returns that width and the number of records. It reads as encoding/csv does with
// TrimLeadingSpace (quoted fields, a bare quote refused); a record's errors come in the
// order that reader gave them: its quoting, then its width, then its first bad value.
// Errors name the file and the record's line.
func readCSV(r io.Reader, name string, comma rune, header bool, shape csvShape, vals *chunks[float64]) (width, rows int, err error) {
	if comma == 0 {
		comma = ','
	}
	if !validDelim(comma) {
		return 0, 0, errInvalidDelim
	}
	f := newFieldReader(r, name, comma, false)
	width = -1
	for skip := header; ; skip = false {
		ok, err := f.startRecord()
		if err != nil {
			return 0, 0, gzipError(name, err)
		}
		if !ok {
			return width, rows, nil
		}
		line := f.line
		if width >= 0 && !skip {
			if err := shape.limit(rows+1, width); err != nil {
				return 0, 0, &InputError{File: name, Line: line, Msg: err.Error()}
			}
		}
		var (
			bad    error // the record's first bad value, reported once its width is known good
			badCol int
			n      int
		)
		for last := false; !last; {
			var (
				text []byte
				long bool
			)
			text, long, last, err = f.field()
			if err != nil {
				return 0, 0, gzipError(name, err)
			}
			n++
			if skip || bad != nil || (width >= 0 && n > width) {
				continue
			}
			if width < 0 {
				if err := shape.limit(1, n); err != nil {
					return 0, 0, &InputError{File: name, Line: line, Msg: err.Error()}
				}
			}
			if long {
				bad, badCol = longField(name, line, fmt.Sprintf("column %d", n), text), n-1
				continue
			}
			v, err := parseField(name, line, "column %d", n, text)
			if err != nil {
				bad, badCol = err, n-1
				continue
			}
			vals.add(v)
		}
		if skip {
			continue
		}
		if width < 0 {
			if shape.first != nil {
				if err := shape.first(line, n); err != nil {
					return 0, 0, err
				}
			}
			width = n
		} else if n != width {
			return 0, 0, &InputError{File: name, Line: line, Msg: fmt.Sprintf("row has %d fields, want %d like the first row", n, width)}
		}
		if bad != nil {
			if shape.cell != nil {
				return 0, 0, shape.cell(rows, badCol, n, bad)
			}
			return 0, 0, bad
		}
		rows++
	}
}

func denseDataset(xs, ys []float64, d int) (*Dataset, error) {
	n := len(ys)
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	ds, err := NewDataset(ids, mat.NewDense(n, d, xs), ys)
	if err != nil {
		return nil, err
	}
	return ds, nil
}

// LoadSklearnCSV reads the CSV layout of scikit-learn's bundled datasets
// (breast_cancer.csv, iris.csv, wine_data.csv): a first line "n,d,class names…", then n
// rows of d features followed by the integer label. The counts in the header are checked.
func LoadSklearnCSV(path string, lim Limits) (*Dataset, error) {
	rc, err := open(path, lim)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ParseSklearnCSV(rc, path, lim)
}

// ParseSklearnCSV reads the scikit-learn bundled CSV layout from r; name is used in
// errors. It streams, as ParseCSV does; a line is split at each comma (no quoting).
func ParseSklearnCSV(r io.Reader, name string, lim Limits) (*Dataset, error) {
	f := newFieldReader(r, name, ',', true)
	t := f.t
	if t.ensure(1) == 0 {
		if err := t.failed(); err != nil {
			return nil, gzipError(name, err)
		}
		return nil, &InputError{File: name, Line: 1, Msg: "empty file; want a header \"n,d,class names…\""}
	}
	var head [2]string
	fields := 0
	for last := false; !last; {
		text, long, end, err := f.unquoted()
		if err != nil {
			return nil, gzipError(name, err)
		}
		if fields < len(head) {
			if long {
				return nil, longField(name, 1, "header", text)
			}
			head[fields] = string(text)
		}
		fields++
		last = end
	}
	if fields < 2 {
		return nil, &InputError{File: name, Line: 1, Field: "header", Msg: "want \"n,d,class names…\""}
	}
	n, err1 := strconv.Atoi(strings.TrimSpace(head[0]))
	d, err2 := strconv.Atoi(strings.TrimSpace(head[1]))
	if err1 != nil || err2 != nil || n < 1 || d < 1 {
		return nil, &InputError{File: name, Line: 1, Field: "header", Msg: fmt.Sprintf("counts %s,%s are not positive integers", clip.Quote(head[0]), clip.Quote(head[1]))}
	}
	if err := lim.CheckValues("dense features", n, d); err != nil {
		return nil, &InputError{File: name, Line: 1, Field: "header", Msg: err.Error()}
	}
	// the header bounds what is kept (n × (d+1) values, checked above): a row's fields
	// past d+1 are counted, not kept, and the values grow with the rows read, so that a
	// header cannot make us allocate what the file does not hold
	var vals chunks[float64]
	rows, line := 0, 1
	for t.ensure(1) > 0 {
		line++ // a line is any bytes up to a '\n', as bufio.Scanner counted them
		f.skipSpace()
		if t.ensure(1) == 0 || t.buf[t.pos] == '\n' {
			if err := f.skipLine(); err != nil {
				return nil, gzipError(name, err)
			}
			continue // a blank line
		}
		if rows == n {
			return nil, &InputError{File: name, Line: line, Msg: fmt.Sprintf("more than the %d rows the header announces", n)}
		}
		var (
			bad error // the first bad value, reported once the row's width is known good
			k   int
		)
		for last := false; !last; {
			text, long, end, err := f.unquoted()
			if err != nil {
				return nil, gzipError(name, err)
			}
			last = end
			k++
			if bad != nil || k > d+1 {
				continue
			}
			field, col := "column %d", k
			if k == d+1 {
				field, col = "label", -1
			}
			if last {
				text = bytes.TrimRightFunc(text, unicode.IsSpace) // the line's trailing space
			}
			if long {
				bad = longField(name, line, fieldName(field, col), text)
				continue
			}
			v, err := parseField(name, line, field, col, text)
			if err != nil {
				bad = err
				continue
			}
			vals.add(v)
		}
		if k != d+1 {
			return nil, &InputError{File: name, Line: line, Msg: fmt.Sprintf("row has %d fields, want %d features and a label", k, d)}
		}
		if bad != nil {
			return nil, bad
		}
		rows++
	}
	if err := t.failed(); err != nil {
		return nil, gzipError(name, err)
	}
	if rows != n {
		return nil, &InputError{File: name, Line: line, Msg: fmt.Sprintf("file ends after %d rows; the header announces %d", rows, n)}
	}
	xs, ys := splitLabel(&vals, rows, d+1, d)
	return denseDataset(xs, ys, d)
}

// LIBSVMOptions says how to read LIBSVM sparse text.
type LIBSVMOptions struct {
	// Dim fixes the number of features; 0 means the largest index in the file.
	Dim    int
	Limits Limits
}

// LoadLIBSVM reads LIBSVM sparse text ("label idx:val idx:val …", 1-based ascending
// indices). Record IDs are the 0-based row numbers. The features stay sparse (CSR) when
// fewer than a third of the entries are non-zero — text data, with tens of thousands of
// features — and are dense otherwise, where BLAS is faster.
func LoadLIBSVM(path string, opt LIBSVMOptions) (*Dataset, error) {
	rc, err := open(path, opt.Limits)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ParseLIBSVM(rc, path, opt)
}

// ParseLIBSVM reads LIBSVM sparse text from r; name is used in errors. It streams (see
// MaxFieldBytes) and holds only the entries it has read, in blocks (memory twice the
// entries' 12 bytes, index and value), and refuses a dimension or a dense form above
// opt.Limits.
func ParseLIBSVM(r io.Reader, name string, opt LIBSVMOptions) (*Dataset, error) {
	var (
		idx    chunks[int32]
		vals   chunks[float64]
		ends   chunks[int] // each row's end in idx and vals
		ys     chunks[float64]
		maxCol int
	)
	f := newFieldReader(r, name, ' ', true)
	t := f.t
	line := 0
	for t.ensure(1) > 0 {
		line++ // a line is any bytes up to a '\n', as bufio.Scanner counted them
		labelled, prev := false, 0
		for {
			text, long, ok, err := f.token()
			if err != nil {
				return nil, gzipError(name, err)
			}
			if !ok {
				break
			}
			if !labelled {
				if long {
					return nil, longField(name, line, "label", text)
				}
				y, err := parseField(name, line, "label", -1, text)
				if err != nil {
					return nil, err
				}
				ys.add(y)
				labelled = true
				continue
			}
			if long {
				field := "the first entry"
				if prev > 0 {
					field = fmt.Sprintf("the entry after index %d", prev)
				}
				return nil, longField(name, line, field, text)
			}
			k, vs, ok := bytes.Cut(text, []byte{':'})
			if !ok {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(string(text)), Msg: "want index:value"}
			}
			col, err := strconv.Atoi(string(k))
			if err != nil || col < 1 {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(string(text)), Msg: "index must be a positive integer"}
			}
			if col == prev {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(string(text)), Msg: fmt.Sprintf("index %d appears twice", col)}
			}
			if col < prev {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(string(text)), Msg: fmt.Sprintf("index %d does not follow %d; indices must ascend", col, prev)}
			}
			if opt.Dim > 0 && col > opt.Dim {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(string(text)), Msg: fmt.Sprintf("index %d exceeds the dimension %d", col, opt.Dim)}
			}
			if err := opt.Limits.CheckValues("model parameters (one per feature)", 1, col); err != nil {
				return nil, &InputError{File: name, Line: line, Field: clip.Text(string(text)), Msg: fmt.Sprintf("index %d: %v", col, err)}
			}
			prev = col
			v, err := parseField(name, line, "feature %d", col, vs)
			if err != nil {
				return nil, err
			}
			if v != 0 {
				idx.add(int32(col - 1))
				vals.add(v)
			}
			maxCol = max(maxCol, col)
		}
		if labelled {
			ends.add(vals.n)
		}
	}
	if err := t.failed(); err != nil {
		return nil, gzipError(name, err)
	}
	n := ys.n
	if n == 0 {
		return nil, &InputError{File: name, Msg: "no data rows"}
	}
	d := maxCol
	if opt.Dim > 0 {
		d = opt.Dim
	}
	if d == 0 {
		return nil, &InputError{File: name, Msg: "no features in any row"}
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	// dense when at least a third of the entries are stored (and it fits): there BLAS's
	// kernels beat the indexed loops, and 12 bytes per stored entry approach 8 per entry.
	// It is filled from the blocks, never through a CSR copy.
	if 3*vals.n >= n*d && opt.Limits.CheckValues("dense features", n, d) == nil {
		xs := make([]float64, n*d)
		ic, vc, ec := cursor[int32]{c: &idx}, cursor[float64]{c: &vals}, cursor[int]{c: &ends}
		for i, at := 0, 0; i < n; i++ {
			for end := ec.next(); at < end; at++ {
				xs[i*d+int(ic.next())] = vc.next()
			}
		}
		return denseDataset(xs, ys.flatten(), d)
	}
	sp := &CSR{Rows: n, Cols: d, Indptr: ends.appendTo(make([]int, 1, n+1)), Indices: idx.flatten(), Values: vals.flatten()}
	ds, err := NewSparseDataset(ids, sp, ys.flatten())
	if err != nil {
		return nil, &InputError{File: name, Msg: err.Error()}
	}
	return ds, nil
}

// LoadIDX reads an MNIST-style pair of idx files (plain or gzip): images (magic 0x803,
// n×rows×cols unsigned bytes) and labels (magic 0x801, n unsigned bytes). Pixels are kept
// as their raw values 0..255; use the preprocessing helpers to scale them. Record IDs are
// the 0-based image numbers.
func LoadIDX(imagesPath, labelsPath string, lim Limits) (*Dataset, error) {
	ri, err := open(imagesPath, lim)
	if err != nil {
		return nil, err
	}
	defer ri.Close()
	rl, err := open(labelsPath, lim)
	if err != nil {
		return nil, err
	}
	defer rl.Close()
	return ParseIDX(ri, imagesPath, rl, labelsPath, lim)
}

// DefaultLabelsPath guesses the labels file that goes with an idx images file, following
// the MNIST naming: "…-images-idx3-ubyte…" → "…-labels-idx1-ubyte…". When that file does
// not exist but its gzipped (or un-gzipped) twin does — images kept compressed, labels not,
// or the other way round — it returns the twin.
func DefaultLabelsPath(imagesPath string) string {
	p := strings.Replace(imagesPath, "images-idx3", "labels-idx1", 1)
	if p == imagesPath {
		p = strings.Replace(imagesPath, "images", "labels", 1)
	}
	twin := strings.TrimSuffix(p, ".gz")
	if twin == p {
		twin = p + ".gz"
	}
	if _, err := os.Stat(p); err != nil {
		if _, err := os.Stat(twin); err == nil {
			return twin
		}
	}
	return p
}

// ParseIDX reads idx images and labels from readers; the names are used in errors.
func ParseIDX(images io.Reader, imagesName string, labels io.Reader, labelsName string, lim Limits) (*Dataset, error) {
	var hi [16]byte
	if _, err := io.ReadFull(images, hi[:]); err != nil {
		return nil, &InputError{File: imagesName, Field: "header", Msg: fmt.Sprintf("file ends inside the 16-byte header: %v", err)}
	}
	if m := binary.BigEndian.Uint32(hi[:4]); m != 0x00000803 {
		return nil, &InputError{File: imagesName, Field: "header", Msg: fmt.Sprintf("magic %#08x, want 0x00000803 (unsigned-byte 3-D images)", m)}
	}
	n := int(binary.BigEndian.Uint32(hi[4:8]))
	rows := int(binary.BigEndian.Uint32(hi[8:12]))
	cols := int(binary.BigEndian.Uint32(hi[12:16]))
	// bound each factor before multiplying, so a hostile header cannot overflow the product
	// an image holds at most 65,536 pixels: one is read whole into a buffer before its
	// pixels count as read, so its size must not come from the header unchecked
	if n < 1 || rows < 1 || cols < 1 || rows > 1<<16 || cols > 1<<16 || rows*cols > 1<<16 {
		return nil, &InputError{File: imagesName, Field: "header", Msg: fmt.Sprintf("implausible shape %d×%d×%d", n, rows, cols)}
	}
	if err := lim.CheckValues("dense features", n, rows*cols); err != nil {
		return nil, &InputError{File: imagesName, Field: "header", Msg: err.Error()}
	}
	var hl [8]byte
	if _, err := io.ReadFull(labels, hl[:]); err != nil {
		return nil, &InputError{File: labelsName, Field: "header", Msg: fmt.Sprintf("file ends inside the 8-byte header: %v", err)}
	}
	if m := binary.BigEndian.Uint32(hl[:4]); m != 0x00000801 {
		return nil, &InputError{File: labelsName, Field: "header", Msg: fmt.Sprintf("magic %#08x, want 0x00000801 (unsigned-byte labels)", m)}
	}
	if nl := int(binary.BigEndian.Uint32(hl[4:8])); nl != n {
		return nil, &InputError{File: labelsName, Field: "header", Msg: fmt.Sprintf("%d labels for %d images in %s", nl, n, imagesName)}
	}
	d := rows * cols
	// Grow with what has been read, never with what the header claims: a 24-byte file
	// may announce millions of images (append doubles, so memory stays within a small
	// factor of the bytes read). The pixels are kept as bytes until all are read, then
	// widened once: growing the float64s themselves copied 8 times the bytes at each
	// doubling, a second per MNIST-sized file.
	pix := make([]byte, d)
	var raw []byte
	for i := range n {
		if k, err := io.ReadFull(images, pix); err != nil {
			if ie := (*InflationError)(nil); errors.As(err, &ie) {
				return nil, err
			}
			return nil, &InputError{File: imagesName, Record: i + 1,
				Msg: fmt.Sprintf("file is truncated: image %d of %d has %d of %d bytes (byte offset %d)", i+1, n, k, d, 16+i*d+k)}
		}
		raw = append(raw, pix...)
	}
	xs := make([]float64, len(raw))
	for i, p := range raw {
		xs[i] = float64(p)
	}
	ys := make([]float64, 0, min(n, 1<<16))
	var chunk [4096]byte
	for len(ys) < n {
		want := chunk[:min(len(chunk), n-len(ys))]
		k, err := io.ReadFull(labels, want)
		for _, l := range want[:k] {
			ys = append(ys, float64(l))
		}
		if ie := (*InflationError)(nil); errors.As(err, &ie) {
			return nil, err
		}
		if err != nil {
			return nil, &InputError{File: labelsName, Record: len(ys) + 1, Msg: fmt.Sprintf("file is truncated: %d of %d labels", len(ys), n)}
		}
	}
	return denseDataset(xs, ys, d)
}

// LoadMatrixCSV reads a numeric matrix from a CSV file (plain or gzip) with no header: one
// row per line, the same number of columns on every line, every value finite.
func LoadMatrixCSV(path string, lim Limits) (*mat.Dense, error) {
	rc, err := open(path, lim)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ParseMatrixCSV(rc, path, lim)
}

// ParseMatrixCSV reads a numeric CSV matrix from r; name is used in errors. It streams
// (see ParseCSV): a row past lim's cap is refused at the field that crosses it.
func ParseMatrixCSV(r io.Reader, name string, lim Limits) (*mat.Dense, error) {
	var vals chunks[float64]
	width, rows, err := readCSV(r, name, 0, false, csvShape{
		limit: func(rows, fields int) error { return lim.CheckValues("matrix", rows, fields) },
		cell: func(row, col, cols int, err error) error {
			return &CellError{Row: row, Col: col, Cols: cols, Err: err}
		},
	}, &vals)
	if err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, &InputError{File: name, Msg: "no rows"}
	}
	return mat.NewDense(rows, width, vals.flatten()), nil
}
