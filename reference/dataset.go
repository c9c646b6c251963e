package reference

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// A Record is one labelled example with a stable identifier.
type Record struct {
	ID int64
	X  []float64
	Y  float64
}

// ErrUnknownID is wrapped by every error about a record ID that is not in a dataset.
var ErrUnknownID = errors.New("unknown record ID")

// ErrWouldEmpty is wrapped when a deletion would remove every remaining record.
var ErrWouldEmpty = errors.New("a dataset must keep at least one record")

// Dataset is an immutable set of labelled rows, each with a stable int64 record ID.
// Deletion requests name IDs, never row numbers: row positions change as records come
// and go, IDs do not. Deleting an ID that is not present is an error, and the error says
// whether the ID was deleted earlier or never existed.
//
// The feature matrix is dense, n×d, row-major, so that the losses can evaluate it with
// BLAS, or sparse (CSR) for data such as text with few non-zeros per row, which the losses
// evaluate directly (NewSparseDataset; ParseLIBSVM chooses by density). Methods that
// "change" a Dataset return a new one and leave the receiver as it was, in the same form.
type Dataset struct {
	ids     []int64
	x       *mat.Dense // nil when n == 0 or when sparse
	sp      *CSR       // non-nil for a sparse dataset
	y       []float64
	d       int
	index   map[int64]int
	deleted map[int64]struct{} // tombstones, so a second deletion says "already deleted"
}

// NewDataset builds a dataset from parallel IDs, an n×d feature matrix and n labels.
// IDs must be unique and every value finite. The matrix is used as is, not copied.
func NewDataset(ids []int64, x *mat.Dense, y []float64) (*Dataset, error) {
	n, d := 0, 0
	if x != nil {
		n, d = x.Dims()
	}
	if len(ids) != n || len(y) != n {
		return nil, fmt.Errorf("new dataset: %d IDs, %d rows and %d labels; want equal counts", len(ids), n, len(y))
	}
	index := make(map[int64]int, n)
	for i, id := range ids {
		if j, dup := index[id]; dup {
			return nil, fmt.Errorf("new dataset: record ID %d appears at rows %d and %d", id, j, i)
		}
		index[id] = i
	}
	for i := range n {
		for j, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("new dataset: record %d feature %d is %v; features must be finite", ids[i], j, v)
			}
		}
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return nil, fmt.Errorf("new dataset: record %d label is %v; labels must be finite", ids[i], y[i])
		}
	}
	return &Dataset{ids: ids, x: x, y: y, d: d, index: index, deleted: map[int64]struct{}{}}, nil
}

// NewSparseDataset builds a dataset from parallel IDs, a sparse n×d feature matrix and n
// labels. IDs must be unique, the matrix well formed and every value finite. The matrix
// is used as is, not copied.
func NewSparseDataset(ids []int64, x *CSR, y []float64) (*Dataset, error) {
	if err := x.check(); err != nil {
		return nil, fmt.Errorf("new dataset: %w", err)
	}
	if len(ids) != x.Rows || len(y) != x.Rows {
		return nil, fmt.Errorf("new dataset: %d IDs, %d rows and %d labels; want equal counts", len(ids), x.Rows, len(y))
	}
	index := make(map[int64]int, len(ids))
	for i, id := range ids {
		if j, dup := index[id]; dup {
			return nil, fmt.Errorf("new dataset: record ID %d appears at rows %d and %d", id, j, i)
		}
		index[id] = i
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return nil, fmt.Errorf("new dataset: record %d label is %v; labels must be finite", id, y[i])
		}
	}
	return &Dataset{ids: ids, sp: x, y: y, d: x.Cols, index: index, deleted: map[int64]struct{}{}}, nil
}

// IsSparse reports whether the features are held sparse (see Sparse).
func (ds *Dataset) IsSparse() bool { return ds.sp != nil }

// Sparse returns the sparse feature matrix, or nil for a dense dataset. It aliases the
// dataset: do not modify it.
func (ds *Dataset) Sparse() *CSR { return ds.sp }

