package artifact

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// torchStateDict is the pickle torch.save writes for a state dict of n float32 tensors
// "layers.<i>.weight" of the given shape (each dimension < 256), each in its own storage, opcode for opcode as
// testdata/linear_f32.pt (protocol 2: GLOBAL, BINUNICODE, BINPUT or LONG_BINPUT after
// every object) or testdata/mlp_f64_proto4.pth (protocol 4: STACK_GLOBAL,
// SHORT_BINUNICODE, MEMOIZE) lays it out, with SETITEMS in batches of 1000 as pickle
// writes them.
func torchStateDict(n, proto int, shape ...int) []byte {
	var b bytes.Buffer
	memo := uint32(0)
	put := func() {
		switch {
		case proto >= 4:
			b.WriteByte(0x94)
		case memo < 256:
			b.Write([]byte{'q', byte(memo)})
		default:
			b.WriteByte('r')
			binary.Write(&b, binary.LittleEndian, memo)
		}
		memo++
	}
	get := func(i uint32) {
		if i < 256 {
			b.Write([]byte{'h', byte(i)})
		} else {
			b.WriteByte('j')
			binary.Write(&b, binary.LittleEndian, i)
		}
	}
	str := func(s string) {
		if proto >= 4 && len(s) < 256 {
			b.Write([]byte{0x8c, byte(len(s))})
		} else {
			b.WriteByte('X')
			binary.Write(&b, binary.LittleEndian, uint32(len(s)))
		}
		b.WriteString(s)
		put()
	}
	global := func(module, name string) uint32 {
		if proto >= 4 {
			str(module)
			str(name)
			b.WriteByte(0x93)
		} else {
			b.WriteString("c" + module + "\n" + name + "\n")
		}
		put()
		return memo - 1
	}
	// a tuple as pickle writes it: EMPTY_TUPLE, TUPLE1–3 or MARK … TUPLE, then memoized
	// unless empty
	ints := func(v []int) {
		if len(v) > 3 {
			b.WriteByte('(')
		}
		for _, x := range v {
			b.Write([]byte{'K', byte(x)})
		}
		switch len(v) {
		case 0:
			b.WriteByte(')')
			return
		case 1, 2, 3:
			b.WriteByte(byte(0x84 + len(v)))
		default:
			b.WriteByte('t')
		}
		put()
	}
	numel, stride := 1, make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		stride[d] = numel
		numel *= shape[d]
	}
	b.Write([]byte{0x80, byte(proto)})
	od := global("collections", "OrderedDict")
	b.WriteString(")R")
	put()
	var rebuild, storage, class, cpu uint32
	for i := range n {
		if i%1000 == 0 {
			if i > 0 {
				b.WriteByte('u')
			}
			b.WriteByte('(')
		}
		str(fmt.Sprintf("layers.%d.weight", i))
		if i == 0 {
			rebuild = global("torch._utils", "_rebuild_tensor_v2")
		} else {
			get(rebuild)
		}
		b.WriteString("((")
		if i == 0 {
			str("storage")
			storage = memo - 1
			class = global("torch", "FloatStorage")
		} else {
			get(storage)
			get(class)
		}
		str(fmt.Sprint(i))
		if i == 0 {
			str("cpu")
			cpu = memo - 1
		} else {
			get(cpu)
		}
		b.WriteByte('J')
		binary.Write(&b, binary.LittleEndian, int32(numel))
		b.WriteByte('t')
		put()
		b.WriteString("QK\x00") // offset 0
		ints(shape)
		ints(stride)
		b.WriteByte(0x89)
		get(od)
		b.WriteString(")R")
		put()
		b.WriteByte('t')
		put()
		b.WriteByte('R')
		put()
	}
	if n > 0 {
		b.WriteByte('u')
	}
	b.WriteByte('.')
	return b.Bytes()
}

// run runs the machine over in with the given budget and returns it with its result.
func runPickle(in []byte, budget int64) (*unpickler, any, error) {
	u := &unpickler{in: in, storages: map[string]*ptStorage{}, budget: budget}
	v, err := u.run()
	return u, v, err
}

