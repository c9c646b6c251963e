package artifact

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

type ptGolden struct {
	Torch string `json:"torch"`
	Cases map[string]struct {
		Refused bool `json:"refused"`
		Tensors map[string]struct {
			Shape  []int     `json:"shape"`
			DType  string    `json:"dtype"`
			Values []float64 `json:"values"`
		} `json:"tensors"`
		Skipped []string `json:"skipped"`
	} `json:"cases"`
}

// ptRefusals is what the reader must say of each file the golden file marks refused:
// what the file is and what to save instead.
var ptRefusals = map[string][]string{
	"whole_model.pt": {"whole_model/data.pkl", "imports __main__.Net", "torch.save(model)", "save model.state_dict() instead"},
	"checkpoint.pt":  {"checkpoint/data.pkl: a checkpoint, not a state dict (entries holding dicts of tensors: model_state_dict)", `torch.save(checkpoint["model_state_dict"], path)`},
	"legacy.pt":      {"legacy.pt: the legacy torch.save format", "_use_new_zipfile_serialization=False", "PyTorch 1.6 or later"},
	"expanded.pt":    {"expanded.pt: e: a view of size [2 3] and stride [1 0] reaches some storage elements twice (expand()?)"},
	"torchscript.pt": {"torchscript.pt: torchscript/code/__torch__/torch/nn/modules/linear.py: a TorchScript archive (torch.jit.save)", "torch.save(module.state_dict(), path)"},
}

func readPTGolden(t *testing.T, dir string) ptGolden {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "pt_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g ptGolden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// The fixtures were written by PyTorch (testdata/make_pt.py): the reader gives PyTorch's
// own values bit for bit — float32, float16 and bfloat16 widened exactly, views read
// through their strides and offsets, tied weights under both names, parameters as
// tensors, protocol 4 as protocol 2 — skips the integer buffer by name, and refuses a
// pickled module, a checkpoint, the legacy format, an expanded view and a TorchScript
// module (by its constants.pkl and code/ entries), saying what to save instead.
func TestPyTorchMatchesTorch(t *testing.T) {
	g := readPTGolden(t, "testdata")
	read, refused := 0, 0
	for name, want := range g.Cases {
		path := filepath.Join("testdata", name)
		p, err := LoadPyTorch(path, reference.Limits{})
		if want.Refused {
			refused++
			msgs, ok := ptRefusals[name]
			if !ok {
				t.Errorf("%s: refused by the golden file, but the test names no message for it", name)
			}
			var ie *reference.InputError
			if err == nil || !errors.As(err, &ie) {
				t.Errorf("%s: %v; want an InputError", name, err)
				continue
			}
			for _, m := range msgs {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("%s: %q lacks %q", name, err, m)
				}
			}
			continue
		}
		read++
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var names, wantNames []string
		for _, a := range p.Tensors {
			names = append(names, a.Name)
			w := want.Tensors[a.Name]
			if !slices.Equal(a.Shape, w.Shape) || a.DType != w.DType || !slices.Equal(a.Data, w.Values) || a.Converted != (w.DType != "float64") {
				t.Errorf("%s: %s: shape %v %s (converted %v) %v; PyTorch: %v %s %v", name, a.Name, a.Shape, a.DType, a.Converted, a.Data, w.Shape, w.DType, w.Values)
			}
			if len(w.Values) == 0 && len(a.Shape) == 0 {
				t.Errorf("%s: %s: not in the golden file", name, a.Name)
			}
		}
		for n := range want.Tensors {
			wantNames = append(wantNames, n)
		}
		slices.Sort(wantNames)
		if !slices.Equal(names, wantNames) {
			t.Errorf("%s: tensors %v; PyTorch saved %v (in name order)", name, names, wantNames)
		}
		var skipped []string
		for _, s := range p.Skipped {
			skipped = append(skipped, s[:strings.Index(s, ":")])
		}
		if !slices.Equal(skipped, want.Skipped) {
			t.Errorf("%s: skipped %q; want %q", name, p.Skipped, want.Skipped)
		}
	}
	if read < 5 || refused < 5 {
		t.Fatalf("the golden file has %d files read and %d refused; want at least 5 and 5 (run testdata/make_pt.py)", read, refused)
	}
}

