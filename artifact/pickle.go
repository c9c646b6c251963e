package artifact

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// This file is a pickle reader for the subset torch.save writes for a state dict: an
// OrderedDict of tensors, each rebuilt by torch._utils._rebuild_tensor_v2 from a storage
// named by a persistent id. It is a stack machine over the opcodes of protocols 2 to 5
// that such files use and nothing else: it imports nothing, calls nothing, and builds
// only the values below. A GLOBAL outside the allow-list (globalKinds) ends the read,
// because only the allow-list can appear in a file of weights; anything else is a
// pickled object whose reading would run its class's code.

// Bounds of one pickle, whatever it claims.
//
// Memory is a budget, not a hope: the machine charges every object it builds — each
// string, integer, tuple, dict and dict entry, global, storage, tensor and memo entry —
// and every array its stack, memo and dicts grow into, to a budget of
// pickleBudgetPerByte bytes per byte of the pickle plus pickleBudgetBase, and the read
// ends with an error when the charges pass it. A charge is an upper bound of the Go heap
// the object takes (allocBytes rounds a size up past its size class; a map entry is
// charged mapEntryBytes, what a swiss-table entry costs with the tables it outgrew), and
// nothing is refunded when it is dropped, so the budget bounds what the read allocates,
// garbage included (TestPickleBudgetBoundsAllocation measures it). A pickle is not a
// compact encoding of what it builds: one byte (TUPLE1) builds a tuple of 48 bytes, and
// torch.save's own pickles build 13 to 25 times their bytes (their memo entries, hook
// dicts and small tuples), so the multiple is chosen for them (see pickleBudgetPerByte),
// and a pickle that builds more per byte than they do is refused at a size the budget
// states.
//
// Depth: tuples and dicts may nest at most maxPickleDepth deep, checked as each is built
// (its depth is one more than its deepest item's, kept in the container, so the check
// walks nothing). No code walks a pickled value recursively beyond a fixed depth (render
// stops at renderDepth), so a value nested two million deep is refused at depth 101, and
// an error naming a value prints a bounded rendering of it.
const (
	// maxPickleBytes bounds the pickle read: torch.save writes 50 to 120 bytes a tensor,
	// so 8 MiB holds a state dict of 70 000 tensors or more, far beyond any model's,
	// and the budget of so large a pickle (260 MiB) bounds what any .pt costs to read.
	maxPickleBytes = 8 << 20
	maxPickleStack = 1 << 20 // SETITEMS batches 1000 items: a few thousand at most
	maxPickleMarks = 64      // a state dict nests 3 deep
	maxPickleMemo  = 1 << 22
	// maxPickleDepth bounds how deep tuples and dicts nest. A state dict nests 2 deep
	// (_rebuild_tensor_v2's arguments hold the size, stride and persistent id tuples;
	// the OrderedDict holds tensors, which hold no container), a checkpoint one or two
	// more; 100 is far above any file of weights and far below a depth that could hurt
	// a reader of the value.
	maxPickleDepth = 100
	// pickleBudgetPerByte and pickleBudgetBase make the budget: 32 bytes of objects per
	// byte of pickle, plus 4 MiB. torch.save's pickles build 13 to 25 bytes of objects a
	// byte (protocol 2's and 4's layouts, 1 to 10 000 tensors of rank 0 to 4:
	// TestPickleBudgetFitsTorch; 50 000 measured 13.5 to 21), so every one fits by the
	// multiple alone, with a third to spare; the base covers a small pickle's fixed costs
	// (the storages map, the first arrays) many times. The multiple is not "a few":
	// that is what Go objects cost beside the bytes that name them, and maxPickleBytes is
	// what keeps the whole small: 8 MiB of pickle may build at most 260 MiB before it is
	// refused, and a 2 MiB flood of one-byte tuples 68 MiB.
	pickleBudgetPerByte = 32
	pickleBudgetBase    = 4 << 20
)