// FromRecords builds a dataset of dimension d from records, copying their features.
func FromRecords(d int, recs []Record) (*Dataset, error) {
	ids := make([]int64, len(recs))
	y := make([]float64, len(recs))
	var x *mat.Dense
	if len(recs) > 0 {
		x = mat.NewDense(len(recs), d, nil)
	}
	for i, r := range recs {
		if len(r.X) != d {
			return nil, fmt.Errorf("dataset from records: record %d has %d features, want %d", r.ID, len(r.X), d)
		}
		ids[i], y[i] = r.ID, r.Y
		x.SetRow(i, r.X)
	}
	ds, err := NewDataset(ids, x, y)
	if err != nil {
		return nil, err
	}
	ds.d = d
	return ds, nil
}

// Len is the number of rows.
func (ds *Dataset) Len() int { return len(ds.ids) }

// Dim is the number of features per row.
func (ds *Dataset) Dim() int { return ds.d }

// ID returns the record ID of row i.
func (ds *Dataset) ID(i int) int64 { return ds.ids[i] }

// IDs returns a copy of the record IDs in row order.
func (ds *Dataset) IDs() []int64 { return slices.Clone(ds.ids) }

// Row returns the features of row i. For a dense dataset the slice aliases the dataset: do
// not modify it. For a sparse one it is a new dense copy, O(d): loops over rows of data
// that may be sparse should use RowNorm, or the Objective's products.
func (ds *Dataset) Row(i int) []float64 {
	if ds.sp != nil {
		return ds.sp.DenseRow(make([]float64, ds.d), i)
	}
	return ds.x.RawRowView(i)
}

// RowNorm is ‖x_i‖₂ (BLAS's overflow-safe Nrm2, in O(non-zeros) for sparse data).
func (ds *Dataset) RowNorm(i int) float64 {
	if ds.sp != nil {
		_, val := ds.sp.Row(i)
		return Norm(val)
	}
	return Norm(ds.x.RawRowView(i))
}

// rowNormDot is √(x_i·x_i), the form the losses' clipping levels and constants have
// always used (it can differ from RowNorm in the last bit).
func (ds *Dataset) rowNormDot(i int) float64 {
	if ds.sp != nil {
		_, val := ds.sp.Row(i)
		return math.Sqrt(dot(val, val))
	}
	return math.Sqrt(dot(ds.x.RawRowView(i), ds.x.RawRowView(i)))
}

// Label returns the label of row i.
func (ds *Dataset) Label(i int) float64 { return ds.y[i] }

// Labels returns the labels in row order. The slice aliases the dataset: do not modify it.
func (ds *Dataset) Labels() []float64 { return ds.y }

// Features returns the n×d feature matrix, or nil for an empty dataset. For a dense
// dataset it aliases the dataset: do not modify it. For a sparse one it is a new dense
// copy of n·d values (callers that must have dense rows, such as SGLU's model, take it).
func (ds *Dataset) Features() *mat.Dense {
	if ds.sp != nil && ds.Len() > 0 {
		x := mat.NewDense(ds.Len(), ds.d, nil)
		for i := range ds.Len() {
			ds.sp.DenseRow(x.RawRowView(i), i)
		}
		return x
	}
	return ds.x
}

// Record returns a copy of row i as a Record.
func (ds *Dataset) Record(i int) Record {
	return Record{ID: ds.ids[i], X: slices.Clone(ds.Row(i)), Y: ds.y[i]}
}

// Lookup returns the row of the record with the given ID.
func (ds *Dataset) Lookup(id int64) (row int, ok bool) {
	row, ok = ds.index[id]
	return row, ok
}

// Has reports whether the record ID is present.
func (ds *Dataset) Has(id int64) bool { _, ok := ds.index[id]; return ok }

func (ds *Dataset) missing(op string, id int64) error { return missingID(ds.deleted, op, id) }

// missingID is the error for an ID that is not present: deleted earlier, or never seen.
func missingID(deleted map[int64]struct{}, op string, id int64) error {
	if _, gone := deleted[id]; gone {
		return fmt.Errorf("%s: record ID %d was already deleted: %w", op, id, ErrUnknownID)
	}
	return fmt.Errorf("%s: record ID %d is not in the dataset: %w", op, id, ErrUnknownID)
}

// checkRecord validates a record to add to a dataset of dimension d.
func checkRecord(r Record, d int) error {
	if len(r.X) != d {
		return fmt.Errorf("add: record %d has %d features, want %d", r.ID, len(r.X), d)
	}
	for j, v := range r.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("add: record %d feature %d is %v; features must be finite", r.ID, j, v)
		}
	}
	if math.IsNaN(r.Y) || math.IsInf(r.Y, 0) {
		return fmt.Errorf("add: record %d label is %v; labels must be finite", r.ID, r.Y)
	}
	return nil
}

