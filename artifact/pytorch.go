package artifact

import (
	"archive/zip"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// maxPyTorchEntries bounds the entries of one archive: a storage per tensor, and a large
// model has a few thousand tensors.
const maxPyTorchEntries = 1 << 16

// maxStorageAliases bounds how many times a storage's values may be read out through
// views: tied weights share one storage between two or three names (an embedding used by
// an encoder, a decoder and the output layer), never dozens, and a file naming one storage
// through thousands of views would cost thousands of copies.
const maxStorageAliases = 4

// A PyTorch file is the floating-point tensors of a state dict that torch.save wrote,
// sorted by name, and what was left out.
type PyTorch struct {
	Tensors []*Array
	// Skipped names the entries not read, with why: integer and boolean buffers
	// (BatchNorm's num_batches_tracked counts batches; it is not a weight) and values
	// that are not tensors.
	Skipped []string
	// flat is every tensor's values in name order, one slice that each Tensors[i].Data
	// is a part of: LoadModel's concatenation, without copying it.
	flat []float64
}

// Tensor returns the tensor of the given name, or nil.
func (p *PyTorch) Tensor(name string) *Array { return tensorNamed(p.Tensors, name) }

// LoadPyTorch reads a .pt or .pth file that torch.save(model.state_dict(), path) wrote.
func LoadPyTorch(path string, lim reference.Limits) (*PyTorch, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load pytorch: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load pytorch: %w", err)
	}
	return ParsePyTorch(f, st.Size(), path, lim)
}

// legacyTorchMagic opens a file torch.save wrote before PyTorch 1.6 (or with
// _use_new_zipfile_serialization=False): a protocol-2 pickle of the magic number
// 0x1950a86a20f9469cfc6c as a 10-byte LONG1.
var legacyTorchMagic = []byte{0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19}

