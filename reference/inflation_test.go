package reference

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// gzipBomb writes name in dir: head, then inflated bytes of "0," (one endless CSV row),
// gzipped as tightly as deflate allows (about 1030 to 1). It returns the path and the
// file's size.
func gzipBomb(t testing.TB, dir, name string, head []byte, inflated int) (string, int64) {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.Write(head)
	chunk := bytes.Repeat([]byte("0,"), 1<<15)
	for w := 0; w < inflated; w += len(chunk) {
		zw.Write(chunk)
	}
	if err := errors.Join(zw.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	return p, st.Size()
}

// The red team's gzip CSV — 220 KB inflating to 227 MB of one row, which cost 3.5 GB —
// is refused by every loader that reads gzip, early (past the grace of 1 MiB: about
// 100 MB of allocation at most), naming the file and the 100:1 limit; an idx file of
// zero pixels likewise.
func TestGzipBombIsRefusedEarly(t *testing.T) {
	dir := t.TempDir()
	p, size := gzipBomb(t, dir, "bomb.csv.gz", nil, 227<<20)
	if size > 300<<10 {
		t.Fatalf("the bomb is %d bytes; want about 220 KB", size)
	}
	idxHead := []byte{0, 0, 8, 3, 0, 1, 0, 0, 0, 0, 0, 28, 0, 0, 0, 28} // 2¹⁶ images of 28 × 28
	idx, _ := gzipBomb(t, dir, "images-idx3-ubyte.gz", idxHead, 64<<20)
	labels := filepath.Join(dir, "labels-idx1-ubyte")
	os.WriteFile(labels, append([]byte{0, 0, 8, 1, 0, 1, 0, 0}, make([]byte, 1<<16)...), 0o644)
	// scikit-learn's layout: a valid header, then the bomb (a read error once hid behind
	// the scanner's last partial line: "row has 524285 fields")
	sk, _ := gzipBomb(t, dir, "bomb-sklearn.csv.gz", []byte("100,2,a,b\n"), 227<<20)
	// IDX labels: 2²¹ 1 × 1 images on disk, their labels a bomb (it read "file is truncated")
	const nLab = 1 << 21
	images := filepath.Join(dir, "small-idx3-ubyte")
	os.WriteFile(images, append([]byte{0, 0, 8, 3, 0, 0x20, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1}, make([]byte, nLab)...), 0o644)
	labBomb, _ := gzipBomb(t, dir, "bomb-idx1-ubyte.gz", []byte{0, 0, 8, 1, 0, 0x20, 0, 0}, 2*nLab)
	for name, load := range map[string]func() error{
		"LoadSklearnCSV": func() error { _, err := LoadSklearnCSV(sk, Limits{}); return err },
		"LoadIDX labels": func() error { _, err := LoadIDX(images, labBomb, Limits{}); return err },
		"LoadCSV":        func() error { _, err := LoadCSV(p, CSVOptions{}); return err },
		"LoadMatrixCSV":  func() error { _, err := LoadMatrixCSV(p, Limits{}); return err },
		"LoadLIBSVM":     func() error { _, err := LoadLIBSVM(p, LIBSVMOptions{}); return err },
		"LoadIDX":        func() error { _, err := LoadIDX(idx, labels, Limits{}); return err },
	} {
		var err error
		got := testenv.Allocated(func() { err = load() })
		var ie *InflationError
		if !errors.As(err, &ie) || ie.Budget || !strings.Contains(err.Error(), "bomb") || !strings.Contains(err.Error(), "more than 100 to 1") {
			t.Errorf("%s: %.300v; want the file refused for inflating more than 100 to 1", name, err)
			continue
		}
		t.Logf("%s: %d bytes", name, got)
		// the labels case's 2²¹ images are real data, read before the labels: only the
		// error is its point
		if got > 128<<20 && name != "LoadIDX labels" {
			t.Errorf("%s: refusing the bomb allocated %d bytes", name, got)
		}
	}
}

// Past the value budget a file is refused whatever its ratio: random digits (compressing
// about 2 to 1), 45 characters a value, above --max-values × 32 bytes.
func TestGzipValueBudget(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1 << 16 { // 3 MiB of text, 2¹⁶ values: within the cap of values, not of bytes
		fmt.Fprintf(zw, "%.42f\n", rng.Float64())
	}
	zw.Close()
	p := filepath.Join(t.TempDir(), "big.csv.gz")
	os.WriteFile(p, b.Bytes(), 0o644)
	_, err := LoadMatrixCSV(p, Limits{MaxValues: 1 << 16}) // a budget of 2 MiB inflated
	var ie *InflationError
	if !errors.As(err, &ie) || !ie.Budget || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "--max-values 65536") {
		t.Fatalf("%.300v; want the value budget named", err)
	}
}