// The budget's multiple holds torch.save's own pickles: protocol 2's and 4's layouts of
// 1 to 10 000 tensors of rank 0 to 4 build less than pickleBudgetPerByte bytes a byte
// (13 to 24.1 measured), so a state dict is never refused by the budget, however many
// tensors it has, below maxPickleBytes. (A charge raised by a third, or a multiple
// lowered to 24, fails it.)
func TestPickleBudgetFitsTorch(t *testing.T) {
	cases := 0
	for _, proto := range []int{2, 4} {
		for _, n := range []int{1, 100, 10000} {
			for _, shape := range [][]int{nil, {3}, {64, 64}, {8, 3, 3, 3}} {
				in := torchStateDict(n, proto, shape...)
				u, v, err := runPickle(in, 1<<40)
				if err != nil {
					t.Fatalf("protocol %d, %d tensors of %v: %v", proto, n, shape, err)
				}
				if d, ok := v.(*pyDict); !ok || len(d.keys) != n {
					t.Fatalf("protocol %d, %d tensors of %v: read %s", proto, n, shape, render(v))
				}
				if perByte := float64(u.used) / float64(len(in)); perByte >= pickleBudgetPerByte {
					t.Errorf("protocol %d, %d tensors of %v: %d bytes build %d (%.1f a byte); the budget allows %d a byte", proto, n, shape, len(in), u.used, perByte, pickleBudgetPerByte)
				}
				cases++
			}
		}
	}
	if cases == 0 {
		t.Fatal("no cases")
	}
}

// pickleFloods are pickles that build much from little, each of about size bytes,
// within the depth bound (so that the budget, not the depth, is what stops them): the
// issue's TUPLE1 floods and }+TUPLE2 pairs (blocks of 99 nested one deeper each), a
// flat tuple flood, memo entries dense and sparse, dict entries by string key, strings,
// integers and lists.
func pickleFloods(size int) map[string][]byte {
	repeat := func(head, block, tail string) []byte {
		var b bytes.Buffer
		b.WriteString("\x80\x02" + head)
		for b.Len() < size {
			b.WriteString(block)
		}
		b.WriteString(tail)
		return b.Bytes()
	}
	sparse := func() []byte { // LONG_BINPUT at indices 2, 4, 6, …: never dense
		var b bytes.Buffer
		b.WriteString("\x80\x02N")
		for i := uint32(2); b.Len() < size; i += 2 {
			b.WriteByte('r')
			binary.Write(&b, binary.LittleEndian, i)
		}
		b.WriteString(".")
		return b.Bytes()
	}
	keys := func() []byte { // d["k0"] = None, d["k1"] = None, …
		var b bytes.Buffer
		b.WriteString("\x80\x02}")
		for i := 0; b.Len() < size; i++ {
			k := fmt.Sprint(i)
			b.Write([]byte{0x8c, byte(len(k))})
			b.WriteString(k + "Ns")
		}
		b.WriteString(".")
		return b.Bytes()
	}
	return map[string][]byte{
		"TUPLE1 floods and }+TUPLE2 pairs": repeat("", "N"+strings.Repeat("\x85", 99)+"N"+strings.Repeat("}\x86", 49), ""),
		"flat tuples":                      repeat("", "N\x85", ""),
		"dense memo":                       repeat("N", "\x94", "."),
		"sparse memo":                      sparse(),
		"dict entries":                     keys(),
		"strings":                          repeat("", "\x8c\x01a", ""),
		"integers":                         repeat("", "M\x01\x01", ""),
		"lists":                            repeat("", "]", ""),
	}
}

// Each charge bounds what the machine allocates for what it charges: for torch's
// layouts and every flood, with no budget to stop them, what the read allocates
// (runtime.MemStats.TotalAlloc, garbage included) is at most what it charged plus 64 KiB
// (the storages map and the marks, charged to the base). The budget therefore bounds the
// memory, not only a count. (An uncharged tuple, dict entry or memo entry, or a memo
// charged without its growth, fails it.)
func TestPickleBudgetBoundsAllocation(t *testing.T) {
	cases := pickleFloods(256 << 10)
	cases["protocol 2"] = torchStateDict(2000, 2, 64, 64)
	cases["protocol 4"] = torchStateDict(2000, 4)
	if len(cases) < 10 {
		t.Fatalf("%d cases", len(cases))
	}
	for name, in := range cases {
		var u *unpickler
		got := testenv.Allocated(func() { u, _, _ = runPickle(in, 1<<40) })
		if got > uint64(u.used)+64<<10 {
			t.Errorf("%s: %d bytes allocated %d, charged %d (%.1f a byte uncharged)", name, len(in), got, u.used, float64(got-uint64(u.used))/float64(len(in)))
		}
		if u.used < int64(len(in)) {
			t.Errorf("%s: %d bytes charged %d, less than a byte a byte", name, len(in), u.used)
		}
	}
}