type (
	pyNone  struct{}
	pyList  struct{} // a list's items are never read: a state dict's lists are build arguments
	pyTuple struct {
		items []any
		depth int // 1 + the deepest item's depth (0 for a value that is not a container)
	}
	// pyDict is a dict or OrderedDict in insertion order; a string key set twice keeps
	// its first place and its last value, as Python does.
	pyDict struct {
		keys, vals []any
		index      map[string]int // made at the first string key
		depth      int            // as pyTuple's, raised as items are set
	}
	// pyGlobal is an allow-listed name (never imported: its kind says what REDUCE of
	// it builds).
	pyGlobal struct {
		module, name string
		kind         globalKind
		dtype        string // for a storage class: float32, int64, …
	}
	// ptStorage is a storage named by a persistent id: numel elements of dtype in the
	// archive's entry data/<key>.
	ptStorage struct {
		class *pyGlobal
		key   string
		numel int64
	}
	// ptTensor is a view of a storage: torch's (offset, size, stride) in elements.
	ptTensor struct {
		storage      *ptStorage
		offset       int64
		size, stride []int64
	}
)

type globalKind int

const (
	globalOrderedDict globalKind = iota + 1
	globalRebuildTensor
	globalRebuildParameter
	globalStorage
)

// storageDTypes are torch's storage classes by the dtype of their elements. The floating
// ones are read; the others are recognised so that a state dict's integer buffers
// (BatchNorm's num_batches_tracked) can be skipped by name rather than refused.
var storageDTypes = map[string]string{
	"FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16", "BFloat16Storage": "bfloat16",
	"LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8",
	"ByteStorage": "uint8", "BoolStorage": "bool", "ComplexFloatStorage": "complex64", "ComplexDoubleStorage": "complex128",
}

// lookupGlobal returns the allow-listed global module.name, or an error saying why a
// file of weights never names it.
func lookupGlobal(module, name string) (*pyGlobal, error) {
	g := &pyGlobal{module: module, name: name}
	switch {
	case module == "collections" && name == "OrderedDict":
		g.kind = globalOrderedDict
	case module == "torch._utils" && name == "_rebuild_tensor_v2":
		g.kind = globalRebuildTensor
	case module == "torch._utils" && name == "_rebuild_parameter":
		g.kind = globalRebuildParameter
	default:
		if dt, ok := storageDTypes[name]; ok && module == "torch" {
			g.kind, g.dtype = globalStorage, dt
			return g, nil
		}
		return nil, &globalError{module: module, name: name}
	}
	return g, nil
}

// A globalError is a pickle naming a class or function outside the allow-list.
type globalError struct{ module, name string }

func (e *globalError) Error() string {
	what := fmt.Sprintf("the pickle imports %s, which a state dict of tensors never does", dotted(e.module, e.name))
	// a model class (torch.nn.modules.linear.Linear, the user's own __main__.Net): a class
	// name is capitalised, a function's (os.system, builtins.eval) is not
	first, _ := utf8.DecodeRuneInString(e.name)
	if e.module == "__main__" || strings.HasPrefix(e.module, "torch.nn.") || unicode.IsUpper(first) {
		return what + ": the file looks saved with torch.save(model); save model.state_dict() instead (torch.save(model.state_dict(), path)); it is not read, because reading it would run that class's code"
	}
	return what + "; it is not read, because reading it would run that code (save model.state_dict() with torch.save)"
}

// dotted is a global's module.name as a message shows it: bare when both are Python
// dotted names of at most clip.Max characters (posix.system), else each quoted and
// clipped by clip.Quote, which escapes control characters, so that a name holding a
// terminal escape or megabytes is echoed neither raw nor whole.
func dotted(module, name string) string {
	if plainName(module) && plainName(name) {
		return module + "." + name
	}
	return clip.Quote(module) + "." + clip.Quote(name)
}