// ParsePyTorch reads torch.save's zip format (PyTorch ≥ 1.6) from r, of size bytes; name
// is used in errors. The archive holds one folder with data.pkl, a pickle of the state
// dict, and data/KEY, the raw bytes of each storage. The pickle is read by a machine that
// knows only the opcodes and the allow-listed names a state dict uses (an OrderedDict,
// torch's tensor and parameter rebuilders, its storage classes): it imports and calls
// nothing, and any other name is refused with what to save instead. Float32, float64,
// float16 and bfloat16 tensors are widened exactly to float64, in row-major order through
// their strides (a transposed view reads as its values, not its storage); integer and
// boolean tensors are skipped and named in Skipped.
//
// The bounds are those of the other parsers: what the entries inflate to passes
// lim.CheckInflation before any is read, the pickle is at most 8 MiB and what it
// builds at most 32 bytes a byte of it plus 4 MiB, with a bounded stack and nesting,
// every tensor is checked against its storage's declared size and the entry's real size
// before a value is read, the values read are capped by lim.MaxValues, and a
// storage is read out at most four times over (tied weights).
// That cap bounds the float64 result, not all the call costs: the storages' raw bytes are
// held, as they arrived, until each value is converted once into the result, so a read
// allocates 8 bytes a value plus the inflated storages (10 bytes a float16 value) plus
// what does not grow with the values.
// Every entry read (byteorder, data.pkl, each storage) is read to its end and must inflate
// to exactly the size the zip directory declares, with the CRC-32 it records (reading at
// most one byte past that size).
func ParsePyTorch(r io.ReaderAt, size int64, name string, lim reference.Limits) (*PyTorch, error) {
	fail := func(field, format string, args ...any) error {
		return &reference.InputError{File: name, Field: fieldName(field), Msg: fmt.Sprintf(format, args...)}
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		var head [16]byte
		k, _ := r.ReadAt(head[:], 0)
		switch {
		case bytes.HasPrefix(head[:k], legacyTorchMagic):
			return nil, fail("", "the legacy torch.save format (PyTorch before 1.6, or _use_new_zipfile_serialization=False), which is not read: save it again with torch.save(model.state_dict(), path) in PyTorch 1.6 or later")
		case k > 0 && head[0] == 0x80:
			return nil, fail("", "a bare pickle, not the zip archive torch.save writes (pickle.dump?): save it with torch.save(model.state_dict(), path)")
		}
		return nil, fail("", "not a zip archive, as torch.save writes a .pt or .pth file: %v", err)
	}
	if len(zr.File) > maxPyTorchEntries {
		return nil, fail("", "%d entries; at most %d are read", len(zr.File), maxPyTorchEntries)
	}
	var inflated int64
	entries := map[string]*zip.File{}
	var pkl []string
	for _, zf := range zr.File {
		inflated += int64(min(zf.UncompressedSize64, 1<<40)) // 65536 entries cannot overflow
		if _, dup := entries[zf.Name]; dup {
			return nil, fail(zf.Name, "entry appears twice")
		}
		entries[zf.Name] = zf
		if dir, base, ok := strings.Cut(zf.Name, "/"); ok && base == "data.pkl" && dir != "" {
			pkl = append(pkl, zf.Name)
		}
	}
	if err := lim.CheckInflation(name, inflated, size); err != nil {
		return nil, err
	}
	// torch.jit.save writes a data.pkl as torch.save does, and its pickle names the
	// module's compiled class as torch.save(model)'s names the module's: only its
	// constants.pkl and code/ (the compiled Python) tell a TorchScript archive apart
	for _, zf := range zr.File {
		if strings.HasSuffix(zf.Name, "/constants.pkl") || strings.Contains(zf.Name, "/code/") {
			return nil, fail(zf.Name, "a TorchScript archive (torch.jit.save), which is not read: load it with torch.jit.load(path) and save its weights with torch.save(module.state_dict(), path)")
		}
	}
	if len(pkl) != 1 {
		if len(pkl) == 0 {
			return nil, fail("", "no FOLDER/data.pkl entry: not an archive torch.save wrote")
		}
		slices.Sort(pkl)
		return nil, fail("", "%d data.pkl entries (%s); torch.save writes one", len(pkl), nameList(pkl))
	}
	prefix := strings.TrimSuffix(pkl[0], "data.pkl")
	order := binary.ByteOrder(binary.LittleEndian)
	if zf := entries[prefix+"byteorder"]; zf != nil {
		b, err := readEntry(zf, 16)
		if err != nil {
			return nil, fail(zf.Name, "%v", err)
		}
		switch string(b) {
		case "little":
		case "big":
			order = binary.BigEndian
		default:
			return nil, fail(zf.Name, "%q; want little or big", b)
		}
	}
	data, err := readEntry(entries[pkl[0]], maxPickleBytes)
	if err != nil {
		return nil, fail(pkl[0], "%v", err)
	}
	v, storages, err := unpickle(data)
	if err != nil {
		var ge *globalError
		if errors.As(err, &ge) {
			return nil, fail(pkl[0], "%v", ge) // the hint, without the byte offset
		}
		return nil, fail(pkl[0], "%v", err)
	}
	top, ok := v.(*pyDict)
	if !ok {
		return nil, fail(pkl[0], "the pickle holds a %s; a state dict is a dict of tensors (torch.save(model.state_dict(), path))", typeName(v))
	}
	// every storage is checked against its entry before any is read
	for _, s := range storages {
		zf := entries[prefix+"data/"+s.key]
		if zf == nil {
			return nil, fail("data/"+s.key, "storage %s is named by the pickle but not in the archive", clip.Quote(s.key))
		}
		es := elementSize(s.class.dtype)
		if s.numel > int64(math.MaxInt64/16) || zf.UncompressedSize64 != uint64(s.numel)*uint64(es) {
			return nil, fail(zf.Name, "%d bytes; the pickle declares %d %s elements (%d bytes)", zf.UncompressedSize64, s.numel, s.class.dtype, s.numel*int64(es))
		}
	}
	out := &PyTorch{}
	var tensors []*ptTensor
	var names []string
	var checkpoint []string
	for i, k := range top.keys {
		key, ok := k.(string)
		if !ok {
			return nil, fail(pkl[0], "a key of type %s; a state dict's keys are names", typeName(k))
		}
		switch t := top.vals[i].(type) {
		case *ptTensor:
			if !isFloatDType(t.storage.class.dtype) {
				out.Skipped = append(out.Skipped, fmt.Sprintf("%s: %s %s, not floating point (a buffer such as a counter, not a weight)", key, t.storage.class.dtype, shapeText(t.size)))
				continue
			}
			tensors = append(tensors, t)
			names = append(names, key)
		case *pyDict:
			if holdsTensors(t) {
				checkpoint = append(checkpoint, key)
				continue
			}
			out.Skipped = append(out.Skipped, key+": a dict without tensors")
		default:
			out.Skipped = append(out.Skipped, fmt.Sprintf("%s: a %s, not a tensor", key, typeName(t)))
		}
	}
	if len(checkpoint) > 0 {
		return nil, fail(pkl[0], "a checkpoint, not a state dict (entries holding dicts of tensors: %s); save the model's alone: torch.save(model.state_dict(), path), or torch.save(checkpoint[%s], path)", nameList(checkpoint), clip.Quote(checkpoint[0]))
	}
	// the tensors, validated against their storages (whose bytes are read as they are
	// first named), then converted in name order: each value once, from its storage's
	// bytes straight into one float64 slice that every tensor is a part of
	idx := make([]int, len(tensors))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	raw := map[*ptStorage]*storageBytes{}
	readOut := map[*ptStorage]int64{}
	counts := make([]int, len(tensors))
	total, stored := 0, 0
	for _, i := range idx {
		t, tname := tensors[i], names[i]
		count, err := checkView(t, lim)
		if err != nil {
			return nil, fail(tname, "%v", err)
		}
		counts[i] = int(count)
		total += int(count)
		if err := lim.CheckValues("tensors of "+name, 1, total); err != nil {
			return nil, fail(tname, "%v", err)
		}
		s := t.storage
		if readOut[s] += count; readOut[s] > maxStorageAliases*max(s.numel, 1) {
			return nil, fail(tname, "storage %s (%d elements) is read out %d times over by its views; at most %d (tied weights) are read", clip.Quote(s.key), s.numel, (readOut[s]+s.numel-1)/s.numel, maxStorageAliases)
		}
		if _, ok := raw[s]; !ok {
			stored += int(s.numel)
			if err := lim.CheckValues("storages of "+name, 1, stored); err != nil {
				return nil, fail(tname, "%v", err)
			}
			zf := entries[prefix+"data/"+s.key]
			b, err := readStorage(zf, s, order)
			if err != nil {
				return nil, fail(zf.Name, "%v", err)
			}
			raw[s] = b
		}
	}
	// every storage has arrived: the values it holds (at most four times over) are real
	out.flat = make([]float64, total)
	off := 0
	for _, i := range idx {
		t, tname, n := tensors[i], names[i], counts[i]
		a, err := gather(t, raw[t.storage], out.flat[off:off+n:off+n])
		if err != nil {
			return nil, fail(tname, "%v", err)
		}
		off += n
		a.Name = tname
		out.Tensors = append(out.Tensors, a)
	}
	return out, nil
}