// Subset returns the rows with the given IDs, in the order given. Unknown or repeated IDs
// are errors.
func (ds *Dataset) Subset(ids []int64) (*Dataset, error) {
	rows := make([]int, len(ids))
	seen := make(map[int64]struct{}, len(ids))
	for k, id := range ids {
		i, ok := ds.index[id]
		if !ok {
			return nil, ds.missing("subset", id)
		}
		if _, dup := seen[id]; dup {
			return nil, fmt.Errorf("subset: record ID %d requested twice", id)
		}
		seen[id] = struct{}{}
		rows[k] = i
	}
	return ds.pick(rows, cloneSet(ds.deleted)), nil
}

// Without returns the dataset with the given records deleted. Deleting an unknown or
// already-deleted ID, or naming an ID twice, is an error and leaves nothing deleted.
func (ds *Dataset) Without(ids ...int64) (*Dataset, error) {
	drop := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		if _, ok := ds.index[id]; !ok {
			return nil, ds.missing("delete", id)
		}
		if _, dup := drop[id]; dup {
			return nil, fmt.Errorf("delete: record ID %d named twice in one request", id)
		}
		drop[id] = struct{}{}
	}
	if len(drop) == ds.Len() && ds.Len() > 0 {
		return nil, fmt.Errorf("delete: request removes all %d records: %w", ds.Len(), ErrWouldEmpty)
	}
	rows := make([]int, 0, ds.Len()-len(drop))
	for i, id := range ds.ids {
		if _, gone := drop[id]; !gone {
			rows = append(rows, i)
		}
	}
	deleted := cloneSet(ds.deleted)
	for id := range drop {
		deleted[id] = struct{}{}
	}
	return ds.pick(rows, deleted), nil
}

// With returns the dataset with the records appended. An ID already present is an error;
// re-adding a previously deleted ID is allowed (the record came back).
func (ds *Dataset) With(recs ...Record) (*Dataset, error) {
	seen := make(map[int64]struct{}, len(recs))
	for _, r := range recs {
		if ds.Has(r.ID) {
			return nil, fmt.Errorf("add: record ID %d is already in the dataset", r.ID)
		}
		if _, dup := seen[r.ID]; dup {
			return nil, fmt.Errorf("add: record ID %d named twice in one request", r.ID)
		}
		seen[r.ID] = struct{}{}
		if err := checkRecord(r, ds.d); err != nil {
			return nil, err
		}
	}
	n := ds.Len() + len(recs)
	ids := make([]int64, 0, n)
	y := make([]float64, 0, n)
	ids = append(ids, ds.ids...)
	y = append(y, ds.y...)
	for _, r := range recs {
		ids = append(ids, r.ID)
		y = append(y, r.Y)
	}
	out := &Dataset{ids: ids, y: y, d: ds.d, index: make(map[int64]int, n), deleted: cloneSet(ds.deleted)}
	for i, id := range ids {
		out.index[id] = i
		delete(out.deleted, id)
	}
	if ds.sp != nil {
		b := newSparseBuilder(ds.d, n, ds.sp.NNZ())
		for i := range ds.Len() {
			b.appendSparse(ds.sp.Row(i))
		}
		for _, r := range recs {
			b.appendDense(r.X)
		}
		out.sp = b.done()
		return out, nil
	}
	out.x = mat.NewDense(n, ds.d, nil)
	for i := range ds.Len() {
		out.x.SetRow(i, ds.x.RawRowView(i))
	}
	for k, r := range recs {
		out.x.SetRow(ds.Len()+k, r.X)
	}
	return out, nil
}

// pick copies the given rows into a new dataset.
func (ds *Dataset) pick(rows []int, deleted map[int64]struct{}) *Dataset {
	n := len(rows)
	out := &Dataset{ids: make([]int64, n), y: make([]float64, n), d: ds.d, index: make(map[int64]int, n), deleted: deleted}
	for k, i := range rows {
		out.ids[k], out.y[k] = ds.ids[i], ds.y[i]
		out.index[ds.ids[i]] = k
	}
	if ds.sp != nil {
		nnz := 0
		for _, i := range rows {
			nnz += ds.sp.Indptr[i+1] - ds.sp.Indptr[i]
		}
		b := newSparseBuilder(ds.d, n, nnz)
		for _, i := range rows {
			b.appendSparse(ds.sp.Row(i))
		}
		out.sp = b.done()
		return out
	}
	if n > 0 {
		out.x = mat.NewDense(n, ds.d, nil)
	}
	for k, i := range rows {
		out.x.SetRow(k, ds.x.RawRowView(i))
	}
	return out
}