// plainName reports whether s is a dotted Python name short enough to print bare.
func plainName(s string) bool {
	if s == "" || len(s) > clip.Max {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

var errPickleTruncated = errors.New("the pickle ends before its STOP opcode")

// A budgetError is a pickle whose objects pass its budget.
type budgetError struct{ size, budget int64 }

func (e *budgetError) Error() string {
	return fmt.Sprintf("the objects the pickle builds pass its budget of %d bytes (%d per byte of its %d, plus %d); torch.save's pickles of state dicts build at most 25 a byte", e.budget, pickleBudgetPerByte, e.size, pickleBudgetBase)
}

// pickleBudget is the bytes of objects a pickle of n bytes may build.
func pickleBudget(n int) int64 { return pickleBudgetPerByte*int64(n) + pickleBudgetBase }

// Charges of the objects the machine builds, in bytes of Go heap (upper bounds: see
// allocBytes and the sizes below).
const (
	boxBytes      = 16  // a string or slice header boxed in an interface; an interface slot
	mapBaseBytes  = 256 // a map's header and first group of eight slots
	mapEntryBytes = 128 // a swiss-table slot of ≤ 24 bytes, at a load down to 7/16, twice over for the tables it outgrew
)

// allocBytes bounds what the Go heap takes for an allocation of n bytes: its size
// class, which is at most the next multiple of 16 up to 128 bytes, at most a quarter
// more (plus 16) above, and whole 8 KiB pages beyond 32 KiB (a quarter more at most).
func allocBytes(n int) int64 {
	switch {
	case n <= 0:
		return 0
	case n <= 8:
		return 8
	case n <= 128:
		return int64(n+15) &^ 15
	}
	return int64(n) + int64(n)/4 + 16
}

// unpickler is the machine's state over one pickle held in memory.
type unpickler struct {
	in    []byte
	pos   int
	stack []any
	marks []int
	// memo holds entries 0 … len−1 (torch.save numbers them in order, so every entry
	// lands here at 16 bytes); sparse the others, every one ≥ len(memo).
	memo     []any
	sparse   map[uint32]any
	storages map[string]*ptStorage // persistent ids by key: a storage shared by views is one
	used     int64                 // bytes charged
	budget   int64
}

// unpickle runs the pickle in to its STOP and returns the value it built.
func unpickle(in []byte) (any, map[string]*ptStorage, error) {
	if len(in) > maxPickleBytes {
		return nil, nil, fmt.Errorf("a pickle of %d bytes; at most %d are read", len(in), maxPickleBytes)
	}
	u := &unpickler{in: in, storages: map[string]*ptStorage{}, budget: pickleBudget(len(in))}
	v, err := u.run()
	if err != nil {
		return nil, nil, fmt.Errorf("byte %d: %w", u.pos, err)
	}
	return v, u.storages, nil
}

// charge adds n bytes to what the pickle has built, or fails when that passes the
// budget.
func (u *unpickler) charge(n int64) error {
	if u.used += n; u.used > u.budget {
		return &budgetError{size: int64(len(u.in)), budget: u.budget}
	}
	return nil
}

// appendCharged appends v to s, charging a new backing array whole (size bytes an
// element) when s is full. It doubles, so the arrays s has had sum to less than twice
// its last.
func appendCharged[T any](u *unpickler, s []T, v T, size int) ([]T, error) {
	if len(s) == cap(s) {
		n := max(8, 2*cap(s))
		if err := u.charge(allocBytes(n * size)); err != nil {
			return s, err
		}
		grown := make([]T, len(s), n)
		copy(grown, s)
		s = grown
	}
	return append(s, v), nil
}

func (u *unpickler) next(n int) ([]byte, error) {
	if n < 0 || n > len(u.in)-u.pos {
		return nil, errPickleTruncated
	}
	b := u.in[u.pos : u.pos+n]
	u.pos += n
	return b, nil
}

// push puts v on the stack after charging cost, the bytes v took to build (0 for a
// value already built and charged).
func (u *unpickler) push(v any, cost int64) error {
	if len(u.stack) >= maxPickleStack {
		return fmt.Errorf("more than %d values on the stack", maxPickleStack)
	}
	if err := u.charge(cost); err != nil {
		return err
	}
	var err error
	u.stack, err = appendCharged(u, u.stack, v, boxBytes)
	return err
}

func (u *unpickler) pop() (any, error) {
	if len(u.stack) == 0 || len(u.marks) > 0 && len(u.stack) == u.marks[len(u.marks)-1] {
		return nil, errors.New("pops an empty stack")
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	return v, nil
}

func (u *unpickler) top() (any, error) {
	if len(u.stack) == 0 || len(u.marks) > 0 && len(u.stack) == u.marks[len(u.marks)-1] {
		return nil, errors.New("reads an empty stack")
	}
	return u.stack[len(u.stack)-1], nil
}

// popMark returns the values pushed since the last MARK (aliasing the stack) and drops
// them and the mark.
func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, errors.New("no MARK to pop to")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := u.stack[m:]
	u.stack = u.stack[:m]
	return items, nil
}

func (u *unpickler) put(i uint32) error {
	v, err := u.top()
	if err != nil {
		return err
	}
	if int64(i) < int64(len(u.memo)) {
		u.memo[i] = v
		return nil
	}
	if _, ok := u.sparse[i]; ok {
		u.sparse[i] = v
		return nil
	}
	if len(u.memo)+len(u.sparse) >= maxPickleMemo {
		return fmt.Errorf("more than %d memo entries", maxPickleMemo)
	}
	if int64(i) == int64(len(u.memo)) {
		u.memo, err = appendCharged(u, u.memo, v, boxBytes)
		return err
	}
	cost := int64(mapEntryBytes)
	if u.sparse == nil {
		cost += mapBaseBytes
	}
	if err := u.charge(cost); err != nil {
		return err
	}
	if u.sparse == nil {
		u.sparse = map[uint32]any{}
	}
	u.sparse[i] = v
	return nil
}

func (u *unpickler) get(i uint32) error {
	var v any
	ok := int64(i) < int64(len(u.memo))
	if ok {
		v = u.memo[i]
	} else {
		v, ok = u.sparse[i]
	}
	if !ok {
		return fmt.Errorf("memo entry %d read before it was written", i)
	}
	return u.push(v, 0)
}

// str reads a string of n bytes and charges it: its bytes and the header its boxing in
// an interface allocates.
func (u *unpickler) str(n int) (string, error) {
	b, err := u.next(n)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", errors.New("a string that is not UTF-8")
	}
	if err := u.charge(allocBytes(n) + boxBytes); err != nil {
		return "", err
	}
	return string(b), nil
}

// depthOf is how deep a value nests containers: 0 for one that is not a tuple or dict.
func depthOf(v any) int {
	switch v := v.(type) {
	case *pyTuple:
		return v.depth
	case *pyDict:
		return v.depth
	}
	return 0
}

var errTooDeep = fmt.Errorf("tuples and dicts nested more than %d deep; a state dict nests 2", maxPickleDepth)

// emptyTuple is every () a pickle builds: a tuple cannot change, so one serves all, and
// costs nothing (torch.save writes one for each tensor's hooks).
var emptyTuple = &pyTuple{depth: 1}

// tuple builds a tuple of a copy of items, charged and within the depth bound.
func (u *unpickler) tuple(items []any) error {
	d := 0
	for _, x := range items {
		d = max(d, depthOf(x))
	}
	if d >= maxPickleDepth {
		return errTooDeep
	}
	if len(items) == 0 {
		return u.push(emptyTuple, 0)
	}
	if err := u.charge(allocBytes(32) + allocBytes(boxBytes*len(items))); err != nil {
		return err
	}
	t := &pyTuple{items: append([]any(nil), items...), depth: d + 1}
	return u.push(t, 0)
}

// newDict pushes an empty dict, charged.
func (u *unpickler) newDict() error {
	return u.push(&pyDict{depth: 1}, allocBytes(64))
}

// set sets d[k] = v: a string key set twice keeps its first place and its last value,
// as Python does. New places are charged, and d's depth rises with v's.
func (u *unpickler) set(d *pyDict, k, v any) error {
	nd := 1 + max(depthOf(k), depthOf(v))
	if nd > maxPickleDepth {
		return errTooDeep
	}
	d.depth = max(d.depth, nd)
	s, isStr := k.(string)
	if isStr {
		if i, ok := d.index[s]; ok {
			d.vals[i] = v
			return nil
		}
		cost := int64(mapEntryBytes)
		if d.index == nil {
			cost += mapBaseBytes
		}
		if err := u.charge(cost); err != nil {
			return err
		}
		if d.index == nil {
			d.index = map[string]int{}
		}
		d.index[s] = len(d.keys)
	}
	var err error
	if d.keys, err = appendCharged(u, d.keys, k, boxBytes); err != nil {
		return err
	}
	d.vals, err = appendCharged(u, d.vals, v, boxBytes)
	return err
}

// intBytes is the charge of an integer or float boxed in an interface.
const intBytes = 8

func (u *unpickler) run() (any, error) {
	for {
		op, err := u.next(1)
		if err != nil {
			return nil, err
		}
		switch c := op[0]; c {
		case 0x80: // PROTO
			b, err := u.next(1)
			if err != nil {
				return nil, err
			}
			if b[0] < 2 || b[0] > 5 {
				return nil, fmt.Errorf("pickle protocol %d; torch.save writes 2 (up to 5 with pickle_protocol)", b[0])
			}
		case 0x95: // FRAME: a length prefix for buffering, nothing to build
			if _, err := u.next(8); err != nil {
				return nil, err
			}
		case '.': // STOP
			v, err := u.pop()
			if err != nil {
				return nil, err
			}
			if len(u.stack) > 0 || len(u.marks) > 0 {
				return nil, fmt.Errorf("STOP leaves %d values and %d marks behind", len(u.stack), len(u.marks))
			}
			return v, nil
		case '(': // MARK
			if len(u.marks) >= maxPickleMarks {
				return nil, fmt.Errorf("more than %d nested MARKs", maxPickleMarks)
			}
			u.marks = append(u.marks, len(u.stack))
		case '}': // EMPTY_DICT
			err = u.newDict()
		case ']': // EMPTY_LIST
			err = u.push(&pyList{}, intBytes)
		case ')': // EMPTY_TUPLE
			err = u.tuple(nil)
		case 'N':
			err = u.push(pyNone{}, intBytes)
		case 0x88: // NEWTRUE
			err = u.push(true, intBytes)
		case 0x89: // NEWFALSE
			err = u.push(false, intBytes)
		case 'K': // BININT1
			var b []byte
			if b, err = u.next(1); err == nil {
				err = u.push(int64(b[0]), intBytes)
			}
		case 'M': // BININT2
			var b []byte
			if b, err = u.next(2); err == nil {
				err = u.push(int64(binary.LittleEndian.Uint16(b)), intBytes)
			}
		case 'J': // BININT
			var b []byte
			if b, err = u.next(4); err == nil {
				err = u.push(int64(int32(binary.LittleEndian.Uint32(b))), intBytes)
			}
		case 0x8a: // LONG1: a little-endian two's-complement integer of n bytes
			var b []byte
			if b, err = u.next(1); err != nil {
				return nil, err
			}
			n := int(b[0])
			if n > 8 {
				return nil, fmt.Errorf("an integer of %d bytes; at most 8 are read", n)
			}
			if b, err = u.next(n); err != nil {
				return nil, err
			}
			err = u.push(long1(b), intBytes)
		case 'G': // BINFLOAT, big-endian
			var b []byte
			if b, err = u.next(8); err == nil {
				err = u.push(math.Float64frombits(binary.BigEndian.Uint64(b)), intBytes)
			}
		case 'X', 0x8c, 'U', 'T': // BINUNICODE, SHORT_BINUNICODE, SHORT_BINSTRING, BINSTRING
			n := 0
			if c == 'X' || c == 'T' {
				var b []byte
				if b, err = u.next(4); err != nil {
					return nil, err
				}
				n = int(binary.LittleEndian.Uint32(b))
			} else {
				var b []byte
				if b, err = u.next(1); err != nil {
					return nil, err
				}
				n = int(b[0])
			}
			var s string
			if s, err = u.str(n); err == nil {
				err = u.push(s, 0)
			}
		case 'q': // BINPUT
			var b []byte
			if b, err = u.next(1); err == nil {
				err = u.put(uint32(b[0]))
			}
		case 'r': // LONG_BINPUT
			var b []byte
			if b, err = u.next(4); err == nil {
				err = u.put(binary.LittleEndian.Uint32(b))
			}
		case 0x94: // MEMOIZE
			err = u.put(uint32(len(u.memo) + len(u.sparse)))
		case 'h': // BINGET
			var b []byte
			if b, err = u.next(1); err == nil {
				err = u.get(uint32(b[0]))
			}
		case 'j': // LONG_BINGET
			var b []byte
			if b, err = u.next(4); err == nil {
				err = u.get(binary.LittleEndian.Uint32(b))
			}
		case 't': // TUPLE
			var items []any
			if items, err = u.popMark(); err == nil {
				err = u.tuple(items)
			}
		case 0x85, 0x86, 0x87: // TUPLE1, TUPLE2, TUPLE3
			var items [3]any
			n := int(c - 0x84)
			for i := n - 1; i >= 0 && err == nil; i-- {
				items[i], err = u.pop()
			}
			if err == nil {
				err = u.tuple(items[:n])
			}
		case 'c': // GLOBAL: "module\nname\n"
			var module, name string
			if module, err = u.line(); err != nil {
				return nil, err
			}
			if name, err = u.line(); err != nil {
				return nil, err
			}
			err = u.global(module, name)
		case 0x93: // STACK_GLOBAL
			var m, n any
			if n, err = u.pop(); err != nil {
				return nil, err
			}
			if m, err = u.pop(); err != nil {
				return nil, err
			}
			module, ok1 := m.(string)
			name, ok2 := n.(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("STACK_GLOBAL of %s and %s; want two strings", render(m), render(n))
			}
			err = u.global(module, name)
		case 'R': // REDUCE
			err = u.reduce()
		case 'Q': // BINPERSID
			err = u.persistent()
		case 'b': // BUILD: an object's attributes; a state dict's OrderedDict has _metadata
			if _, err = u.pop(); err != nil {
				return nil, err
			}
			var t any
			if t, err = u.top(); err == nil {
				if _, ok := t.(*pyDict); !ok {
					err = fmt.Errorf("BUILD of a %s; a state dict builds only its OrderedDict's attributes", typeName(t))
				}
			}
		case 's', 'u': // SETITEM, SETITEMS
			var items []any
			if c == 's' {
				var kv [2]any
				for i := 1; i >= 0 && err == nil; i-- {
					kv[i], err = u.pop()
				}
				items = kv[:]
			} else {
				items, err = u.popMark()
			}
			if err != nil {
				return nil, err
			}
			if len(items)%2 != 0 {
				return nil, errors.New("SETITEMS of an odd number of values")
			}
			var t any
			if t, err = u.top(); err != nil {
				return nil, err
			}
			d, ok := t.(*pyDict)
			if !ok {
				return nil, fmt.Errorf("SETITEM on a %s, not a dict", typeName(t))
			}
			for i := 0; i < len(items) && err == nil; i += 2 {
				err = u.set(d, items[i], items[i+1])
			}
		case 'a', 'e': // APPEND, APPENDS: the items are popped and dropped (pyList)
			if c == 'a' {
				_, err = u.pop()
			} else {
				_, err = u.popMark()
			}
			if err != nil {
				return nil, err
			}
			var t any
			if t, err = u.top(); err != nil {
				return nil, err
			}
			if _, ok := t.(*pyList); !ok {
				return nil, fmt.Errorf("APPEND to a %s, not a list", typeName(t))
			}
		default:
			return nil, fmt.Errorf("opcode 0x%02x, which torch.save does not write for a state dict", c)
		}
		if err != nil {
			return nil, err
		}
	}
}

// long1 decodes LONG1's little-endian two's-complement integer of len(b) ≤ 8 bytes.
func long1(b []byte) int64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	if n := len(b); n > 0 && n < 8 && b[n-1]&0x80 != 0 { // sign-extend
		v |= ^uint64(0) << (8 * n)
	}
	return int64(v)
}