// Floods that build more than 32 bytes a byte (the others build within the budget, and
// end at their STOP or at the stack's bound) end with the budget's error, naming the entry and the budget, having
// allocated no more than the budget (32 bytes a byte of pickle, plus 4 MiB) and the
// entry's bytes read (a buffer that grows by doubling: at most 4 times them). Before the
// budget, a 2 MiB pickle of TUPLE1 floods and }+TUPLE2 pairs built 45 bytes a byte and
// its read ended only at STOP (TestPyTorchBudget failed on the old code, with 97 MB
// allocated).
func TestPyTorchBudget(t *testing.T) {
	floods := pickleFloods(2 << 20)
	for _, name := range []string{"TUPLE1 floods and }+TUPLE2 pairs", "flat tuples"} {
		pickle := floods[name]
		in := ptArchive(pickle, nil, zip.Store)
		var err error
		got := testenv.Allocated(func() { _, err = ParsePyTorch(bytes.NewReader(in), int64(len(in)), "m.pt", reference.Limits{}) })
		var ie *reference.InputError
		want := fmt.Sprintf(": the objects the pickle builds pass its budget of %d bytes (32 per byte of its %d, plus 4194304)", pickleBudget(len(pickle)), len(pickle))
		if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %s", name, err, want)
			continue
		}
		var at int
		if _, scanErr := fmt.Sscanf(err.Error(), "m.pt: archive/data.pkl: byte %d:", &at); scanErr != nil || at >= len(pickle) {
			t.Errorf("%s: %v; want m.pt: archive/data.pkl: byte N%s, N before the end", name, err, want)
		}
		t.Logf("%s: %d bytes allocated %d: %v", name, len(pickle), got, err)
		if limit := uint64(pickleBudget(len(pickle)) + 4*int64(len(pickle)) + 1<<20); got > limit {
			t.Errorf("%s: %d bytes of pickle allocated %d; the budget and the entry's bytes are %d", name, len(pickle), got, limit)
		}
	}
}

// A .pt whose storage offset is a tuple nested 2 000 000 deep (2 MB of TUPLE1) is
// refused at depth 101 with a short error, having built no more than its budget; so are
// dicts nested 20 000 deep, and nothing recursive walks either. The old reader built the
// whole tuple and formatted it with %v: at 2 000 000 deep a fatal stack overflow that no
// recover catches (seen: the test binary died, "goroutine stack exceeds 1000000000-byte
// limit"), at 100 000 deep a 200 KB message.
func TestPyTorchDeepNesting(t *testing.T) {
	pk := ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 2, 0, []int{2}, []int{1}})
	offset := []byte("tQJ\x00\x00\x00\x00")
	if !bytes.Contains(pk, offset) {
		t.Fatal("ptPickle's offset is not where the test looks for it")
	}
	var dicts bytes.Buffer // d0[0] = d1, d1[0] = d2, …: the sets run innermost first
	dicts.WriteString("\x80\x02")
	for range 20000 {
		dicts.WriteString("}K\x00")
	}
	dicts.WriteString("}" + strings.Repeat("s", 20000) + ".")
	for _, c := range []struct {
		name   string
		pickle []byte
	}{
		{"a tuple 2 000 000 deep as the storage offset", bytes.Replace(pk, offset, append([]byte("tQK\x00"), bytes.Repeat([]byte{0x85}, 2000000)...), 1)},
		{"dicts 20 000 deep", dicts.Bytes()},
	} {
		in := ptArchive(c.pickle, map[string][]byte{"0": f32s(1, 2)}, zip.Store)
		var err error
		got := testenv.Allocated(func() { _, err = ParsePyTorch(bytes.NewReader(in), int64(len(in)), "m.pt", reference.Limits{}) })
		var ie *reference.InputError
		if err == nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "m.pt: archive/data.pkl: byte ") || !strings.HasSuffix(err.Error(), ": tuples and dicts nested more than 100 deep; a state dict nests 2") {
			t.Errorf("%s: %.300v; want the depth's error", c.name, err)
		} else if len(err.Error()) > 200 {
			t.Errorf("%s: a message of %d bytes", c.name, len(err.Error()))
		}
		if limit := uint64(pickleBudget(len(c.pickle)) + 4*int64(len(c.pickle)) + 1<<20); got > limit {
			t.Errorf("%s: %d bytes of pickle allocated %d; the budget and the entry's bytes are %d", c.name, len(c.pickle), got, limit)
		}
	}
}