func cloneSet(m map[int64]struct{}) map[int64]struct{} {
	out := make(map[int64]struct{}, len(m))
	for k := range m {
		out[k] = struct{}{}
	}
	return out
}

// MaxRowNorm returns max_i ‖x_i‖₂.
func (ds *Dataset) MaxRowNorm() float64 {
	var m float64
	for i := range ds.Len() {
		m = math.Max(m, ds.RowNorm(i))
	}
	return m
}

// MaxAbsLabel returns max_i |y_i|.
func (ds *Dataset) MaxAbsLabel() float64 {
	var m float64
	for _, v := range ds.y {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// UpdateKind says whether an update adds or deletes a record.
type UpdateKind int

const (
	// Add inserts a new record.
	Add UpdateKind = iota
	// Delete removes a record by ID.
	Delete
)

func (k UpdateKind) String() string {
	if k == Add {
		return "add"
	}
	return "delete"
}

// An Update is one edit in an update sequence: add a record, or delete one by ID.
type Update struct {
	Kind   UpdateKind
	Record Record // the record to add (Kind == Add)
	ID     int64  // the record to delete (Kind == Delete)
}

// AddRecord is an update that inserts r.
func AddRecord(r Record) Update { return Update{Kind: Add, Record: r, ID: r.ID} }

// DeleteID is an update that removes the record with the given ID.
func DeleteID(id int64) Update { return Update{Kind: Delete, ID: id} }

func (u Update) String() string { return fmt.Sprintf("%s %d", u.Kind, u.ID) }

// Apply returns the dataset after the update.
func (ds *Dataset) Apply(u Update) (*Dataset, error) {
	if u.Kind == Add {
		return ds.With(u.Record)
	}
	return ds.Without(u.ID)
}

// ApplyAll applies a sequence of updates in order and returns every intermediate dataset:
// out[0] is ds, out[i] the dataset after update i. It fails on the first invalid update and
// names its position.
func (ds *Dataset) ApplyAll(us []Update) ([]*Dataset, error) {
	out := make([]*Dataset, 0, len(us)+1)
	out = append(out, ds)
	cur := ds
	for i, u := range us {
		next, err := cur.Apply(u)
		if err != nil {
			return nil, fmt.Errorf("update %d (%s): %w", i+1, u, err)
		}
		out = append(out, next)
		cur = next
	}
	return out, nil
}

// Dims returns (rows, features).
func (ds *Dataset) Dims() (n, d int) { return ds.Len(), ds.Dim() }

// HashInto writes the records — ID, features, label, each little-endian — to w in row
// order: the canonical form fingerprints of a configuration hash.
func (ds *Dataset) HashInto(w io.Writer) {
	buf := make([]byte, 8*(ds.Dim()+2))
	var row []float64 // sparse rows are hashed in their dense form, so both forms agree
	if ds.sp != nil {
		row = make([]float64, ds.d)
	}
	for i := range ds.Len() {
		x := row
		if ds.sp != nil {
			ds.sp.DenseRow(row, i)
		} else {
			x = ds.x.RawRowView(i)
		}
		hashRecord(w, buf, ds.ID(i), x, ds.Label(i))
	}
}

// HashRecords writes records to w in HashInto's form.
func HashRecords(w io.Writer, recs ...Record) {
	var buf []byte
	for _, r := range recs {
		if n := 8 * (len(r.X) + 2); cap(buf) < n {
			buf = make([]byte, n)
		}
		hashRecord(w, buf, r.ID, r.X, r.Y)
	}
}

// hashRecord writes one record through buf, which holds at least 8·(len(x)+2) bytes.
func hashRecord(w io.Writer, buf []byte, id int64, x []float64, y float64) {
	b := buf[:8*(len(x)+2)]
	binary.LittleEndian.PutUint64(b, uint64(id))
	for j, v := range x {
		binary.LittleEndian.PutUint64(b[8*(j+1):], math.Float64bits(v))
	}
	binary.LittleEndian.PutUint64(b[8*(len(x)+1):], math.Float64bits(y))
	w.Write(b)
}
