package artifact

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// An Array is a numeric array read from another tool's file, as float64 in row-major
// (C) order whatever its layout on disk.
type Array struct {
	Name  string // the file, or "file.npz:entry"
	Shape []int
	Data  []float64
	// DType is the element type on disk in NumPy's notation ("<f8", ">f4", …). Float32
	// elements are converted to float64 exactly; Converted says that happened, so a
	// report can say the model was stored in single precision.
	DType     string
	Converted bool
	// Fortran reports that the file stored the array in column-major order (the data here
	// are row-major regardless).
	Fortran bool
}

// Rows and Cols read an array as a matrix: a scalar as 1 × 1, a vector as one row, and an
// array of rank ≥ 2 as Shape[0] rows of the remaining dimensions flattened (one row per
// model, or per output unit of a layer).
func (a *Array) Rows() int {
	if len(a.Shape) < 2 {
		return 1
	}
	return a.Shape[0]
}

// Cols is the length of a row (see Rows).
func (a *Array) Cols() int {
	switch len(a.Shape) {
	case 0:
		return 1
	case 1:
		return a.Shape[0]
	}
	c := 1
	for _, s := range a.Shape[1:] {
		c *= s
	}
	return c
}

// Row returns row i (aliasing the array).
func (a *Array) Row(i int) []float64 { c := a.Cols(); return a.Data[i*c : (i+1)*c] }

// maxNPYHeader bounds the header's length: NumPy itself refuses headers above 10,000 bytes
// unless told otherwise, and an array of rank ≤ 2 needs a few dozen.
const maxNPYHeader = 1 << 16

// LoadNPY reads a NumPy .npy file.
func LoadNPY(path string, lim reference.Limits) (*Array, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load npy: %w", err)
	}
	defer f.Close()
	return ParseNPY(bufio.NewReader(f), path, lim)
}

// ParseNPY reads the .npy format (versions 1.0, 2.0 and 3.0) from r; name is used in
// errors. It accepts float16, float32 and float64 elements of either byte order in C or Fortran
// order, of rank 1 or 2, and refuses everything else by name — object arrays above all,
// which NumPy would unpickle. Memory grows with the bytes read, never with the shape the
// header claims, and the element count is capped by lim.MaxValues.
func ParseNPY(r io.Reader, name string, lim reference.Limits) (*Array, error) {
	h, err := readNPYHeader(r, name)
	if err != nil {
		return nil, err
	}
	return readNPYData(r, name, h, lim)
}

// readNPYHeader reads a .npy file's preamble and header, up to its data.
func readNPYHeader(r io.Reader, name string) (npyHeader, error) {
	fail := func(field, format string, args ...any) error {
		return &reference.InputError{File: name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return npyHeader{}, fail("magic", "file ends inside the 8-byte preamble (%v); not a .npy file", err)
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return npyHeader{}, fail("magic", "does not start with \\x93NUMPY; not a .npy file")
	}
	major, minor := pre[6], pre[7]
	var hlen int
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return npyHeader{}, fail("header", "file ends inside the header length")
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return npyHeader{}, fail("header", "file ends inside the header length")
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return npyHeader{}, fail("version", "format version %d.%d; want 1.0, 2.0 or 3.0", major, minor)
	}
	if hlen > maxNPYHeader {
		return npyHeader{}, fail("header", "header of %d bytes claimed; at most %d are read", hlen, maxNPYHeader)
	}
	head := make([]byte, hlen)
	if _, err := io.ReadFull(r, head); err != nil {
		return npyHeader{}, fail("header", "file ends inside the %d-byte header", hlen)
	}
	h, err := parseNPYHeader(string(head))
	if err != nil {
		return npyHeader{}, fail("header", "%v", err)
	}
	return h, nil
}

