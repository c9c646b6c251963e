package artifact

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is a pickle reader for the subset torch.save writes for a state dict: an
// OrderedDict of tensors, each rebuilt by torch._utils._rebuild_tensor_v2 from a storage
// named by a persistent id. It is a stack machine over the opcodes of protocols 2 to 5
// that such files use and nothing else: it imports nothing, calls nothing, and builds
// only the values below. A GLOBAL outside the allow-list (globalKinds) ends the read,
// because only the allow-list can appear in a file of weights; anything else is a
// pickled object whose reading would run its class's code.

// Bounds of one pickle, whatever it claims. Every value is built from opcodes, so the
// memory is O(bytes) already; these make the stack, the marks and the memo fail early
// with a clear error instead of growing to the size of the file.
const (
	maxPickleBytes = 64 << 20 // a state dict's pickle is ~100 bytes a tensor
	maxPickleStack = 1 << 20  // SETITEMS batches 1000 items: a few thousand at most
	maxPickleMarks = 64       // a state dict nests 3 deep
	maxPickleMemo  = 1 << 22
)

type (
	pyNone  struct{}
	pyTuple []any
	pyList  struct{} // a list's items are never read: a state dict's lists are build arguments
	// pyDict is a dict or OrderedDict in insertion order; a string key set twice keeps
	// its first place and its last value, as Python does.
	pyDict struct {
		keys, vals []any
		index      map[string]int
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
	switch module + "." + name {
	case "collections.OrderedDict":
		g.kind = globalOrderedDict
	case "torch._utils._rebuild_tensor_v2":
		g.kind = globalRebuildTensor
	case "torch._utils._rebuild_parameter":
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
	what := fmt.Sprintf("the pickle imports %s.%s, which a state dict of tensors never does", e.module, e.name)
	// a model class (torch.nn.modules.linear.Linear, the user's own __main__.Net): a class
	// name is capitalised, a function's (os.system, builtins.eval) is not
	if e.module == "__main__" || strings.HasPrefix(e.module, "torch.nn.") || e.name != "" && unicode.IsUpper([]rune(e.name)[0]) {
		return what + ": the file looks saved with torch.save(model); save model.state_dict() instead (torch.save(model.state_dict(), path)); it is not read, because reading it would run that class's code"
	}
	return what + "; it is not read, because reading it would run that code (save model.state_dict() with torch.save)"
}

var errPickleTruncated = errors.New("the pickle ends before its STOP opcode")

// unpickler is the machine's state over one pickle held in memory.
type unpickler struct {
	in       []byte
	pos      int
	stack    []any
	marks    []int
	memo     map[uint32]any
	storages map[string]*ptStorage // persistent ids by key: a storage shared by views is one
}

// unpickle runs the pickle in to its STOP and returns the value it built.
func unpickle(in []byte) (any, map[string]*ptStorage, error) {
	if len(in) > maxPickleBytes {
		return nil, nil, fmt.Errorf("a pickle of %d bytes; at most %d are read", len(in), maxPickleBytes)
	}
	u := &unpickler{in: in, memo: map[uint32]any{}, storages: map[string]*ptStorage{}}
	v, err := u.run()
	if err != nil {
		return nil, nil, fmt.Errorf("byte %d: %w", u.pos, err)
	}
	return v, u.storages, nil
}

func (u *unpickler) next(n int) ([]byte, error) {
	if n < 0 || n > len(u.in)-u.pos {
		return nil, errPickleTruncated
	}
	b := u.in[u.pos : u.pos+n]
	u.pos += n
	return b, nil
}

func (u *unpickler) push(v any) error {
	if len(u.stack) >= maxPickleStack {
		return fmt.Errorf("more than %d values on the stack", maxPickleStack)
	}
	u.stack = append(u.stack, v)
	return nil
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
	if _, ok := u.memo[i]; !ok && len(u.memo) >= maxPickleMemo {
		return fmt.Errorf("more than %d memo entries", maxPickleMemo)
	}
	u.memo[i] = v
	return nil
}

func (u *unpickler) get(i uint32) error {
	v, ok := u.memo[i]
	if !ok {
		return fmt.Errorf("memo entry %d read before it was written", i)
	}
	return u.push(v)
}

func (u *unpickler) str(n int) (string, error) {
	b, err := u.next(n)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", errors.New("a string that is not UTF-8")
	}
	return string(b), nil
}

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
			err = u.push(&pyDict{index: map[string]int{}})
		case ']': // EMPTY_LIST
			err = u.push(&pyList{})
		case ')': // EMPTY_TUPLE
			err = u.push(pyTuple{})
		case 'N':
			err = u.push(pyNone{})
		case 0x88: // NEWTRUE
			err = u.push(true)
		case 0x89: // NEWFALSE
			err = u.push(false)
		case 'K': // BININT1
			var b []byte
			if b, err = u.next(1); err == nil {
				err = u.push(int64(b[0]))
			}
		case 'M': // BININT2
			var b []byte
			if b, err = u.next(2); err == nil {
				err = u.push(int64(binary.LittleEndian.Uint16(b)))
			}
		case 'J': // BININT
			var b []byte
			if b, err = u.next(4); err == nil {
				err = u.push(int64(int32(binary.LittleEndian.Uint32(b))))
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
			var v uint64
			for i := n - 1; i >= 0; i-- {
				v = v<<8 | uint64(b[i])
			}
			if n > 0 && n < 8 && b[n-1]&0x80 != 0 { // sign-extend
				v |= ^uint64(0) << (8 * n)
			}
			err = u.push(int64(v))
		case 'G': // BINFLOAT, big-endian
			var b []byte
			if b, err = u.next(8); err == nil {
				err = u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
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
				err = u.push(s)
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
			err = u.put(uint32(len(u.memo)))
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
				err = u.push(append(pyTuple(nil), items...))
			}
		case 0x85, 0x86, 0x87: // TUPLE1, TUPLE2, TUPLE3
			t := make(pyTuple, int(c-0x84))
			for i := len(t) - 1; i >= 0 && err == nil; i-- {
				t[i], err = u.pop()
			}
			if err == nil {
				err = u.push(t)
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
				return nil, errors.New("STACK_GLOBAL of values that are not strings")
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
				items = make([]any, 2)
				for i := 1; i >= 0 && err == nil; i-- {
					items[i], err = u.pop()
				}
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
			for i := 0; i < len(items); i += 2 {
				d.set(items[i], items[i+1])
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
	return u.push(g)
}

func (d *pyDict) set(k, v any) {
	if s, ok := k.(string); ok {
		if i, ok := d.index[s]; ok {
			d.vals[i] = v
			return
		}
		d.index[s] = len(d.keys)
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
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
	args, ok := a.(pyTuple)
	g, ok2 := f.(*pyGlobal)
	if !ok || !ok2 {
		return fmt.Errorf("REDUCE of a %s with a %s; want an allow-listed global and a tuple", typeName(f), typeName(a))
	}
	switch g.kind {
	case globalOrderedDict:
		if len(args) != 0 {
			return fmt.Errorf("OrderedDict with %d arguments; a state dict's has none", len(args))
		}
		return u.push(&pyDict{index: map[string]int{}})
	case globalRebuildParameter: // nn.Parameter(data, requires_grad, hooks): the data
		if len(args) != 3 {
			return fmt.Errorf("_rebuild_parameter with %d arguments; want 3", len(args))
		}
		t, ok := args[0].(*ptTensor)
		if !ok {
			return fmt.Errorf("_rebuild_parameter of a %s, not a tensor", typeName(args[0]))
		}
		return u.push(t)
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
			return fmt.Errorf("_rebuild_tensor_v2 with storage offset %v; want an integer ≥ 0", args[1])
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
		return u.push(&ptTensor{storage: s, offset: off, size: size, stride: stride})
	}
	return fmt.Errorf("REDUCE of %s.%s, which a state dict never calls", g.module, g.name)
}

// maxTensorRank bounds a tensor's dimensions (torch allows 64).
const maxTensorRank = 64

func intTuple(v any, what string) ([]int64, error) {
	t, ok := v.(pyTuple)
	if !ok || len(t) > maxTensorRank {
		return nil, fmt.Errorf("a tensor %s of a %s; want a tuple of at most %d integers", what, typeName(v), maxTensorRank)
	}
	out := make([]int64, len(t))
	for i, x := range t {
		n, ok := x.(int64)
		if !ok || n < 0 {
			return nil, fmt.Errorf("a tensor %s %v; want integers ≥ 0", what, x)
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
	t, ok := v.(pyTuple)
	if !ok || len(t) != 5 || t[0] != "storage" {
		return fmt.Errorf("a persistent id %s; want ('storage', class, key, location, numel)", typeName(v))
	}
	class, ok1 := t[1].(*pyGlobal)
	key, ok2 := t[2].(string)
	_, ok3 := t[3].(string) // the location (a device) does not change the values
	numel, ok4 := t[4].(int64)
	if !ok1 || class.kind != globalStorage || !ok2 || !ok3 || !ok4 || numel < 0 {
		return errors.New("a persistent id that is not ('storage', torch.*Storage, key, location, numel ≥ 0)")
	}
	if s, ok := u.storages[key]; ok {
		if s.class.dtype != class.dtype || s.numel != numel {
			return fmt.Errorf("storage %q named twice, as %d %s and %d %s", key, s.numel, s.class.dtype, numel, class.dtype)
		}
		return u.push(s)
	}
	s := &ptStorage{class: class, key: key, numel: numel}
	u.storages[key] = s
	return u.push(s)
}

// typeName names a pickled value's type in errors.
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
	case pyTuple:
		return "tuple"
	case *pyList:
		return "list"
	case *pyDict:
		return "dict"
	case *pyGlobal:
		return v.module + "." + v.name
	case *ptStorage:
		return "storage"
	case *ptTensor:
		return "tensor"
	}
	return fmt.Sprintf("%T", v)
}