// readEntry reads a whole archive entry of at most limit bytes.
func readEntry(zf *zip.File, limit int64) ([]byte, error) {
	if zf.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("%d bytes; at most %d are read", zf.UncompressedSize64, limit)
	}
	er, err := openEntry(zf)
	if err != nil {
		return nil, err
	}
	defer er.Close()
	var b bytes.Buffer // grows with what arrives, not with what the directory claims
	if _, err := io.Copy(&b, er); err != nil {
		return nil, err
	}
	if err := er.finish(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func isFloatDType(dt string) bool {
	return dt == "float32" || dt == "float64" || dt == "float16" || dt == "bfloat16"
}

// elementSize is the bytes of one element of a storage dtype.
func elementSize(dt string) int {
	switch dt {
	case "float64", "int64", "complex64":
		return 8
	case "complex128":
		return 16
	case "float32", "int32":
		return 4
	case "float16", "bfloat16", "int16":
		return 2
	}
	return 1 // int8, uint8, bool
}

// holdsTensors reports whether a dict holds a tensor among its values (one level: a
// checkpoint's "model_state_dict").
func holdsTensors(d *pyDict) bool {
	for _, v := range d.vals {
		if _, ok := v.(*ptTensor); ok {
			return true
		}
	}
	return false
}

// checkView returns a view's element count after checking that it lies within its
// storage and that no two of its elements are the same storage element (a view made by
// expand() would repeat values that a state dict never repeats).
func checkView(t *ptTensor, lim reference.Limits) (int64, error) {
	count, most := int64(1), int64(lim.Values())
	for _, s := range t.size {
		if s > 0 && count > most/s {
			return 0, fmt.Errorf("shape %s: more than the cap of %d values (reference.MaxValues; raise it with --max-values)", shapeText(t.size), most)
		}
		count *= s
	}
	if count == 0 {
		if t.offset > t.storage.numel {
			return 0, fmt.Errorf("storage offset %d past the storage's %d elements", t.offset, t.storage.numel)
		}
		return 0, nil
	}
	// the dimensions of more than one element, by stride: each must step past everything
	// the smaller strides span, so that no element is reached twice
	var dims []int
	for i, s := range t.size {
		if s > 1 {
			dims = append(dims, i)
		}
	}
	slices.SortFunc(dims, func(a, b int) int { return cmp.Compare(t.stride[a], t.stride[b]) })
	span := int64(1) // one past the last element reached, from the offset
	for _, d := range dims {
		if t.stride[d] < span {
			return 0, fmt.Errorf("a view of size %s and stride %s reaches some storage elements twice (expand()?); save a copy (.clone())", shapeText(t.size), shapeText(t.stride))
		}
		if t.stride[d] > t.storage.numel {
			return 0, fmt.Errorf("a view of size %s, stride %s and offset %d reaches past the storage's %d elements", shapeText(t.size), shapeText(t.stride), t.offset, t.storage.numel)
		}
		// no overflow: the stride is at most the storage's elements (which its entry's
		// size, within the inflation budget, holds) and the size at most the cap
		span = t.stride[d]*(t.size[d]-1) + span
		if span > t.storage.numel {
			return 0, fmt.Errorf("a view of size %s, stride %s and offset %d reaches past the storage's %d elements", shapeText(t.size), shapeText(t.stride), t.offset, t.storage.numel)
		}
	}
	if t.offset > t.storage.numel-span {
		return 0, fmt.Errorf("a view of size %s, stride %s and offset %d reaches past the storage's %d elements", shapeText(t.size), shapeText(t.stride), t.offset, t.storage.numel)
	}
	return count, nil
}

// fieldName is an entry's or a tensor's name as an error names it: bare when it is at
// most 256 bytes of printable characters (a long tensor name is still found by
// searching for it), else quoted and clipped by clip.Quote, so that a name holding an
// escape sequence or megabytes is echoed neither raw nor whole.
func fieldName(s string) string {
	if len(s) > 256 || strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) || r == utf8.RuneError }) {
		return clip.Quote(s)
	}
	return s
}