// make_pt.py regenerates the fixtures into a temporary folder (never over the committed
// ones) with the same expectations, when PyTorch is installed; the legacy file differs
// from run to run (it keys storages by object id) and is only refused.
func TestPyTorchFixturesRegenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs PyTorch")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import torch").Run(); err != nil {
		// CI installs it (.ci/run): there the fixtures must be shown to regenerate
		if os.Getenv("CI") != "" {
			t.Fatal("PyTorch is not installed for /usr/bin/python3 under CI (.ci/run installs python3-torch)")
		}
		t.Skip("PyTorch is not installed for /usr/bin/python3 (apt-get install python3-torch)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("/usr/bin/python3", filepath.Join("testdata", "make_pt.py"), dir).CombinedOutput(); err != nil {
		t.Fatalf("make_pt.py: %v\n%s", err, out)
	}
	committed, fresh := readPTGolden(t, "testdata"), readPTGolden(t, dir)
	a, _ := json.Marshal(committed.Cases)
	b, _ := json.Marshal(fresh.Cases)
	if !bytes.Equal(a, b) || committed.Torch != fresh.Torch {
		t.Errorf("the script's golden cases (torch %s) differ from the committed ones (torch %s)", fresh.Torch, committed.Torch)
	}
	for name := range committed.Cases {
		if name == "legacy.pt" {
			continue
		}
		if !bytes.Equal(must(os.ReadFile(filepath.Join("testdata", name))), must(os.ReadFile(filepath.Join(dir, name)))) {
			t.Errorf("%s: regenerated bytes differ from the committed file", name)
		}
	}
}

// LoadModel reads a .pt state dict's float tensors concatenated in name order, as it
// reads safetensors, with a layout naming each; LoadModelTensors picks tensors in the
// order given.
func TestLoadModelPyTorch(t *testing.T) {
	g := readPTGolden(t, "testdata")
	want := g.Cases["batchnorm.pt"]
	path := filepath.Join("testdata", "batchnorm.pt")
	params, layout, err := LoadModel(path, reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range want.Tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	var wantParams []float64
	var wantLayout []string
	for _, n := range names {
		wantParams = append(wantParams, want.Tensors[n].Values...)
		wantLayout = append(wantLayout, fmt.Sprintf("%s %v %s", n, want.Tensors[n].Shape, want.Tensors[n].DType))
	}
	if !slices.Equal(params, wantParams) || !slices.Equal(layout, wantLayout) {
		t.Errorf("LoadModel: %v %q; want %v %q", params, layout, wantParams, wantLayout)
	}
	params, layout, err = LoadModelTensors(path, []string{"1.weight", "0.bias"}, reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if w := append(slices.Clone(want.Tensors["1.weight"].Values), want.Tensors["0.bias"].Values...); !slices.Equal(params, w) || len(layout) != 2 || !strings.HasPrefix(layout[0], "1.weight ") {
		t.Errorf("LoadModelTensors: %v %q; want %v, 1.weight first", params, layout, w)
	}
}

// ptArchive is a zip archive laid out as torch.save lays it out: FOLDER/data.pkl, the
// storages at FOLDER/data/KEY, FOLDER/version.
func ptArchive(pickle []byte, storages map[string][]byte, method uint16) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	add := func(name string, data []byte) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "archive/" + name, Method: method})
		if err != nil {
			panic(err)
		}
		w.Write(data)
	}
	add("data.pkl", pickle)
	keys := make([]string, 0, len(storages))
	for k := range storages {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		add("data/"+k, storages[k])
	}
	add("version", []byte("3\n"))
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// ptTensorSpec is one entry of a hand-built state dict.
type ptTensorSpec struct {
	name, class, key string
	numel, offset    int
	size, stride     []int
}