// line reads a GLOBAL's newline-terminated name (at most 256 bytes, printable).
func (u *unpickler) line() (string, error) {
	for i := u.pos; i < len(u.in) && i < u.pos+256; i++ {
		if u.in[i] == '\n' {
			s, err := u.str(i - u.pos)
			u.pos++
			return s, err
		}
	}
	return "", errors.New("a GLOBAL name without its newline within 256 bytes")
}

func (u *unpickler) global(module, name string) error {
	g, err := lookupGlobal(module, name)
	if err != nil {
		return err
	}
	return u.push(g, allocBytes(56))
}

// reduce applies an allow-listed callable to its arguments: the only calls a state dict
// makes.
func (u *unpickler) reduce() error {
	a, err := u.pop()
	if err != nil {
		return err
	}
	f, err := u.pop()
	if err != nil {
		return err
	}
	t, ok := a.(*pyTuple)
	g, ok2 := f.(*pyGlobal)
	if !ok || !ok2 {
		return fmt.Errorf("REDUCE of a %s with a %s; want an allow-listed global and a tuple", typeName(f), typeName(a))
	}
	args := t.items
	switch g.kind {
	case globalOrderedDict:
		if len(args) != 0 {
			return fmt.Errorf("OrderedDict with %d arguments; a state dict's has none", len(args))
		}
		return u.newDict()
	case globalRebuildParameter: // nn.Parameter(data, requires_grad, hooks): the data
		if len(args) != 3 {
			return fmt.Errorf("_rebuild_parameter with %d arguments; want 3", len(args))
		}
		t, ok := args[0].(*ptTensor)
		if !ok {
			return fmt.Errorf("_rebuild_parameter of a %s, not a tensor", typeName(args[0]))
		}
		return u.push(t, 0)
	case globalRebuildTensor: // (storage, offset, size, stride, requires_grad, hooks[, metadata])
		if len(args) != 6 && len(args) != 7 {
			return fmt.Errorf("_rebuild_tensor_v2 with %d arguments; want 6 or 7", len(args))
		}
		s, ok := args[0].(*ptStorage)
		if !ok {
			return fmt.Errorf("_rebuild_tensor_v2 of a %s, not a storage", typeName(args[0]))
		}
		off, ok := args[1].(int64)
		if !ok || off < 0 {
			return fmt.Errorf("_rebuild_tensor_v2 with storage offset %s; want an integer ≥ 0", render(args[1]))
		}
		size, err := intTuple(args[2], "size")
		if err != nil {
			return err
		}
		stride, err := intTuple(args[3], "stride")
		if err != nil {
			return err
		}
		if len(size) != len(stride) {
			return fmt.Errorf("_rebuild_tensor_v2 with %d sizes and %d strides", len(size), len(stride))
		}
		cost := allocBytes(64) + allocBytes(8*len(size)) + allocBytes(8*len(stride))
		return u.push(&ptTensor{storage: s, offset: off, size: size, stride: stride}, cost)
	}
	return fmt.Errorf("REDUCE of %s, which a state dict never calls", dotted(g.module, g.name))
}

