package artifact

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// rawEntry is a zip entry written as given — its compressed bytes, the CRC-32 and the
// inflated size its headers record — so that a test can make them disagree.
type rawEntry struct {
	name   string
	method uint16
	data   []byte // as stored: deflated already when method is zip.Deflate
	crc    uint32
	size   uint64 // the declared inflated size
}

// honest is the entry of data stored or deflated with its true CRC and size.
func honest(name string, method uint16, data []byte) rawEntry {
	stored := data
	if method == zip.Deflate {
		stored = deflated(data)
	}
	return rawEntry{name, method, stored, crc32.ChecksumIEEE(data), uint64(len(data))}
}

func deflated(data []byte) []byte {
	var b bytes.Buffer
	fw, _ := flate.NewWriter(&b, flate.BestCompression)
	fw.Write(data)
	fw.Close()
	return b.Bytes()
}

// rawZip writes entries with CreateRaw: the local header and the central directory both
// record e.crc and e.size, and there is no data descriptor.
func rawZip(entries ...rawEntry) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: e.name, Method: e.method, CRC32: e.crc,
			CompressedSize64: uint64(len(e.data)), UncompressedSize64: e.size})
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

// flipCentralCRC flips a bit of the CRC-32 that the central directory records for the
// named entry (the local header and data descriptor are left as written).
func flipCentralCRC(t *testing.T, in []byte, name string) []byte {
	t.Helper()
	out := bytes.Clone(in)
	sig := []byte{'P', 'K', 1, 2}
	for i := bytes.Index(out, sig); i >= 0; {
		nameLen := int(out[i+28]) | int(out[i+29])<<8
		if string(out[i+46:i+46+nameLen]) == name {
			out[i+16] ^= 1 // the CRC-32 field of the central directory header
			return out
		}
		j := bytes.Index(out[i+4:], sig)
		if j < 0 {
			break
		}
		i += 4 + j
	}
	t.Fatalf("no central directory header for %s", name)
	return nil
}

// countingReaderAt counts the bytes read from an archive.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	c.n.Add(int64(k))
	return k, err
}