// nameList is names as a message lists them: the first four by fieldName, the rest
// counted.
func nameList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i == 4 {
			fmt.Fprintf(&b, ", … %d more", len(names)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(fieldName(n))
	}
	return b.String()
}

// maxDims is how many of a shape's dimensions a message prints.
const maxDims = 8

// shapeText is a tensor's size or stride as a message prints it, [2 3], with at most maxDims
// numbers and the rest counted: [1 1 1 1 1 1 1 1 … 56 more].
func shapeText(v []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i == maxDims {
			fmt.Fprintf(&b, " … %d more", len(v)-i)
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(x, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// storageChunk is the bytes of one chunk of a storage as it is read: a power of two, so
// that no element (of 2, 4 or 8 bytes) straddles two chunks.
const storageChunk = 1 << 20

// storageBytes is a storage's raw bytes, in the chunks they arrived in: kept as they are
// (two bytes a float16 value, not eight) until gather converts each value once into the
// tensors' float64 slice, and never copied to grow.
type storageBytes struct {
	chunks [][]byte
	dtype  string
	size   int64 // bytes an element
	order  binary.ByteOrder
}

// at is element i, widened to float64.
func (b *storageBytes) at(i int64) float64 {
	off := i * b.size
	return decodeTorch(b.dtype, b.chunks[off/storageChunk][off%storageChunk:], b.order)
}

// readStorage reads a storage's bytes, in chunks as they arrive (so a storage that holds
// less than its entry declares costs what it holds), and its entry to the end (its size
// and CRC-32 checked).
func readStorage(zf *zip.File, s *ptStorage, order binary.ByteOrder) (*storageBytes, error) {
	rc, err := openEntry(zf)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	size := int64(elementSize(s.class.dtype))
	out := &storageBytes{dtype: s.class.dtype, size: size, order: order}
	left := s.numel * size
	for left > 0 {
		chunk := make([]byte, min(left, storageChunk))
		k, err := io.ReadFull(rc, chunk)
		if err != nil {
			read := (s.numel*size - left + int64(k)) / size
			return nil, fmt.Errorf("%d of the storage's %d elements: %v", read, s.numel, err)
		}
		out.chunks = append(out.chunks, chunk)
		left -= int64(k)
	}
	if err := rc.finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeTorch widens one element to float64 (exactly), in the archive's byte order.
func decodeTorch(dt string, b []byte, order binary.ByteOrder) float64 {
	switch dt {
	case "float64":
		return math.Float64frombits(order.Uint64(b))
	case "float32":
		return float64(math.Float32frombits(order.Uint32(b)))
	}
	var le [2]byte
	binary.LittleEndian.PutUint16(le[:], order.Uint16(b))
	if dt == "bfloat16" {
		return decodeFloat("BF16", le[:])
	}
	return decodeFloat("F16", le[:])
}

// gather converts a view's elements, in row-major order, from its storage's bytes into
// data (of the view's element count), refusing a value that is not finite.
func gather(t *ptTensor, src *storageBytes, data []float64) (*Array, error) {
	shape := make([]int, len(t.size))
	for i, s := range t.size {
		shape[i] = int(s)
	}
	a := &Array{Shape: shape, DType: t.storage.class.dtype, Converted: t.storage.class.dtype != "float64", Data: data}
	idx := make([]int64, len(t.size))
	pos := t.offset
	for n := range a.Data {
		v := src.at(pos)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("element %d is %v; values must be finite", n, v)
		}
		a.Data[n] = v
		// the next index, last dimension fastest
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			pos += t.stride[d]
			if idx[d] < t.size[d] {
				break
			}
			pos -= t.stride[d] * t.size[d]
			idx[d] = 0
		}
	}
	return a, nil
}