// ptPickle writes the protocol-2 pickle torch.save writes for an OrderedDict of the
// given tensors, opcode for opcode (see the disassembly of testdata/linear_f32.pt).
func ptPickle(tensors ...ptTensorSpec) []byte {
	var b bytes.Buffer
	str := func(s string) {
		b.WriteByte('X')
		binary.Write(&b, binary.LittleEndian, uint32(len(s)))
		b.WriteString(s)
	}
	ints := func(v []int) {
		b.WriteByte('(')
		for _, x := range v {
			b.WriteByte('J')
			binary.Write(&b, binary.LittleEndian, int32(x))
		}
		b.WriteByte('t')
	}
	b.WriteString("\x80\x02ccollections\nOrderedDict\nq\x00)R(")
	for _, t := range tensors {
		str(t.name)
		b.WriteString("ctorch._utils\n_rebuild_tensor_v2\n((")
		str("storage")
		b.WriteString("ctorch\n" + t.class + "\n")
		str(t.key)
		str("cpu")
		b.WriteByte('J')
		binary.Write(&b, binary.LittleEndian, int32(t.numel))
		b.WriteString("tQJ")
		binary.Write(&b, binary.LittleEndian, int32(t.offset))
		ints(t.size)
		ints(t.stride)
		b.WriteString("\x89h\x00)Rt")
		b.WriteByte('R')
	}
	b.WriteString("u.")
	return b.Bytes()
}

func f32s(vs ...float32) []byte { return le(any(vs)) }

// The hand-built archive reads as torch's do (a check of the builder the refusals below
// rely on): a 2 × 3 view at offset 1 of a 7-element storage, read through its strides.
func TestPyTorchHandBuilt(t *testing.T) {
	in := ptArchive(ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 7, 1, []int{2, 3}, []int{1, 2}}),
		map[string][]byte{"0": f32s(0, 1, 2, 3, 4, 5, 6)}, zip.Store)
	p, err := ParsePyTorch(bytes.NewReader(in), int64(len(in)), "m.pt", reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// element (i, j) is storage[1 + i + 2j]
	if w := p.Tensor("w"); w == nil || !slices.Equal(w.Data, []float64{1, 3, 5, 2, 4, 6}) || !slices.Equal(w.Shape, []int{2, 3}) {
		t.Errorf("w = %+v", w)
	}
}

