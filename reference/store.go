package reference

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// A Store is a mutable dataset for learners that serve long request sequences. Applying
// an update to a Dataset copies all n rows, because a Dataset is immutable: O(n·d) time
// and memory per request, as much as a gradient evaluation. A Store deletes by moving its
// last row into the hole and adds by appending, both O(d) (amortised). View returns the
// current contents as a Dataset that shares the store's memory.
//
// Requests are validated exactly as Dataset.Apply validates them, with the same errors.
type Store struct {
	d       int
	ids     []int64
	y       []float64
	raw     []float64 // row-major features of the n rows
	index   map[int64]int
	deleted map[int64]struct{}
}

// NewStore copies ds into a store.
func NewStore(ds *Dataset) *Store {
	s := &Store{d: ds.d, ids: slices.Clone(ds.ids), y: slices.Clone(ds.y), raw: make([]float64, 0, ds.Len()*ds.d),
		index: make(map[int64]int, ds.Len()), deleted: cloneSet(ds.deleted)}
	for i := range ds.Len() {
		s.raw = append(s.raw, ds.Row(i)...)
		s.index[ds.ids[i]] = i
	}
	return s
}

// Len is the number of records held.
func (s *Store) Len() int { return len(s.ids) }

// Check returns the error Apply would return for u, and changes nothing.
func (s *Store) Check(u Update) error {
	if u.Kind == Add {
		if _, ok := s.index[u.Record.ID]; ok {
			return fmt.Errorf("add: record ID %d is already in the dataset", u.Record.ID)
		}
		return checkRecord(u.Record, s.d)
	}
	if _, ok := s.index[u.ID]; !ok {
		return missingID(s.deleted, "delete", u.ID)
	}
	if s.Len() == 1 {
		return fmt.Errorf("delete: request removes all 1 records: %w", ErrWouldEmpty)
	}
	return nil
}

// Apply serves one update in place. An invalid update is an error and changes nothing.
func (s *Store) Apply(u Update) error {
	if err := s.Check(u); err != nil {
		return err
	}
	if u.Kind == Add {
		r := u.Record
		s.index[r.ID] = len(s.ids)
		s.ids, s.y, s.raw = append(s.ids, r.ID), append(s.y, r.Y), append(s.raw, r.X...)
		delete(s.deleted, r.ID)
		return nil
	}
	i, last := s.index[u.ID], len(s.ids)-1
	if i != last {
		s.ids[i], s.y[i] = s.ids[last], s.y[last]
		copy(s.raw[i*s.d:(i+1)*s.d], s.raw[last*s.d:])
		s.index[s.ids[i]] = i
	}
	s.ids, s.y, s.raw = s.ids[:last], s.y[:last], s.raw[:last*s.d]
	delete(s.index, u.ID)
	s.deleted[u.ID] = struct{}{}
	return nil
}

// View returns the current contents as a Dataset without copying. The view is valid until
// the store next changes; keep Snapshot for longer.
func (s *Store) View() *Dataset {
	n := len(s.ids)
	ds := &Dataset{ids: s.ids[:n:n], y: s.y[:n:n], d: s.d, index: s.index, deleted: s.deleted}
	if n > 0 {
		ds.x = mat.NewDense(n, s.d, s.raw[:n*s.d:n*s.d])
	}
	return ds
}

// Snapshot returns an independent copy of the current contents, rows in the store's order.
func (s *Store) Snapshot() *Dataset {
	v := s.View()
	rows := make([]int, v.Len())
	for i := range rows {
		rows[i] = i
	}
	return v.pick(rows, cloneSet(s.deleted))
}
