package artifact

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// stFile builds a safetensors file: the length, the header as given, the data.
func stFile(header string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func le(vs ...any) []byte {
	var b bytes.Buffer
	for _, v := range vs {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

// A file laid out as the format specifies (tensors out of name order in the data, metadata,
// every float dtype) reads back with the values written, widened exactly; the half-precision
// values are the IEEE 754 and bfloat16 encodings of known numbers.
func TestSafetensorsReadsEveryFloatDType(t *testing.T) {
	header := `{"__metadata__":{"format":"pt","note":"test"},` +
		`"w":{"dtype":"F32","shape":[2,2],"data_offsets":[8,24]},` +
		`"b":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},` +
		`"h":{"dtype":"F16","shape":[4],"data_offsets":[24,32]},` +
		`"g":{"dtype":"BF16","shape":[2],"data_offsets":[32,36]}}`
	data := le(float64(-0.5), float32(1), float32(2.5), float32(-3), float32(0.125),
		uint16(0x3c00), uint16(0xc000), uint16(0x0001), uint16(0x7bff), // 1, −2, 2⁻²⁴, 65504
		uint16(0x3f80), uint16(0x4049)) // 1, 3.140625
	st, err := ParseSafetensors(bytes.NewReader(stFile(header, data)), "m.safetensors", reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{"b": {-0.5}, "g": {1, 3.140625}, "h": {1, -2, 0x1p-24, 65504}, "w": {1, 2.5, -3, 0.125}}
	var names []string
	for _, a := range st.Tensors {
		names = append(names, a.Name)
		if !slices.Equal(a.Data, want[a.Name]) {
			t.Errorf("%s = %v, want %v", a.Name, a.Data, want[a.Name])
		}
		if a.Converted != (a.DType != "F64") {
			t.Errorf("%s: Converted = %v for %s", a.Name, a.Converted, a.DType)
		}
	}
	if !slices.Equal(names, []string{"b", "g", "h", "w"}) {
		t.Errorf("tensors %v; want sorted by name", names)
	}
	if st.Metadata["format"] != "pt" || st.Tensor("w").Rows() != 2 || st.Tensor("w").Cols() != 2 {
		t.Errorf("metadata %v, w %v", st.Metadata, st.Tensor("w"))
	}
}

// Every malformed file the issue names, and more, is refused with the file and the field
// (tensor.dtype, tensor.data_offsets, …) before its claims cost memory.
func TestSafetensorsRefusals(t *testing.T) {
	one := `{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}`
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"truncated length", []byte{1, 2, 3}, "inside the 8-byte header length"},
		{"header of 2^40 bytes claimed", le(uint64(1) << 40), "header of 1099511627776 bytes claimed"},
		{"header shorter than claimed", le(uint64(1000), uint8('{')), "file ends after 1 of the header's 1000 bytes"},
		{"not JSON", stFile("nope", nil), "not a JSON object"},
		{"truncated data", stFile(one, le(uint32(1))), "a: file is truncated: 0 of the tensor's 1 elements"},
		{"overlapping offsets", stFile(`{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},"b":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}}`, le(1.0, 2.0)),
			"b.data_offsets: [8, 16] overlaps"},
		{"a gap", stFile(`{"a":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}}`, le(1.0, 2.0)), "leaves bytes 0–8 of the data unused"},
		{"offsets and shape disagree", stFile(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, le(1.0)), "spans 8 bytes; shape [3] of F32 needs 12"},
		{"float8 dtype", stFile(`{"a":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}}`, []byte{1}), `a.dtype: unsupported dtype "F8_E4M3"`},
		{"a skipped tensor cut short", stFile(`{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},"ids":{"dtype":"I64","shape":[2],"data_offsets":[8,24]}}`, le(1.0, int64(1))), "ids: file is truncated: 8 of its 16 bytes"},
		{"2^40 elements", stFile(`{"a":{"dtype":"F64","shape":[1048576,1048576],"data_offsets":[0,8796093022208]}}`, nil), "a.shape: tensor a: shape [1048576 1048576] holds more than the cap of 134217728 values"},
		// issue 29: a dimension past 2^31 was printed clipped to 2147483647
		{"a dimension past 2^31", stFile(`{"a":{"dtype":"F64","shape":[3,99999999999],"data_offsets":[0,8]}}`, nil), "a.shape: tensor a: shape [3 99999999999] holds more than"},
		{"a dimension of 2^63-1", stFile(`{"a":{"dtype":"F64","shape":[9223372036854775807,2],"data_offsets":[0,8]}}`, nil), "shape [9223372036854775807 2] holds more than"},
		{"negative dimension", stFile(`{"a":{"dtype":"F64","shape":[-1],"data_offsets":[0,8]}}`, le(1.0)), "negative dimension"},
		{"unknown field", stFile(`{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8],"x":1}}`, le(1.0)), "unknown field"},
		{"metadata not strings", stFile(`{"__metadata__":{"k":1},"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}`, le(1.0)), "__metadata__"},
		{"NaN", stFile(one, le(nan())), "a: element 0 is NaN"},
		{"trailing bytes", stFile(one, le(1.0, 2.0)), "bytes after the last tensor"},
		// issue 29: a key given twice kept its last tensor; text after the header's object was ignored
		{"duplicate key", stFile(`{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}`, le(1.0)), "a: given twice in the header"},
		{"text after the header's object", stFile(one+`{"b":1}`, le(1.0)), "header: 7 bytes after its JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			got := testenv.Allocated(func() { _, err = ParseSafetensors(bytes.NewReader(c.in), "m.safetensors", reference.Limits{}) })
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "m.safetensors") {
				t.Fatalf("error %v; want m.safetensors… %q", err, c.want)
			}
			if got > 1<<20 {
				t.Errorf("refusal allocated %d bytes", got)
			}
		})
	}
}