// Every malformed or hostile archive is refused naming the file and the entry or tensor,
// and none costs more than its bytes: a pickle naming anything but the allow-list, a
// storage larger than its entry, views past their storage or overlapping themselves, a
// storage read out through too many views, a deflate bomb, truncations, a bare pickle, a
// TorchScript archive, a value that is not finite.
func TestPyTorchRefusals(t *testing.T) {
	one := ptTensorSpec{"w", "FloatStorage", "0", 2, 0, []int{2}, []int{1}}
	good := map[string][]byte{"0": f32s(1, 2)}
	pk := ptPickle(one)
	evil := []byte("\x80\x02cposix\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85R.")
	many := make([]ptTensorSpec, 5)
	for i := range many {
		many[i] = ptTensorSpec{fmt.Sprintf("t%d", i), "FloatStorage", "0", 2, 0, []int{2}, []int{1}}
	}
	bomb := make([]byte, 4<<20)
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"a function", ptArchive(evil, nil, zip.Store), "m.pt: archive/data.pkl: the pickle imports posix.system, which a state dict of tensors never does; it is not read"},
		{"a storage larger than its entry", ptArchive(ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 3, 0, []int{3}, []int{1}}), good, zip.Store), "m.pt: archive/data/0: 8 bytes; the pickle declares 3 float32 elements (12 bytes)"},
		{"a missing storage", ptArchive(pk, nil, zip.Store), `m.pt: data/0: storage "0" is named by the pickle but not in the archive`},
		{"a view past its storage", ptArchive(ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 2, 1, []int{2}, []int{1}}), good, zip.Store), "m.pt: w: a view of size [2], stride [1] and offset 1 reaches past the storage's 2 elements"},
		{"a stride past its storage", ptArchive(ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 2, 0, []int{2}, []int{1 << 30}}), good, zip.Store), "reaches past the storage's 2 elements"},
		{"an overlapping view", ptArchive(ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 2, 0, []int{2, 2}, []int{1, 1}}), good, zip.Store), "m.pt: w: a view of size [2 2] and stride [1 1] reaches some storage elements twice"},
		{"a storage behind five names", ptArchive(ptPickle(many...), good, zip.Store), `m.pt: t4: storage "0" (2 elements) is read out 5 times over`},
		{"a shape past the cap", ptArchive(ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 2, 0, []int{1 << 30, 1 << 30}, []int{1, 1}}), good, zip.Store), "m.pt: w: shape [1073741824 1073741824]: more than the cap"},
		{"not finite", ptArchive(pk, map[string][]byte{"0": f32s(1, float32(math.Inf(1)))}, zip.Store), "m.pt: w: element 1 is +Inf; values must be finite"},
		{"a deflate bomb", ptArchive(ptPickle(ptTensorSpec{"w", "DoubleStorage", "0", len(bomb) / 8, 0, []int{len(bomb) / 8}, []int{1}}), map[string][]byte{"0": bomb}, zip.Deflate), "more than 100 to 1"},
		{"a truncated pickle", ptArchive(pk[:len(pk)-5], good, zip.Store), "the pickle ends before its STOP opcode"},
		{"a memo read before written", ptArchive([]byte("\x80\x02h\x07."), nil, zip.Store), "memo entry 7 read before it was written"},
		{"nested marks", ptArchive(append([]byte("\x80\x02"), bytes.Repeat([]byte("("), 100)...), nil, zip.Store), "more than 64 nested MARKs"},
		{"a negative offset (LONG1)", ptArchive(bytes.Replace(pk, []byte("tQJ\x00\x00\x00\x00"), []byte("tQ\x8a\x01\xff"), 1), good, zip.Store), "_rebuild_tensor_v2 with storage offset -1; want an integer ≥ 0"},
		{"a huge integer", ptArchive([]byte("\x80\x02\x8a\x09000000000."), nil, zip.Store), "an integer of 9 bytes"},
		{"an opcode outside the subset", ptArchive([]byte("\x80\x02I1\n."), nil, zip.Store), "opcode 0x49, which torch.save does not write"},
		{"a list, not a dict", ptArchive([]byte("\x80\x02]."), nil, zip.Store), "the pickle holds a list; a state dict is a dict of tensors"},
		{"a bare pickle", pk, "m.pt: a bare pickle, not the zip archive torch.save writes"},
		{"not an archive", []byte("hello"), "m.pt: not a zip archive"},
		{"TorchScript", zipOf(map[string][]byte{"m/constants.pkl": {0x80, 2, '.'}, "m/code/m.py": nil}), "m.pt: m/code/m.py: a TorchScript archive (torch.jit.save)"},
		{"no data.pkl", zipOf(map[string][]byte{"m/version": []byte("3\n")}), "no FOLDER/data.pkl entry"},
		{"a bad byte order", func() []byte {
			var b bytes.Buffer
			zw := zip.NewWriter(&b)
			for name, data := range map[string][]byte{"a/data.pkl": pk, "a/data/0": good["0"], "a/byteorder": []byte("middle")} {
				w, _ := zw.Create(name)
				w.Write(data)
			}
			zw.Close()
			return b.Bytes()
		}(), `m.pt: a/byteorder: "middle"; want little or big`},
	} {
		var err error
		got := testenv.Allocated(func() { _, err = ParsePyTorch(bytes.NewReader(c.in), int64(len(c.in)), "m.pt", reference.Limits{}) })
		var ie *reference.InputError
		var fe *reference.InflationError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ie) && !errors.As(err, &fe) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
		if got > fuzzAllocLimit(len(c.in)) {
			t.Errorf("%s: %d input bytes allocated %d", c.name, len(c.in), got)
		}
	}
}