// readNPYData reads the elements of a .npy file whose header h was read from r.
func readNPYData(r io.Reader, name string, h npyHeader, lim reference.Limits) (*Array, error) {
	fail := func(field, format string, args ...any) error {
		return &reference.InputError{File: name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	a := &Array{Name: name, Shape: h.shape, DType: h.descr, Fortran: h.fortran}
	size, order, err := elementType(h.descr)
	if err != nil {
		return nil, fail("descr", "%v", err)
	}
	a.Converted = size < 8
	if len(h.shape) < 1 || len(h.shape) > 2 {
		return nil, fail("shape", "rank %d; want a vector (one model) or a matrix (one row per model)", len(h.shape))
	}
	count := 1
	for _, s := range h.shape {
		if err := lim.CheckValues("array "+name, count, s); err != nil {
			return nil, fail("shape", "%v", err)
		}
		count *= s
	}
	if count == 0 {
		return nil, fail("shape", "shape %v holds no elements", h.shape)
	}
	// read in chunks, growing with what arrives
	a.Data = make([]float64, 0, min(count, 1<<16))
	buf := make([]byte, 1<<16-(1<<16)%size)
	for len(a.Data) < count {
		want := min(len(buf), (count-len(a.Data))*size)
		k, err := io.ReadFull(r, buf[:want])
		for off := 0; off+size <= k; off += size {
			var v float64
			switch size {
			case 2:
				v = halfToFloat64(order.Uint16(buf[off:]))
			case 4:
				v = float64(math.Float32frombits(order.Uint32(buf[off:])))
			default:
				v = math.Float64frombits(order.Uint64(buf[off:]))
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nonFinite(name, h.shape, h.fortran, len(a.Data), v)
			}
			a.Data = append(a.Data, v)
		}
		if err != nil {
			return nil, fail("data", "file is truncated: %d of the %d elements shape %v announces", len(a.Data), count, h.shape)
		}
	}
	if n, _ := io.ReadFull(r, buf[:1]); n > 0 {
		return nil, fail("data", "bytes after the %d elements shape %v announces", count, h.shape)
	}
	if h.fortran && len(h.shape) == 2 {
		a.Data = fromColumnMajor(a.Data, h.shape[0], h.shape[1])
	}
	return a, nil
}

// elementType reads a descr: float32 or float64 in a stated byte order.
func elementType(descr string) (size int, order binary.ByteOrder, err error) {
	if len(descr) == 3 {
		switch descr[0] {
		case '<':
			order = binary.LittleEndian
		case '>':
			order = binary.BigEndian
		case '=': // native: every machine this runs on is little-endian
			order = binary.LittleEndian
		}
		switch descr[1:] {
		case "f2":
			size = 2
		case "f4":
			size = 4
		case "f8":
			size = 8
		}
	}
	if order == nil || size == 0 {
		return 0, nil, fmt.Errorf("unsupported dtype %s; want float16, float32 or float64 ('<f2', '<f4', '<f8', or big-endian: convert with arr.astype(np.float64))", clip.Quote(descr))
	}
	return size, order, nil
}

// fromColumnMajor reorders a rows × cols array stored column by column (element (i, j)
// at j·rows + i) into row-major order.
func fromColumnMajor(src []float64, rows, cols int) []float64 {
	out := make([]float64, len(src))
	for j := range cols {
		for i := range rows {
			out[i*cols+j] = src[j*rows+i]
		}
	}
	return out
}

type npyHeader struct {
	descr   string
	fortran bool
	shape   []int
}

// parseNPYHeader reads the header's Python dict literal, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }, with exactly those three
// keys. It is a small parser for that literal, not an evaluator.
func parseNPYHeader(s string) (npyHeader, error) {
	var h npyHeader
	p := &lit{s: strings.TrimRight(s, " \n\x00")}
	if !p.eat('{') {
		return h, fmt.Errorf("want a dict literal {…}")
	}
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, fmt.Errorf("key: %w", err)
		}
		if seen[key] {
			return h, fmt.Errorf("key %s twice", clip.Quote(key))
		}
		seen[key] = true
		p.space()
		if !p.eat(':') {
			return h, fmt.Errorf("want ':' after %s", clip.Quote(key))
		}
		p.space()
		switch key {
		case "descr":
			if h.descr, err = p.str(); err != nil {
				return h, fmt.Errorf("descr: %w (structured dtypes are not supported)", err)
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return h, fmt.Errorf("fortran_order: want True or False")
			}
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return h, fmt.Errorf("shape: %w", err)
			}
		default:
			return h, fmt.Errorf("unknown key %s", clip.Quote(key))
		}
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return h, fmt.Errorf("want ',' or '}' after %s", clip.Quote(key))
			}
			break
		}
	}
	if p.i != len(p.s) {
		return h, fmt.Errorf("text after the dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("key %q missing", k)
		}
	}
	return h, nil
}

// lit scans a Python literal.
type lit struct {
	s string
	i int
}

func (p *lit) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *lit) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *lit) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str reads a quoted string without escapes (NumPy's keys and dtypes have none).
func (p *lit) str() (string, error) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", fmt.Errorf("want a quoted string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", fmt.Errorf("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.ContainsRune(v, '\\') {
		return "", fmt.Errorf("escapes are not supported")
	}
	p.i += end + 2
	return v, nil
}

// tuple reads (a, b, …) of non-negative integers: (), (n,) and (n, m) among them.
func (p *lit) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, fmt.Errorf("want a tuple (…)")
	}
	out := []int{}
	for {
		p.space()
		if p.eat(')') {
			return out, nil
		}
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i || j-p.i > 12 {
			return nil, fmt.Errorf("want a dimension of at most 12 digits")
		}
		v, _ := strconv.Atoi(p.s[p.i:j])
		out = append(out, v)
		if len(out) > 32 {
			return nil, fmt.Errorf("more than 32 dimensions")
		}
		p.i = j
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, fmt.Errorf("want ',' or ')'")
			}
			return out, nil
		}
	}
}

// nonFinite refuses the non-finite value v at position k on disk of an array of the given
// shape: by its row and column (0-based, a vector being one row), never by the flat index
// alone, which in a matrix names no row or column a reader can find.
func nonFinite(name string, shape []int, fortran bool, k int, v float64) error {
	rows, cols := 1, shape[0]
	if len(shape) == 2 {
		rows, cols = shape[0], shape[1]
	}
	row, col := k/cols, k%cols
	if fortran && len(shape) == 2 {
		row, col = k%rows, k/rows
	}
	return &reference.CellError{Row: row, Col: col, Cols: cols,
		Err: &reference.InputError{File: name, Field: fmt.Sprintf("row %d, column %d (0-based, of %d × %d)", row, col, rows, cols), Msg: fmt.Sprintf("%v; values must be finite", v)}}
}