// maxTensorRank bounds a tensor's dimensions (torch allows 64).
const maxTensorRank = 64

// intTuple reads a tensor's size or stride. What it allocates (8 bytes a dimension) is
// charged with the tensor.
func intTuple(v any, what string) ([]int64, error) {
	t, ok := v.(*pyTuple)
	if !ok || len(t.items) > maxTensorRank {
		return nil, fmt.Errorf("a tensor %s %s; want a tuple of at most %d integers", what, render(v), maxTensorRank)
	}
	out := make([]int64, len(t.items))
	for i, x := range t.items {
		n, ok := x.(int64)
		if !ok || n < 0 {
			return nil, fmt.Errorf("a tensor %s holding %s; want integers ≥ 0", what, render(x))
		}
		out[i] = n
	}
	return out, nil
}

// persistent resolves a persistent id ('storage', class, key, location, numel) to its
// storage, one per key.
func (u *unpickler) persistent() error {
	v, err := u.pop()
	if err != nil {
		return err
	}
	t, ok := v.(*pyTuple)
	if !ok || len(t.items) != 5 || t.items[0] != "storage" {
		return fmt.Errorf("a persistent id %s; want ('storage', class, key, location, numel)", render(v))
	}
	class, ok1 := t.items[1].(*pyGlobal)
	key, ok2 := t.items[2].(string)
	_, ok3 := t.items[3].(string) // the location (a device) does not change the values
	numel, ok4 := t.items[4].(int64)
	if !ok1 || class.kind != globalStorage || !ok2 || !ok3 || !ok4 || numel < 0 {
		return fmt.Errorf("a persistent id %s; want ('storage', torch.*Storage, key, location, numel ≥ 0)", render(v))
	}
	if s, ok := u.storages[key]; ok {
		if s.class.dtype != class.dtype || s.numel != numel {
			return fmt.Errorf("storage %s named twice, as %d %s and %d %s", clip.Quote(key), s.numel, s.class.dtype, numel, class.dtype)
		}
		return u.push(s, 0)
	}
	s := &ptStorage{class: class, key: key, numel: numel}
	if err := u.charge(allocBytes(40) + mapEntryBytes); err != nil {
		return err
	}
	u.storages[key] = s
	return u.push(s, 0)
}