// Big-endian archives (torch.save on such a machine writes byteorder "big") read the same
// values, for every float dtype: each storage holds known encodings (float16 1.5, -2,
// 65504 and its smallest subnormal 2^-24; bfloat16 1.5, -2, 3 and its smallest subnormal
// 2^-133), written in the archive's order. Read in the other order every one of them is a
// different number, so a reader that ignores the order of 2-byte types fails here (planted:
// decodeTorch decoding float16 and bfloat16 as little-endian whatever the order, the
// big-endian archive was refused: float16 0x7bff read as 0xff7b, a NaN).
func TestPyTorchBigEndian(t *testing.T) {
	type storage struct {
		class string
		bits  []any // the encodings, as uint16, uint32 or uint64
		want  []float64
	}
	storages := []storage{
		{"FloatStorage", []any{math.Float32bits(1.5), math.Float32bits(-2)}, []float64{1.5, -2}},
		{"DoubleStorage", []any{math.Float64bits(0.1), math.Float64bits(-3e300)}, []float64{0.1, -3e300}},
		{"HalfStorage", []any{uint16(0x3e00), uint16(0xc000), uint16(0x7bff), uint16(0x0001)}, []float64{1.5, -2, 65504, math.Ldexp(1, -24)}},
		{"BFloat16Storage", []any{uint16(0x3fc0), uint16(0xc000), uint16(0x4040), uint16(0x0001)}, []float64{1.5, -2, 3, math.Ldexp(1, -133)}},
	}
	for _, order := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
		var specs []ptTensorSpec
		files := map[string][]byte{}
		for i, s := range storages {
			var b bytes.Buffer
			for _, v := range s.bits {
				binary.Write(&b, order, v)
			}
			key := fmt.Sprint(i)
			specs = append(specs, ptTensorSpec{s.class, s.class, key, len(s.want), 0, []int{len(s.want)}, []int{1}})
			files["a/data/"+key] = b.Bytes()
		}
		files["a/data.pkl"] = ptPickle(specs...)
		files["a/byteorder"] = []byte(strings.TrimSuffix(strings.ToLower(order.String()), "endian"))
		in := zipOf(files)
		p, err := ParsePyTorch(bytes.NewReader(in), int64(len(in)), "be.pt", reference.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", order, err)
		}
		for _, s := range storages {
			if a := p.Tensor(s.class); a == nil || !slices.Equal(a.Data, s.want) {
				t.Errorf("%s: %s: %v; want %v", order, s.class, a, s.want)
			}
		}
	}
}

// A float16 or bfloat16 state dict is converted once, each value from its storage's bytes
// straight into the one float64 slice that LoadModel returns: what ParsePyTorch and
// LoadModel allocate is at most 8 bytes a value (the float64 result) plus the storage's
// inflated entry as it arrived (2 bytes a value) plus 1 MiB for what does not grow with
// the values (the zip directory, the pickle, read buffers). The reader before this bound
// made 4–5 copies: 59 bytes a value for a 32 MB float16 file (992 MB allocated, 528 MB
// resident; 67 a value through LoadSample of its folder), and this test failed on it for
// both dtypes and all three calls.
func TestPyTorchHalfConvertedOnce(t *testing.T) {
	const n = 1 << 21 // 4 MB of float16: the bound is per value, whatever n
	for _, class := range []string{"HalfStorage", "BFloat16Storage"} {
		raw := make([]byte, 2*n)
		for i := range n { // finite encodings of both dtypes: exponent bits never all ones
			binary.LittleEndian.PutUint16(raw[2*i:], uint16(i%0x3c00))
		}
		in := ptArchive(ptPickle(ptTensorSpec{"w", class, "0", n, 0, []int{n}, []int{1}}), map[string][]byte{"0": raw}, zip.Store)
		path := filepath.Join(t.TempDir(), "half.pt")
		if err := os.WriteFile(path, in, 0o644); err != nil {
			t.Fatal(err)
		}
		limit := uint64(8*n + 2*n + 1<<20)
		var (
			p      *PyTorch
			params []float64
			err    error
		)
		if got := testenv.Allocated(func() { p, err = ParsePyTorch(bytes.NewReader(in), int64(len(in)), "half.pt", reference.Limits{}) }); err != nil || got > limit {
			t.Errorf("%s: ParsePyTorch of %d values allocated %d bytes (%.1f a value; limit %d): %v", class, n, got, float64(got)/n, limit, err)
		}
		if got := testenv.Allocated(func() { params, _, err = LoadModel(path, reference.Limits{}) }); err != nil || got > limit {
			t.Errorf("%s: LoadModel of %d values allocated %d bytes (%.1f a value; limit %d): %v", class, n, got, float64(got)/n, limit, err)
		}
		// a folder of this one model: its row is the model's values, not a copy
		if got := testenv.Allocated(func() { _, _, err = LoadSample(filepath.Dir(path), reference.Limits{}) }); err != nil || got > limit {
			t.Errorf("%s: LoadSample of a folder of %d values allocated %d bytes (%.1f a value; limit %d): %v", class, n, got, float64(got)/n, limit, err)
		}
		// and the values are right: element i is the encoding i mod 0x3c00
		dtype := map[string]string{"HalfStorage": "F16", "BFloat16Storage": "BF16"}[class]
		for _, i := range []int{0, 1, 0x3bff, 0x3c00, n - 1} {
			want := decodeFloat(dtype, raw[2*i:2*i+2])
			if p == nil || p.Tensors[0].Data[i] != want || len(params) != n || params[i] != want {
				t.Fatalf("%s: element %d is not %v", class, i, want)
			}
		}
	}
}