func FuzzParseSafetensors(f *testing.F) {
	f.Add(stFile(`{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, le(float32(1), float32(2))))
	f.Add(stFile(`{"a":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]},"b":{"dtype":"F16","shape":[1],"data_offsets":[2,4]}}`, le(uint16(0x3f80), uint16(0x3c00))))
	f.Add(le(uint64(1) << 40))
	f.Fuzz(func(t *testing.T, in []byte) {
		var (
			st  *Safetensors
			err error
		)
		got := testenv.Allocated(func() { st, err = ParseSafetensors(bytes.NewReader(in), "fuzz.safetensors", reference.Limits{}) })
		// JSON decoding keeps a few copies of the header; an F16 element (2 bytes) becomes 8,
		// doubled by growth: 64 per input byte covers both
		if got > fuzzAllocLimit(len(in)) {
			t.Fatalf("%d input bytes allocated %d", len(in), got)
		}
		if err != nil {
			return
		}
		for _, a := range st.Tensors {
			n := 1
			for _, s := range a.Shape {
				n *= s
			}
			if len(a.Data) != n {
				t.Fatalf("%s: shape %v with %d elements", a.Name, a.Shape, len(a.Data))
			}
		}
	})
}

// Integer and boolean tensors (a transformer's position ids, a step counter, a mask) are
// buffers, not weights: skipped and named in Skipped, their bytes read past, as a PyTorch
// state dict's are, so a Hugging Face file reads as its weights; LoadModel reads the
// floating-point tensors alone, and naming a skipped one says why it was not read. Planted
// and caught: integer dtypes refused again (the file unreadable), a skipped tensor's bytes
// not read past (the next tensor read from them).
func TestSafetensorsSkipsIntegerBuffers(t *testing.T) {
	header := `{"a.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},` +
		`"b.position_ids":{"dtype":"I64","shape":[1,3],"data_offsets":[8,32]},` +
		`"c.mask":{"dtype":"BOOL","shape":[2],"data_offsets":[32,34]},` +
		`"d.bias":{"dtype":"F64","shape":[1],"data_offsets":[34,42]}}`
	file := stFile(header, slices.Concat(le(float32(1.5), float32(-2)), le(int64(0), int64(1), int64(2)), []byte{1, 0}, le(0.25)))
	st, err := ParseSafetensors(bytes.NewReader(file), "m.safetensors", reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var vals []float64
	for _, a := range st.Tensors {
		names = append(names, a.Name)
		vals = append(vals, a.Data...)
	}
	wantSkipped := []string{"b.position_ids: I64 [1 3], not floating point (a buffer such as position ids or a counter, not a weight)",
		"c.mask: BOOL [2], not floating point (a buffer such as position ids or a counter, not a weight)"}
	if !slices.Equal(names, []string{"a.weight", "d.bias"}) || !slices.Equal(vals, []float64{1.5, -2, 0.25}) || !slices.Equal(st.Skipped, wantSkipped) {
		t.Fatalf("tensors %v %v, skipped %q", names, vals, st.Skipped)
	}
	p := filepath.Join(t.TempDir(), "m.safetensors")
	if err := os.WriteFile(p, file, 0o644); err != nil {
		t.Fatal(err)
	}
	params, layout, err := LoadModel(p, reference.Limits{})
	if err != nil || !slices.Equal(params, []float64{1.5, -2, 0.25}) || len(layout) != 2 {
		t.Errorf("LoadModel: %v %v %v", params, layout, err)
	}
	if _, _, err := LoadModelTensors(p, []string{"b.position_ids"}, reference.Limits{}); err == nil || !strings.Contains(err.Error(), "b.position_ids: not read: I64 [1 3], not floating point") {
		t.Errorf("naming a skipped tensor: %v", err)
	}
}

// Scalars and rank-3 tensors read as matrices: 1 × 1, and Shape[0] rows of the rest.
func TestArrayRowsAndCols(t *testing.T) {
	for _, c := range []struct {
		shape      []int
		rows, cols int
	}{{nil, 1, 1}, {[]int{5}, 1, 5}, {[]int{2, 3}, 2, 3}, {[]int{2, 3, 4}, 2, 12}} {
		a := &Array{Shape: c.shape}
		if a.Rows() != c.rows || a.Cols() != c.cols {
			t.Errorf("shape %v: %d × %d, want %d × %d", c.shape, a.Rows(), a.Cols(), c.rows, c.cols)
		}
	}
}

// A file of many empty tensors costs what its header holds, not a read buffer per tensor
// (it cost 64 KiB a tensor: 100,000 of them, 521 MB, 88 times the file); the allocation
// stays within 24 times the file's bytes (about 1 KB a tensor of 59 header bytes).
func TestSafetensorsManyEmptyTensorsCostTheirHeader(t *testing.T) {
	var h strings.Builder
	h.WriteString("{")
	for i := range 100_000 {
		if i > 0 {
			h.WriteString(",")
		}
		fmt.Fprintf(&h, `"t%06d":{"dtype":"F64","shape":[0],"data_offsets":[0,0]}`, i)
	}
	h.WriteString(`,"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`)
	in := stFile(h.String(), le(float32(1)))
	var (
		st  *Safetensors
		err error
	)
	got := testenv.Allocated(func() { st, err = ParseSafetensors(bytes.NewReader(in), "m.safetensors", reference.Limits{}) })
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Tensors) != 100_001 || st.Tensor("w").Data[0] != 1 {
		t.Fatalf("%d tensors, w = %v", len(st.Tensors), st.Tensor("w"))
	}
	if limit := uint64(24 * len(in)); got > limit {
		t.Errorf("%d header bytes allocated %d (limit %d)", len(in), got, limit)
	}
	t.Logf("%d bytes allocated for a %d-byte file", got, len(in))
}

// A header of more tensors than maxSafetensorsTensors is refused, naming the cap, before
// its entries past the cap are decoded; the cap itself is accepted.
func TestSafetensorsTensorCap(t *testing.T) {
	header := func(n int) string {
		var h strings.Builder
		h.WriteString("{")
		for i := range n {
			fmt.Fprintf(&h, `"t%06d":{"dtype":"F64","shape":[0],"data_offsets":[0,0]},`, i)
		}
		h.WriteString(`"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`)
		return h.String()
	}
	st, err := ParseSafetensors(bytes.NewReader(stFile(header(maxSafetensorsTensors-1), le(float32(1)))), "ok.safetensors", reference.Limits{})
	if err != nil || len(st.Tensors) != maxSafetensorsTensors {
		t.Fatalf("%d tensors, the cap: %v", maxSafetensorsTensors, err)
	}
	_, err = ParseSafetensors(bytes.NewReader(stFile(header(maxSafetensorsTensors), le(float32(1)))), "many.safetensors", reference.Limits{})
	if err == nil || !strings.Contains(err.Error(), "many.safetensors") || !strings.Contains(err.Error(), "more than 131072 tensors") {
		t.Fatalf("%d tensors: %v; want a refusal naming the file and the cap", maxSafetensorsTensors+1, err)
	}
}

// A file of no parameters — no tensors, or only empty ones — is refused as a model and as
// a sample, naming the file; it panicked (mat: zero length) in LoadSample.
func TestSafetensorsWithoutParametersIsRefused(t *testing.T) {
	dir := t.TempDir()
	for name, header := range map[string]string{
		"none.safetensors":  `{"__metadata__":{"format":"pt"}}`,
		"empty.safetensors": `{"a":{"dtype":"F64","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"F32","shape":[3,0],"data_offsets":[0,0]}}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, stFile(header, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadModel(p, reference.Limits{}); err == nil || !strings.Contains(err.Error(), p+": no parameters") {
			t.Errorf("LoadModel(%s): %v", name, err)
		}
		for _, load := range []func(string, reference.Limits) (*mat.Dense, []string, error){LoadSample, LoadScores} {
			if _, _, err := load(p, reference.Limits{}); err == nil || !strings.Contains(err.Error(), p+": no parameters") {
				t.Errorf("load %s: %v", name, err)
			}
		}
		sub := filepath.Join(dir, strings.TrimSuffix(name, ".safetensors"))
		os.Mkdir(sub, 0o755)
		os.WriteFile(filepath.Join(sub, "m.safetensors"), stFile(header, nil), 0o644)
		if _, _, err := LoadSample(sub, reference.Limits{}); err == nil || !strings.Contains(err.Error(), "no parameters") {
			t.Errorf("folder of %s: %v", name, err)
		}
	}
}

// The format pads the header with spaces to align the data: padding is not text after it.
func TestSafetensorsHeaderPadding(t *testing.T) {
	st, err := ParseSafetensors(bytes.NewReader(stFile(`{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}     `, le(2.5))), "m.safetensors", reference.Limits{})
	if err != nil || len(st.Tensors) != 1 || st.Tensors[0].Data[0] != 2.5 {
		t.Fatalf("%v, %v", st, err)
	}
}
