package corpus

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
)

// pickle writes the opcodes of protocol 2 that torch.save uses for a state dict, one
// helper an opcode (or a common group of them), so that each hostile pickle below reads
// as what it builds.
type pickle struct{ bytes.Buffer }

func newPickle() *pickle {
	p := &pickle{}
	p.WriteString("\x80\x02") // PROTO 2
	return p
}

func (p *pickle) op(s string) *pickle { p.WriteString(s); return p }

// global is GLOBAL "module\nname\n".
func (p *pickle) global(module, name string) *pickle {
	return p.op("c" + module + "\n" + name + "\n")
}

// str is BINUNICODE: a 4-byte length and the bytes.
func (p *pickle) str(s string) *pickle {
	p.WriteByte('X')
	binary.Write(&p.Buffer, binary.LittleEndian, uint32(len(s)))
	p.WriteString(s)
	return p
}

// int is BININT (4 bytes, signed).
func (p *pickle) int(n int32) *pickle {
	p.WriteByte('J')
	binary.Write(&p.Buffer, binary.LittleEndian, n)
	return p
}

// tuple1 is a one-element tuple of n.
func (p *pickle) tuple1(n int32) *pickle { return p.int(n).op("\x85") }

// orderedDict is collections.OrderedDict() built by REDUCE.
func (p *pickle) orderedDict() *pickle { return p.global("collections", "OrderedDict").op(")R") }

// storage pushes the storage persistent id ('storage', torch.CLASS, key, 'cpu', numel).
func (p *pickle) storage(class, key string, numel int32) *pickle {
	return p.op("(").str("storage").global("torch", class).str(key).str("cpu").int(numel).op("tQ")
}

// tensor is one state dict entry, name → _rebuild_tensor_v2(storage, offset, (n,), (1,),
// False, OrderedDict()); offset writes the storage offset's opcodes (a hostile file
// writes anything there).
func (p *pickle) tensor(name, class, key string, numel, n int32, offset func(*pickle)) *pickle {
	p.str(name).global("torch._utils", "_rebuild_tensor_v2").op("(")
	p.storage(class, key, numel)
	offset(p)
	p.tuple1(n).tuple1(1).op("\x89").orderedDict().op("tR")
	return p
}

func zeroOffset(p *pickle) { p.op("K\x00") }

// stateDict is the pickle of a state dict of one 1-D tensor "w" of n elements in storage
// "0" of the given class (FloatStorage, HalfStorage, DoubleStorage).
func stateDict(class string, n int32) []byte {
	p := newPickle().orderedDict().op("(")
	p.tensor("w", class, "0", n, n, zeroOffset)
	return p.op("u.").Bytes()
}

// entry is one member of a zip archive: its bytes, or a raw (already compressed)
// stream with declared sizes and CRC, to forge what a writer never would.
type entry struct {
	name   string
	data   []byte
	method uint16 // zip.Store or zip.Deflate (when raw is nil)
	// raw, when set, is written as the entry's compressed bytes, with crc and size as
	// its declared CRC-32 and uncompressed size
	raw  []byte
	crc  uint32
	size uint64
}

// archive writes entries in order as a zip file, every timestamp zero so that the bytes
// depend on the entries alone.
func archive(entries ...entry) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		if e.raw != nil {
			h := &zip.FileHeader{Name: e.name, Method: e.method, CRC32: e.crc,
				CompressedSize64: uint64(len(e.raw)), UncompressedSize64: e.size}
			w, err := zw.CreateRaw(h)
			if err != nil {
				panic(err)
			}
			w.Write(e.raw)
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method})
		if err != nil {
			panic(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// stored is an entry kept as it is; deflated one compressed.
func stored(name string, data []byte) entry { return entry{name: name, data: data, method: zip.Store} }
func deflated(name string, data []byte) entry {
	return entry{name: name, data: data, method: zip.Deflate}
}

// wrongCRC is an entry stored with a CRC-32 one off the true one.
func wrongCRC(name string, data []byte) entry {
	return entry{name: name, method: zip.Store, raw: data, crc: crc32.ChecksumIEEE(data) ^ 1, size: uint64(len(data))}
}

// deflate compresses b at the best level (deterministic for one Go release).
func deflate(b []byte) []byte {
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.BestCompression)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// pt is a .pt archive as torch.save lays it out: archive/data.pkl, archive/data/KEY,
// archive/version, and any more entries.
func pt(pkl []byte, storages map[string][]byte, more ...entry) []byte {
	es := []entry{stored("archive/data.pkl", pkl)}
	for _, k := range sortedKeys(storages) {
		es = append(es, stored("archive/data/"+k, storages[k]))
	}
	return archive(append(append(es, version), more...)...)
}

// version is the archive's format version entry, which torch.load requires.
var version = stored("archive/version", []byte("3\n"))

// float32s are n float32 values, little-endian, from the stream r.
func float32s(r *stream, n int) []byte {
	b := make([]byte, 0, 4*n)
	for range n {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(r.normal())))
	}
	return b
}

// float16s are n finite float16 values in [-2, 2), little-endian.
func float16s(r *stream, n int) []byte {
	b := make([]byte, 2*n)
	for i := range n {
		// sign, an exponent of 1 to 16 (no zero, infinity or NaN), any mantissa
		v := uint16(r.next()&0x8000) | uint16(1+r.next()%16)<<10 | uint16(r.next()&0x3ff)
		binary.LittleEndian.PutUint16(b[2*i:], v)
	}
	return b
}

// npy is a NumPy .npy file of a float64 matrix (rows × cols; cols 0 for a vector).
func npy(rows, cols int, data []float64) []byte {
	return npyDescr("<f8", rows, cols, func(b []byte) []byte {
		for _, v := range data {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	})
}

func npyDescr(descr string, rows, cols int, body func([]byte) []byte) []byte {
	shape := fmt.Sprintf("(%d,)", rows)
	if cols > 0 {
		shape = fmt.Sprintf("(%d, %d)", rows, cols)
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	h += strings.Repeat(" ", 63-(10+len(h))%64) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	return body(append(b, h...))
}

// safetensors is a safetensors file of the given JSON header and data.
func safetensors(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(b, header...), data...)
}

// stream is a small deterministic generator (SplitMix64): the corpus's values depend on
// nothing but this file.
type stream struct{ s uint64 }

func (r *stream) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// normal is a rough standard normal (the sum of 12 uniforms less 6): the values only
// need to look like weights.
func (r *stream) normal() float64 {
	s := 0.0
	for range 12 {
		s += float64(r.next()>>11) / (1 << 53)
	}
	return s - 6
}