// render is bounded whatever the value: a tuple nested 100 000 deep (built by hand,
// past the machine's bound), wide tuples and dicts, a long string with escapes; it counts
// what it leaves out and never prints a raw control character.
func TestRender(t *testing.T) {
	deep := any(int64(7))
	for range 100000 {
		deep = &pyTuple{items: []any{deep}, depth: depthOf(deep) + 1}
	}
	wide := &pyTuple{items: make([]any, 1000)}
	for i := range wide.items {
		wide.items[i] = int64(i)
	}
	d := &pyDict{keys: []any{"a", "b"}, vals: []any{int64(1), &pyTuple{items: []any{pyNone{}, true, 2.5}}}}
	evil := strings.Repeat("\x1b[31m\x1b]0;title\x07", 100000)
	for _, c := range []struct {
		v    any
		want string
	}{
		{deep, "((((… 1 more),),),)"},
		{wide, "(0, 1, 2, 3, … 996 more)"},
		{d, `{"a": 1, "b": (None, True, 2.5)}`},
		{&pyTuple{items: []any{int64(-1)}}, "(-1,)"},
		{emptyTuple, "()"},
		{&pyGlobal{module: "posix", name: "system"}, "posix.system"},
	} {
		if got := render(c.v); got != c.want {
			t.Errorf("render = %s; want %s", got, c.want)
		}
	}
	for _, v := range []any{evil, &pyTuple{items: []any{evil, evil, evil, evil, evil}}, &pyGlobal{module: evil, name: evil}} {
		got := render(v)
		if len(got) > renderMax+len("…") || strings.ContainsAny(got, "\x1b\x07") || !strings.Contains(got, "…") {
			t.Errorf("render of %s: %d bytes, %q", typeName(v), len(got), got)
		}
	}
}

// A name the pickle imports is echoed escaped and clipped: a GLOBAL holding a colour
// escape and an OSC title sequence shows them as \x1b and \a, an 8 MB module name (by
// STACK_GLOBAL) as its first 64 characters and its length; so does a tensor's name, a
// storage's key and a checkpoint's entry of 8 MB or holding escapes, and a shape prints
// at most 8 of its dimensions. The old reader
// echoed them raw and whole (TestPyTorchEchoesNoRawEscape failed on it: ESC in the
// message, 8.4 MB of message).
func TestPyTorchEchoesNoRawEscape(t *testing.T) {
	huge := strings.Repeat("m", 8000000) // and the pickle within maxPickleBytes
	stackGlobal := func(module, name string) []byte {
		var b bytes.Buffer
		b.WriteString("\x80\x04")
		for _, s := range []string{module, name} {
			b.WriteByte('X')
			binary.Write(&b, binary.LittleEndian, uint32(len(s)))
			b.WriteString(s)
		}
		b.WriteString("\x93.")
		return b.Bytes()
	}
	good := map[string][]byte{"0": f32s(1, 2)}
	pk := ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 2, 0, []int{2}, []int{1}})
	esc := "w\x1b[31m\x1b]0;title\x07"
	ones := slices.Repeat([]int{1}, 20)
	for _, c := range []struct {
		name, want string
		in         []byte
	}{
		{"escapes in a GLOBAL", `the pickle imports "os\x1b[31m"."sys\x1b]0;title\atem", which a state dict of tensors never does`,
			ptArchive([]byte("\x80\x02cos\x1b[31m\nsys\x1b]0;title\x07tem\n."), nil, zip.Store)},
		{"an 8 MB module name", `the pickle imports "` + strings.Repeat("m", 64) + `"… (8000000 bytes).`,
			ptArchive(stackGlobal(huge, "f"), nil, zip.Store)},
		{"an 8 MB tensor name", `… (8000000 bytes): a view of size [2], stride [1] and offset 1 reaches past`,
			ptArchive(ptPickle(ptTensorSpec{huge, "FloatStorage", "0", 2, 1, []int{2}, []int{1}}), good, zip.Store)},
		{"escapes in a tensor name", `m.pt: "w\x1b[31m\x1b]0;title\a": a view of size [2]`,
			ptArchive(ptPickle(ptTensorSpec{esc, "FloatStorage", "0", 2, 1, []int{2}, []int{1}}), good, zip.Store)},
		{"a view of 20 dimensions", `m.pt: w: a view of size [1 1 1 1 1 1 1 1 … 12 more], stride [1 1 1 1 1 1 1 1 … 12 more] and offset 2 reaches past`,
			ptArchive(ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 2, 2, ones, ones}), good, zip.Store)},
		{"an 8 MB storage key", `… (8000000 bytes) is named by the pickle but not in the archive`,
			ptArchive(ptPickle(ptTensorSpec{"w", "FloatStorage", huge, 2, 0, []int{2}, []int{1}}), good, zip.Store)},
		{"a storage key named twice", `storage "\x1b[31m" named twice, as 2 float32 and 3 float32`,
			ptArchive(ptPickle(ptTensorSpec{"a", "FloatStorage", "\x1b[31m", 2, 0, []int{2}, []int{1}}, ptTensorSpec{"b", "FloatStorage", "\x1b[31m", 3, 0, []int{2}, []int{1}}), nil, zip.Store)},
		{"a checkpoint's entry", `a checkpoint, not a state dict (entries holding dicts of tensors: "w\x1b[31m\x1b]0;title\a")`,
			ptArchive(slices.Concat([]byte("\x80\x02}X"), le(uint32(len(esc))), []byte(esc), pk[2:len(pk)-1], []byte("s.")), good, zip.Store)},
	} {
		var err error
		_, err = ParsePyTorch(bytes.NewReader(c.in), int64(len(c.in)), "m.pt", reference.Limits{})
		var ie *reference.InputError
		switch {
		case err == nil || !errors.As(err, &ie):
			t.Errorf("%s: %.300v", c.name, err)
		case strings.ContainsAny(err.Error(), "\x1b\x07"):
			t.Errorf("%s: a raw escape in %.300q", c.name, err)
		case len(err.Error()) > 1<<10:
			t.Errorf("%s: a message of %d bytes: %.300q", c.name, len(err.Error()), err)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %q; want %q in it", c.name, err, c.want)
		}
	}
}