// typeName names a pickled value's type in errors (a global by its clipped name).
func typeName(v any) string {
	switch v := v.(type) {
	case pyNone:
		return "None"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case *pyTuple:
		return "tuple"
	case *pyList:
		return "list"
	case *pyDict:
		return "dict"
	case *pyGlobal:
		return dotted(v.module, v.name)
	case *ptStorage:
		return "storage"
	case *ptTensor:
		return "tensor"
	}
	return fmt.Sprintf("%T", v)
}

// Bounds of a value rendered in a message: renderItems items of a container, renderDepth
// containers deep, renderMax bytes in all (then "…"); strings as clip.Quote has them.
const (
	renderItems = 4
	renderDepth = 3
	renderMax   = 200
)

// render is a pickled value as an error message shows it, in Python's notation: never
// more than renderMax bytes (plus "…"), however long or deep the value, with no raw
// control character (strings are escaped by clip.Quote), and what is left out counted:
// (1, 2, 3, 4, … 6 more), ((((…)))) for a tuple nested past renderDepth.
func render(v any) string {
	var b strings.Builder
	renderTo(&b, v, renderDepth)
	s := b.String()
	if len(s) <= renderMax {
		return s
	}
	cut := renderMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// renderTo writes v to b, containers down to depth levels; the recursion is bounded by
// depth, not by the value.
func renderTo(b *strings.Builder, v any, depth int) {
	if b.Len() > renderMax {
		return
	}
	switch v := v.(type) {
	case pyNone:
		b.WriteString("None")
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case string:
		b.WriteString(clip.Quote(v))
	case *pyTuple:
		renderSeq(b, v.items, nil, depth)
	case *pyDict:
		renderSeq(b, v.keys, v.vals, depth)
	case *pyList:
		b.WriteString("[]")
	case *pyGlobal:
		b.WriteString(dotted(v.module, v.name))
	case *ptStorage:
		fmt.Fprintf(b, "a %s storage %s", v.class.dtype, clip.Quote(v.key))
	case *ptTensor:
		b.WriteString("a tensor")
	default:
		fmt.Fprintf(b, "a %T", v)
	}
}

// renderSeq writes a tuple of keys (vals nil) or a dict of keys and vals: at most
// renderItems items, each rendered depth−1 deep, the rest counted; "…" for the items of a
// container past the depth.
func renderSeq(b *strings.Builder, keys, vals []any, depth int) {
	open, end := "(", ")"
	if vals != nil {
		open, end = "{", "}"
	}
	b.WriteString(open)
	for i := range keys {
		if depth == 0 || i == renderItems || b.Len() > renderMax {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "… %d more", len(keys)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		renderTo(b, keys[i], depth-1)
		if vals != nil {
			b.WriteString(": ")
			renderTo(b, vals[i], depth-1)
		}
	}
	if len(keys) == 1 && vals == nil && depth > 0 {
		b.WriteString(",")
	}
	b.WriteString(end)
}
