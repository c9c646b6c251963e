package artifact

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// maxSafetensorsHeader bounds the JSON header, as the reference implementation does
// (100 MB): a header is names, shapes and offsets, never data.
const maxSafetensorsHeader = 100 << 20

// maxSafetensorsTensors bounds the tensors of one file: a large language model's file
// holds hundreds to a few thousand; 131 072 is far above any real one and keeps a header of
// empty tensors (which the size cap alone lets hold 1.7 million) to a tenth of a second.
const maxSafetensorsTensors = 1 << 17

// A Safetensors file is the tensors of a safetensors file, sorted by name, with the
// header's free-form metadata.
type Safetensors struct {
	Tensors  []*Array
	Metadata map[string]string
	// Skipped names the tensors not read, with why: integer and boolean ones (position
	// ids, counters, masks: buffers, not weights), as a PyTorch state dict's are.
	Skipped []string
}

// Tensor returns the tensor of the given name, or nil.
func (s *Safetensors) Tensor(name string) *Array { return tensorNamed(s.Tensors, name) }

// tensorNamed is the tensor of the given name among ts, or nil.
func tensorNamed(ts []*Array, name string) *Array {
	for _, t := range ts {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// LoadSafetensors reads a .safetensors file (Hugging Face's format).
func LoadSafetensors(path string, lim reference.Limits) (*Safetensors, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load safetensors: %w", err)
	}
	defer f.Close()
	return ParseSafetensors(bufio.NewReader(f), path, lim)
}

type tensorEntry struct {
	DType   string  `json:"dtype"`
	Shape   []int64 `json:"shape"`
	Offsets []int64 `json:"data_offsets"`
	name    string
}

// ParseSafetensors reads the safetensors format from r; name is used in errors. The
// header is an 8-byte little-endian length, at most 100 MB of JSON, then the tensors'
// bytes. Every tensor is validated before any data is read: a known floating-point dtype
// (F64, F32, F16, BF16, widened exactly to float64), a shape whose element count is within
// lim.MaxValues, offsets whose span is exactly that many elements, and together the
// tensors tile the data without overlap or gap, as the format requires. The data are then
// read in order as they arrive, so a header's claims cost nothing until bytes back them.
func ParseSafetensors(r io.Reader, name string, lim reference.Limits) (*Safetensors, error) {
	fail := func(field, format string, args ...any) error {
		return &reference.InputError{File: name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	var lenBuf [8]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, fail("header", "file ends inside the 8-byte header length")
	}
	hlen := binary.LittleEndian.Uint64(lenBuf[:])
	if hlen > maxSafetensorsHeader {
		return nil, fail("header", "header of %d bytes claimed; at most %d are read", hlen, maxSafetensorsHeader)
	}
	// read the header as it arrives (a 10-byte file may claim 100 MB)
	var head bytes.Buffer
	if k, err := io.CopyN(&head, r, int64(hlen)); err != nil {
		return nil, fail("header", "file ends after %d of the header's %d bytes", k, hlen)
	}
	// one decoder walks the header's object entry by entry, so that a header of many
	// tensors costs its entries, not a decoder and a copy each
	dec := json.NewDecoder(bytes.NewReader(head.Bytes()))
	dec.DisallowUnknownFields() // a tensor's fields; __metadata__ is a map
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		if err == nil {
			err = fmt.Errorf("starts with %v", tok)
		}
		return nil, fail("header", "not a JSON object: %v", err)
	}
	out := &Safetensors{}
	var entries []tensorEntry
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail("header", "not a JSON object: %v", err)
		}
		key := tok.(string) // an object's keys are strings
		if seen[key] {
			return nil, fail(clip.Text(key), "given twice in the header") // json would keep only the last, silently
		}
		seen[key] = true
		if key == "__metadata__" {
			if err := dec.Decode(&out.Metadata); err != nil {
				return nil, fail("__metadata__", "want an object of strings: %v", err)
			}
			continue
		}
		if len(entries) == maxSafetensorsTensors {
			return nil, fail("header", "more than %d tensors; a model file holds far fewer", maxSafetensorsTensors)
		}
		e := tensorEntry{name: key}
		if err := dec.Decode(&e); err != nil {
			return nil, fail(clip.Text(key), "want {dtype, shape, data_offsets}: %v", err)
		}
		entries = append(entries, e)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fail("header", "not a JSON object: %v", err)
	}
	// the format pads the header with spaces, nothing else
	if rest := bytes.TrimRight(head.Bytes()[dec.InputOffset():], " "); len(rest) > 0 {
		return nil, fail("header", "%d bytes after its JSON object; only space padding may follow it", len(rest))
	}
	// validate every tensor, then the tiling, before reading any data
	total, what := 0, "tensors of "+name
	for i := range entries {
		e := &entries[i]
		size, err := floatSize(e.DType)
		if err != nil {
			if size = bufferSize(e.DType); size == 0 {
				return nil, fail(clip.Text(e.name)+".dtype", "%v", err)
			}
		}
		count := int64(1)
		for _, s := range e.Shape {
			if s < 0 {
				return nil, fail(clip.Text(e.name)+".shape", "negative dimension %d", s)
			}
			if s > 0 && count > int64(lim.Values())/s {
				// the shape as the file gives it: its product is never formed, so no
				// dimension is printed overflowed or clipped
				return nil, fail(clip.Text(e.name)+".shape", "tensor %s: shape %v holds more than the cap of %d values (reference.MaxValues, %.3g GB of float64; raise it with --max-values)",
					clip.Text(e.name), e.Shape, lim.Values(), float64(lim.Values())*8/1e9)
			}
			count *= s
		}
		if len(e.Offsets) != 2 || e.Offsets[0] < 0 || e.Offsets[1] < e.Offsets[0] {
			return nil, fail(clip.Text(e.name)+".data_offsets", "%v; want [begin, end] with 0 ≤ begin ≤ end", e.Offsets)
		}
		if span := e.Offsets[1] - e.Offsets[0]; span != count*int64(size) {
			return nil, fail(clip.Text(e.name)+".data_offsets", "[%d, %d] spans %d bytes; shape %v of %s needs %d", e.Offsets[0], e.Offsets[1], span, e.Shape, e.DType, count*int64(size))
		}
		total += int(count)
		if err := lim.CheckValues(what, 1, total); err != nil {
			return nil, fail(clip.Text(e.name)+".shape", "%v", err)
		}
	}
	slices.SortFunc(entries, func(a, b tensorEntry) int {
		if c := int(a.Offsets[0] - b.Offsets[0]); c != 0 {
			return c
		}
		return int(a.Offsets[1] - b.Offsets[1])
	})
	var at int64
	for _, e := range entries {
		switch {
		case e.Offsets[0] < at:
			return nil, fail(clip.Text(e.name)+".data_offsets", "[%d, %d] overlaps the tensor before it (which ends at %d)", e.Offsets[0], e.Offsets[1], at)
		case e.Offsets[0] > at:
			return nil, fail(clip.Text(e.name)+".data_offsets", "[%d, %d] leaves bytes %d–%d of the data unused", e.Offsets[0], e.Offsets[1], at, e.Offsets[0])
		}
		at = e.Offsets[1]
	}
	// the data, in offset order, through one buffer no larger than the largest tensor: a
	// file of many tiny tensors costs what its tensors hold, not a buffer each
	var buf []byte
	for _, e := range entries {
		if span := int(min(e.Offsets[1]-e.Offsets[0], 1<<16)); span > len(buf) {
			buf = make([]byte, span)
		}
	}
	for _, e := range entries {
		if bufferSize(e.DType) > 0 { // passed over, its bytes read and dropped
			if n, err := io.CopyN(io.Discard, r, e.Offsets[1]-e.Offsets[0]); err != nil {
				return nil, fail(clip.Text(e.name), "file is truncated: %d of its %d bytes", n, e.Offsets[1]-e.Offsets[0])
			}
			out.Skipped = append(out.Skipped, fmt.Sprintf("%s: %s %v, not floating point (a buffer such as position ids or a counter, not a weight)", clip.Text(e.name), e.DType, e.Shape))
			continue
		}
		a, err := readTensor(r, name, e, buf)
		if err != nil {
			return nil, err
		}
		out.Tensors = append(out.Tensors, a)
	}
	slices.Sort(out.Skipped)
	if n, _ := io.ReadFull(r, lenBuf[:1]); n > 0 {
		return nil, fail("data", "bytes after the last tensor (which ends at offset %d)", at)
	}
	slices.SortFunc(out.Tensors, func(a, b *Array) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// bufferSize is the element size of an integer or boolean safetensors dtype, whose tensors
// are skipped (0 for any other dtype). Float8 is not among them: those are weights this
// reader cannot read, refused rather than dropped.
func bufferSize(dtype string) int {
	switch dtype {
	case "I64", "U64":
		return 8
	case "I32", "U32":
		return 4
	case "I16", "U16":
		return 2
	case "I8", "U8", "BOOL":
		return 1
	}
	return 0
}

// floatSize is the element size of a floating-point safetensors dtype.
func floatSize(dtype string) (int, error) {
	switch dtype {
	case "F64":
		return 8, nil
	case "F32":
		return 4, nil
	case "F16", "BF16":
		return 2, nil
	}
	return 0, fmt.Errorf("unsupported dtype %s; want F64, F32, F16 or BF16 (a model's weights; integer and boolean buffers are skipped)", clip.Quote(dtype))
}

// readTensor reads one tensor's elements through buf (at least one element long unless
// the tensor is empty).
func readTensor(r io.Reader, file string, e tensorEntry, buf []byte) (*Array, error) {
	size, _ := floatSize(e.DType)
	count := int((e.Offsets[1] - e.Offsets[0]) / int64(size))
	shape := make([]int, len(e.Shape))
	for i, s := range e.Shape {
		shape[i] = int(s)
	}
	a := &Array{Name: e.name, Shape: shape, DType: e.DType, Converted: size < 8, Data: make([]float64, 0, min(count, 1<<16))}
	for len(a.Data) < count {
		k, err := io.ReadFull(r, buf[:min(len(buf)-len(buf)%size, (count-len(a.Data))*size)]) // whole elements
		for off := 0; off+size <= k; off += size {
			v := decodeFloat(e.DType, buf[off:off+size])
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &reference.InputError{File: file, Field: clip.Text(e.name), Msg: fmt.Sprintf("element %d is %v; values must be finite", len(a.Data), v)}
			}
			a.Data = append(a.Data, v)
		}
		if err != nil {
			return nil, &reference.InputError{File: file, Field: clip.Text(e.name), Msg: fmt.Sprintf("file is truncated: %d of the tensor's %d elements", len(a.Data), count)}
		}
	}
	return a, nil
}

// decodeFloat widens one little-endian element to float64 (exactly: every F32, F16 and
// BF16 value is a float64).
func decodeFloat(dtype string, b []byte) float64 {
	switch dtype {
	case "F64":
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case "F32":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case "BF16": // the top half of a float32
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16))
	default: // F16
		return halfToFloat64(binary.LittleEndian.Uint16(b))
	}
}

// halfToFloat64 widens an IEEE 754 binary16 value (1 sign, 5 exponent, 10 fraction bits)
// to float64, exactly.
func halfToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0: // subnormal
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac == 0 {
			return sign * math.Inf(1)
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}