// A real compressed file is read as before: a ratio of hundreds is allowed within the
// grace (a small file of zeros), and a file that compresses a few times is read whole;
// exactly 100 to 1 past the grace passes, a byte more does not.
func TestGzipWithinBoundsReads(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		row  func(*rand.Rand) string
		rows int
	}{
		{"zeros.csv.gz", func(*rand.Rand) string { return "0,0,0,0,0,0,0,0,0,0\n" }, 40_000},                                             // 800 KB, 250 to 1
		{"digits.csv.gz", func(r *rand.Rand) string { return fmt.Sprintf("%.6f,%d,%d\n", r.Float64(), r.IntN(10), r.IntN(3)) }, 300_000}, // 4 MB
	} {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		rng := rand.New(rand.NewPCG(3, 4))
		for range c.rows {
			io.WriteString(zw, c.row(rng))
		}
		zw.Close()
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, b.Bytes(), 0o644)
		m, err := LoadMatrixCSV(p, Limits{})
		if err != nil {
			t.Fatalf("%.300v", err)
		}
		if r, _ := m.Dims(); r != c.rows {
			t.Fatalf("%s: %d rows, want %d", c.name, r, c.rows)
		}
	}
	if err := (Limits{}).CheckInflation("f", InflationGrace+1, (InflationGrace+1)/MaxInflation); err != nil {
		t.Errorf("exactly 100 to 1 past the grace: %v", err)
	}
	if err := (Limits{}).CheckInflation("f", InflationGrace+1, (InflationGrace+1)/MaxInflation-1); err == nil {
		t.Error("just over 100 to 1 past the grace is allowed")
	}
	if err := (Limits{}).CheckInflation("f", InflationGrace, 1); err != nil {
		t.Errorf("any ratio within the grace: %v", err)
	}
}

// FuzzInflate feeds compressed streams, mutated from bombs and real files, through the
// gzip path of the CSV loaders: what is inflated never passes the amplification bound
// (100 to 1 past the grace, plus a read-ahead of one deflate window), and the allocation
// stays within 16 bytes an inflated byte (one endless row of one-character fields, the
// CSV parser's worst case, costs 8: a float64 for two bytes, kept twice; it cost 79 when
// encoding/csv kept a field index and position each).
func FuzzInflate(f *testing.F) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		io.WriteString(zw, s)
		zw.Close()
		return b.Bytes()
	}
	f.Add(gz("1,2\n3,4\n"))
	f.Add(gz(strings.Repeat("0,", 4<<20)))
	f.Add(gz(strings.Repeat("1,0,0\n", 1<<20)))
	f.Add([]byte("1,2\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var (
			inflated int64
			err      error
		)
		got := testenv.Allocated(func() {
			var r io.Reader
			if r, err = inflate("fuzz.csv.gz", bytes.NewReader(in), Limits{}); err != nil {
				return
			}
			c := &CountingReader{R: r}
			_, err = ParseMatrixCSV(c, "fuzz.csv.gz", Limits{})
			inflated = c.N
		})
		if limit := max(int64(InflationGrace), MaxInflation*int64(len(in))) + 64<<10; inflated > limit {
			t.Fatalf("%d compressed bytes inflated to %d (limit %d)", len(in), inflated, limit)
		}
		checkAllocation(t, int(inflated), 16, got)
	})
}