// BenchmarkPyTorchHalf reads a 32 MB float16 state dict (2^24 values): -benchmem reports
// the bytes allocated per read (about 10 a value: the float64 result and the raw bytes).
func BenchmarkPyTorchHalf(b *testing.B) {
	const n = 1 << 24
	raw := make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(i%0x3c00))
	}
	in := ptArchive(ptPickle(ptTensorSpec{"w", "HalfStorage", "0", n, 0, []int{n}, []int{1}}), map[string][]byte{"0": raw}, zip.Store)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParsePyTorch(bytes.NewReader(in), int64(len(in)), "half.pt", reference.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzLoadPT reads archives from the fuzzer's bytes, seeded with PyTorch's own files: no
// panic; an archive costs at most what its entries may inflate to; what reads is a tensor
// of as many finite values as its shape holds.
func FuzzLoadPT(f *testing.F) {
	for _, p := range must2(filepath.Glob(filepath.Join("testdata", "*.pt*"))) {
		f.Add(must(os.ReadFile(p)))
	}
	f.Add(ptArchive(ptPickle(ptTensorSpec{"w", "HalfStorage", "0", 3, 1, []int{2}, []int{1}}), map[string][]byte{"0": le(uint16(0x3c00), uint16(0xc000), uint16(1))}, zip.Deflate))
	pk := ptPickle(ptTensorSpec{"w", "BFloat16Storage", "0", 2, 0, []int{2}, []int{1}})
	f.Add(zipOf(map[string][]byte{"a/data.pkl": pk, "a/data/0": {0x3f, 0xc0, 0xc0, 0}, "a/byteorder": []byte("big")}))
	f.Add(rawZip(honest("a/data.pkl", zip.Store, pk), rawEntry{"a/data/0", zip.Store, []byte{0xc0, 0x3f, 0, 0xc0}, 0, 4})) // a CRC of 0
	f.Fuzz(func(t *testing.T, in []byte) {
		if checkPyTorch(t, in, max(reference.InflationGrace, reference.MaxInflation*len(in))) {
			// a file read has an intact pickle: its declared size and CRC-32
			zr := must2(zip.NewReader(bytes.NewReader(in), int64(len(in))))
			for _, zf := range zr.File {
				if strings.HasSuffix(zf.Name, "/data.pkl") {
					if err := entryIntact(zf); err != nil {
						t.Fatalf("read, but %s: %v", zf.Name, err)
					}
				}
			}
		}
	})
}

// FuzzPyTorchPickle runs the fuzzer's bytes as the pickle of an archive whose storages
// are those of testdata/views.pt, so that the pickle machine, not the zip reader, meets
// the mutations: seeded with torch's pickles, the floods, a deep tuple, multi-byte LONG1s
// and names holding escapes, it checks that the machine allocates at most its budget
// and, with checkPyTorch, that an error is short and escaped.
func FuzzPyTorchPickle(f *testing.F) {
	views := must(os.ReadFile(filepath.Join("testdata", "views.pt")))
	zr := must2(zip.NewReader(bytes.NewReader(views), int64(len(views))))
	storages := map[string][]byte{}
	for _, zf := range zr.File {
		if _, key, ok := strings.Cut(zf.Name, "/data/"); ok {
			rc := must2(zf.Open())
			storages[key] = must(io.ReadAll(rc))
		}
	}
	for _, p := range must2(filepath.Glob(filepath.Join("testdata", "*.pt*"))) {
		if zr, err := zip.OpenReader(p); err == nil {
			for _, zf := range zr.File {
				if strings.HasSuffix(zf.Name, "/data.pkl") {
					f.Add(must(io.ReadAll(must2(zf.Open()))))
				}
			}
			zr.Close()
		}
	}
	for _, pickle := range pickleFloods(4 << 10) {
		f.Add(pickle)
	}
	pk := ptPickle(ptTensorSpec{"w\x1b[31m", "FloatStorage", "0", 2, 0, []int{2}, []int{1}})
	f.Add(bytes.Replace(pk, []byte("tQJ\x00\x00\x00\x00"), append([]byte("tQK\x00"), bytes.Repeat([]byte{0x85}, 200)...), 1))
	f.Add(bytes.Replace(pk, []byte("J\x02\x00\x00\x00tQ"), []byte("\x8a\x03\x02\x00\x00tQ"), 1))
	f.Add([]byte("\x80\x02cos\x1b[31m\nsys\x1b]0;title\x07tem\n."))
	f.Fuzz(func(t *testing.T, pickle []byte) {
		// the machine alone allocates at most its budget (and 64 KiB it does not charge)
		if got := testenv.Allocated(func() { unpickle(pickle) }); len(pickle) <= maxPickleBytes && got > uint64(pickleBudget(len(pickle))+64<<10) {
			t.Fatalf("%d bytes of pickle allocated %d; the budget is %d", len(pickle), got, pickleBudget(len(pickle)))
		}
		in := ptArchive(pickle, storages, zip.Store)
		checkPyTorch(t, in, len(in))
	})
}

// checkPyTorch reads in and checks what a read must hold; it reports whether in was read.
func checkPyTorch(t *testing.T, in []byte, held int) bool {
	var (
		p   *PyTorch
		err error
	)
	got := testenv.Allocated(func() { p, err = ParsePyTorch(bytes.NewReader(in), int64(len(in)), "fuzz.pt", reference.Limits{}) })
	// a storage may be read out maxStorageAliases times over as float64s (8 bytes for as
	// few as 2 stored)
	if limit := fuzzAllocLimit(maxStorageAliases * 4 * held); got > limit {
		t.Fatalf("%d input bytes allocated %d (limit %d)", len(in), got, limit)
	}
	if err != nil {
		var ie *reference.InputError
		var fe *reference.InflationError
		if !errors.As(err, &ie) && !errors.As(err, &fe) {
			t.Fatalf("%v is not an InputError", err)
		}
		// short, and no control character, whatever the file holds
		if msg := err.Error(); len(msg) > 4<<10 || !utf8.ValidString(msg) || strings.ContainsFunc(msg, func(r rune) bool { return !strconv.IsPrint(r) }) {
			t.Fatalf("a message of %d bytes: %.600q", len(msg), msg)
		}
		return false
	}
	for _, a := range p.Tensors {
		n := 1
		for _, s := range a.Shape {
			n *= s
		}
		if n != len(a.Data) {
			t.Fatalf("%s: shape %v, %d values", a.Name, a.Shape, len(a.Data))
		}
		for _, v := range a.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: %v", a.Name, v)
			}
		}
	}
	return true
}

