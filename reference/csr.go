package reference

import (
	"fmt"
	"math"
)

// CSR is an n × d sparse matrix in compressed sparse row form: row i's non-zeros are
// Values[Indptr[i]:Indptr[i+1]] at the columns Indices[Indptr[i]:Indptr[i+1]], ascending.
// Sparse text data (tens of thousands of features, a few dozen non-zero per row) is held
// this way, and the losses evaluate it directly, so memory and time follow the non-zeros.
type CSR struct {
	Rows, Cols int
	Indptr     []int
	Indices    []int32
	Values     []float64
}

// NNZ is the number of stored entries.
func (m *CSR) NNZ() int { return len(m.Values) }

// check validates the structure: row pointers ascending from 0 to NNZ, column indices
// strictly ascending within each row and below Cols, every value finite.
func (m *CSR) check() error {
	if m.Rows < 0 || m.Cols < 0 || m.Cols > math.MaxInt32 {
		return fmt.Errorf("sparse matrix: shape %d × %d", m.Rows, m.Cols)
	}
	if len(m.Indptr) != m.Rows+1 || m.Indptr[0] != 0 || m.Indptr[m.Rows] != len(m.Values) || len(m.Indices) != len(m.Values) {
		return fmt.Errorf("sparse matrix: %d row pointers, %d indices and %d values for %d rows", len(m.Indptr), len(m.Indices), len(m.Values), m.Rows)
	}
	for i := range m.Rows {
		lo, hi := m.Indptr[i], m.Indptr[i+1]
		if hi < lo {
			return fmt.Errorf("sparse matrix: row %d ends before it starts", i)
		}
		for k := lo; k < hi; k++ {
			if c := m.Indices[k]; c < 0 || int(c) >= m.Cols || (k > lo && c <= m.Indices[k-1]) {
				return fmt.Errorf("sparse matrix: row %d column %d is out of order or range (%d columns)", i, c, m.Cols)
			}
			if v := m.Values[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("sparse matrix: row %d column %d is %v; values must be finite", i, m.Indices[k], v)
			}
		}
	}
	return nil
}

// Row returns row i's column indices and values. They alias the matrix.
func (m *CSR) Row(i int) ([]int32, []float64) {
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	return m.Indices[lo:hi], m.Values[lo:hi]
}

// RowDot is x_i·v.
func (m *CSR) RowDot(i int, v []float64) float64 {
	idx, val := m.Row(i)
	var s float64
	for k, c := range idx {
		s += val[k] * v[c]
	}
	return s
}

// RowAddTo sets dst += a·x_i.
func (m *CSR) RowAddTo(dst []float64, a float64, i int) {
	idx, val := m.Row(i)
	for k, c := range idx {
		dst[c] += a * val[k]
	}
}

// DenseRow writes row i into dst (length Cols), zeros included, and returns it.
func (m *CSR) DenseRow(dst []float64, i int) []float64 {
	clear(dst)
	idx, val := m.Row(i)
	for k, c := range idx {
		dst[c] = val[k]
	}
	return dst
}

// Density is NNZ/(Rows·Cols).
func (m *CSR) Density() float64 {
	if m.Rows == 0 || m.Cols == 0 {
		return 0
	}
	return float64(m.NNZ()) / (float64(m.Rows) * float64(m.Cols))
}

// sparseBuilder appends rows to a CSR matrix.
type sparseBuilder struct{ m CSR }

func newSparseBuilder(cols, rowsHint, nnzHint int) *sparseBuilder {
	b := &sparseBuilder{m: CSR{Cols: cols, Indptr: make([]int, 1, rowsHint+1), Indices: make([]int32, 0, nnzHint), Values: make([]float64, 0, nnzHint)}}
	return b
}

// appendSparse adds a row given by its non-zeros (ascending columns).
func (b *sparseBuilder) appendSparse(idx []int32, val []float64) {
	b.m.Indices = append(b.m.Indices, idx...)
	b.m.Values = append(b.m.Values, val...)
	b.m.Rows++
	b.m.Indptr = append(b.m.Indptr, len(b.m.Values))
}

// appendDense adds a row given densely, keeping its non-zeros.
func (b *sparseBuilder) appendDense(x []float64) {
	for j, v := range x {
		if v != 0 {
			b.m.Indices = append(b.m.Indices, int32(j))
			b.m.Values = append(b.m.Values, v)
		}
	}
	b.m.Rows++
	b.m.Indptr = append(b.m.Indptr, len(b.m.Values))
}

func (b *sparseBuilder) done() *CSR { m := b.m; return &m }