// Every zip entry the .pt and .npz readers use is read to its end and held to the
// central directory: a stored or deflated entry whose bytes do not have the recorded
// CRC-32 (the directory's CRC flipped, a wrong CRC in both headers, a CRC of 0 that
// archive/zip does not check), an entry longer or shorter than it declares, and a deflated
// entry declaring 8 bytes that inflates to 50 MB are each refused naming the file and the
// entry. The old readers stopped at the element count the header announces and never
// reached archive/zip's check at EOF: run on them, nine of the ten cases read as whole
// (the pickle, copied to EOF, was refused as "zip: checksum error"). Planted: readStorage
// without its finish call lets the five storage cases through; entryReader without its
// own CRC comparison lets both CRC-of-0 cases through.
func TestZipEntryIntegrity(t *testing.T) {
	pk := ptPickle(ptTensorSpec{"w", "FloatStorage", "0", 2, 0, []int{2}, []int{1}})
	w := f32s(1, 2)
	pt := func(storage rawEntry) []byte {
		return rawZip(honest("archive/data.pkl", zip.Store, pk), storage, honest("archive/version", zip.Store, []byte("3\n")))
	}
	bomb := append(bytes.Clone(w), make([]byte, 50<<20)...)
	npy := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f8(1, 2))
	npz := func(e rawEntry) []byte { return rawZip(e) }
	good := crc32.ChecksumIEEE(w)

	// a .pt as torch.save writes it (data descriptors), with the directory's CRC of the
	// storage flipped
	torchLike := ptArchive(pk, map[string][]byte{"0": w}, zip.Store)
	npzLike := zipOf(map[string][]byte{"w.npy": npy})
	// the honest archives read (a check of the builders)
	for name, in := range map[string][]byte{"m.pt": pt(honest("archive/data/0", zip.Store, w)), "t.pt": torchLike, "d.pt": pt(honest("archive/data/0", zip.Deflate, w))} {
		if _, err := ParsePyTorch(bytes.NewReader(in), int64(len(in)), name, reference.Limits{}); err != nil {
			t.Fatalf("honest %s: %v", name, err)
		}
	}
	for name, in := range map[string][]byte{"m.npz": npz(honest("w.npy", zip.Store, npy)), "d.npz": npz(honest("w.npy", zip.Deflate, npy)), "z.npz": npzLike} {
		if _, err := parseNPZBytes(in, name); err != nil {
			t.Fatalf("honest %s: %v", name, err)
		}
	}
	cases := []struct {
		name, file string
		in         []byte
		want       string
	}{
		{"pt: the directory's CRC flipped", "m.pt", flipCentralCRC(t, torchLike, "archive/data/0"),
			"m.pt: archive/data/0: CRC-32 " + hex8(good) + ", but the zip directory records " + hex8(good^1)},
		{"pt: a stored entry with a wrong CRC", "m.pt", pt(rawEntry{"archive/data/0", zip.Store, w, good ^ 0x80, 8}),
			"m.pt: archive/data/0: CRC-32 " + hex8(good) + ", but the zip directory records " + hex8(good^0x80)},
		{"pt: a CRC of 0 (archive/zip skips it)", "m.pt", pt(rawEntry{"archive/data/0", zip.Store, w, 0, 8}),
			"m.pt: archive/data/0: CRC-32 " + hex8(good) + ", but the zip directory records 00000000"},
		{"pt: a stored entry longer than declared", "m.pt", pt(rawEntry{"archive/data/0", zip.Store, append(bytes.Clone(w), 0, 0, 0, 0), good, 8}),
			"m.pt: archive/data/0: inflates past the 8 bytes its zip directory declares"},
		{"pt: 50 MB deflated declaring 8 bytes", "m.pt", pt(rawEntry{"archive/data/0", zip.Deflate, deflated(bomb), good, 8}),
			"m.pt: archive/data/0: inflates past the 8 bytes its zip directory declares"},
		{"pt: a deflated pickle with a wrong CRC", "m.pt", rawZip(rawEntry{"archive/data.pkl", zip.Deflate, deflated(pk), crc32.ChecksumIEEE(pk) ^ 4, uint64(len(pk))}, honest("archive/data/0", zip.Store, w)),
			"m.pt: archive/data.pkl: CRC-32"},
		{"npz: a stored entry with a wrong CRC", "m.npz", npz(rawEntry{"w.npy", zip.Store, npy, crc32.ChecksumIEEE(npy) ^ 1, uint64(len(npy))}),
			"m.npz:w: CRC-32 " + hex8(crc32.ChecksumIEEE(npy)) + ", but the zip directory records " + hex8(crc32.ChecksumIEEE(npy)^1)},
		{"npz: a CRC of 0 (archive/zip skips it)", "m.npz", npz(rawEntry{"w.npy", zip.Deflate, deflated(npy), 0, uint64(len(npy))}),
			"m.npz:w: CRC-32 " + hex8(crc32.ChecksumIEEE(npy)) + ", but the zip directory records 00000000"},
		{"npz: the directory's CRC flipped (np.savez_compressed's layout)", "m.npz", flipCentralCRC(t, npzLike, "w.npy"),
			"m.npz:w: CRC-32 " + hex8(crc32.ChecksumIEEE(npy)) + ", but the zip directory records " + hex8(crc32.ChecksumIEEE(npy)^1)},
		{"npz: a stored entry shorter than declared", "m.npz", npz(rawEntry{"w.npy", zip.Store, npy, crc32.ChecksumIEEE(npy), uint64(len(npy)) + 4}),
			"m.npz:w: ends after " + strconv.Itoa(len(npy)) + " of the " + strconv.Itoa(len(npy)+4) + " bytes its zip directory declares"},
	}
	for _, c := range cases {
		src := bytes.NewReader(c.in)
		var err error
		got := testenv.Allocated(func() {
			if strings.HasSuffix(c.file, ".npz") {
				_, err = ParseNPZ(src, int64(len(c.in)), c.file, reference.Limits{})
			} else {
				_, err = ParsePyTorch(src, int64(len(c.in)), c.file, reference.Limits{})
			}
		})
		var ie *reference.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
		// the bomb costs its declared 8 bytes and what deflate needs to produce them
		if got > 1<<20 {
			t.Errorf("%s: %d bytes allocated", c.name, got)
		}
	}
	// the bomb's 50 MB deflate to about 50 KB: inflating past 9 bytes would read it all
	in := cases[4].in
	src := &countingReaderAt{r: bytes.NewReader(in)}
	ParsePyTorch(src, int64(len(in)), "m.pt", reference.Limits{})
	if n := src.n.Load(); n > int64(len(in))/4 {
		t.Errorf("the bomb: %d of its %d bytes read; a refusal after 9 inflated bytes reads a few KB", n, len(in))
	} else {
		t.Logf("the bomb: %d of its %d bytes read", n, len(in))
	}
}

func hex8(v uint32) string { return fmt.Sprintf("%08x", v) }

// entryIntact reads zf whole through archive/zip and checks what it holds against the
// central directory itself (an oracle independent of entryReader).
func entryIntact(zf *zip.File) error {
	rc, err := zf.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	h := crc32.NewIEEE()
	n, err := io.Copy(h, io.LimitReader(rc, int64(min(zf.UncompressedSize64, 1<<30))+1))
	switch {
	case err != nil:
		return err
	case uint64(n) != zf.UncompressedSize64:
		return fmt.Errorf("%d bytes; the directory declares %d", n, zf.UncompressedSize64)
	case h.Sum32() != zf.CRC32:
		return fmt.Errorf("CRC-32 %08x; the directory records %08x", h.Sum32(), zf.CRC32)
	}
	return nil
}