func must2[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func ExampleLoadPyTorch() {
	// torch.save(model.state_dict(), "batchnorm.pt") for Linear(3, 2) then BatchNorm1d(2)
	sd, err := LoadPyTorch("testdata/batchnorm.pt", reference.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range sd.Tensors {
		fmt.Printf("%s %v %s\n", a.Name, a.Shape, a.DType)
	}
	fmt.Println("skipped:", sd.Skipped)
	// Output:
	// 0.bias [2] float32
	// 0.weight [2 3] float32
	// 1.bias [2] float32
	// 1.running_mean [2] float32
	// 1.running_var [2] float32
	// 1.weight [2] float32
	// skipped: [1.num_batches_tracked: int64 [], not floating point (a buffer such as a counter, not a weight)]
}

func ExampleLoadModelTensors() {
	// the weights an audit compares: the first layer's weight, then its bias
	params, layout, err := LoadModelTensors("testdata/batchnorm.pt", []string{"0.weight", "0.bias"}, reference.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(params), layout)
	_, _, err = LoadModelTensors("testdata/batchnorm.pt", []string{"fc.weight"}, reference.Limits{})
	fmt.Println(err)
	// Output:
	// 8 [0.weight [2 3] float32 0.bias [2] float32]
	// testdata/batchnorm.pt: fc.weight: no such tensor; the file holds 0.bias, 0.weight, 1.bias, 1.running_mean, 1.running_var, 1.weight
}