// LONG1 integers of every length torch could write decode as Python's
// int.from_bytes(b, "little", signed=True): a reader of only the first byte, or one
// that does not sign-extend, or extends from the wrong byte fails here; and a .pt whose
// storage offset and size are 2- and 3-byte LONG1s reads the right elements.
func TestLong1(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		want int64
	}{
		{nil, 0},
		{[]byte{0x7f}, 127},
		{[]byte{0xff}, -1},
		{[]byte{0x00, 0x01}, 256},
		{[]byte{0x2c, 0x01}, 300},
		{[]byte{0x00, 0x80}, -32768},
		{[]byte{0xff, 0x7f}, 32767},
		{[]byte{0xfe, 0xff}, -2},
		{[]byte{0x01, 0x02, 0x03}, 0x030201},
		{[]byte{0x00, 0x00, 0x80}, -8388608},
		{[]byte{0x78, 0x56, 0x34, 0x12}, 0x12345678},
		{[]byte{0x00, 0x00, 0x00, 0x00, 0x01}, 1 << 32},
		{[]byte{0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80}, -1<<63 + 1},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 1<<63 - 1},
		{[]byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, -2},
	} {
		in := append([]byte{0x80, 0x02, 0x8a, byte(len(c.b))}, c.b...)
		_, v, err := runPickle(append(in, '.'), 1<<20)
		if err != nil || v != c.want {
			t.Errorf("LONG1 % x = %v, %v; want %d", c.b, v, err, c.want)
		}
	}
	// (offset 1 and numel 300 as LONG1s, size (2,) as a 3-byte LONG1, stride 1)
	pk := ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 300, 1, []int{2}, []int{1}})
	for _, r := range [][2]string{
		{"J\x2c\x01\x00\x00tQ", "\x8a\x02\x2c\x01tQ"},
		{"tQJ\x01\x00\x00\x00(J\x02\x00\x00\x00t", "tQ\x8a\x02\x01\x00(\x8a\x03\x02\x00\x00t"},
	} {
		if !bytes.Contains(pk, []byte(r[0])) {
			t.Fatalf("ptPickle's layout has no %q", r[0])
		}
		pk = bytes.Replace(pk, []byte(r[0]), []byte(r[1]), 1)
	}
	vals := make([]float32, 300)
	for i := range vals {
		vals[i] = float32(i)
	}
	in := ptArchive(pk, map[string][]byte{"0": f32s(vals...)}, zip.Store)
	p, err := ParsePyTorch(bytes.NewReader(in), int64(len(in)), "m.pt", reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if w := p.Tensor("w"); w == nil || !slices.Equal(w.Data, []float64{1, 2}) {
		t.Errorf("w = %+v; want [1 2], storage elements 1 and 2", w)
	}
}
