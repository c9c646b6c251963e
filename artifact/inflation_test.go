package artifact

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// npzBomb is an .npz archive of one float64 vector of n zeros, deflated as tightly as
// deflate allows (about 1030 to 1).
func npzBomb(t testing.TB, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	w, err := zw.Create("weights.npy")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(npyBytes(fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }", n), nil))
	zeros := make([]byte, 1<<20)
	for left := 8 * n; left > 0; left -= len(zeros) {
		w.Write(zeros[:min(left, len(zeros))])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The red team's npz — 783 KB inflating to 800 MB of zeros (100 million float64s,
// within --max-values), which cost 2.7 GB — is refused from its central directory, before
// any entry is inflated, naming the file and the 100:1 limit; LoadModel, LoadSample and
// LoadScores all refuse it.
func TestNPZBombIsRefusedBeforeInflating(t *testing.T) {
	in := npzBomb(t, 100_000_000)
	if len(in) > 800<<10 {
		t.Fatalf("the bomb is %d bytes; want about 783 KB", len(in))
	}
	p := filepath.Join(t.TempDir(), "model.npz")
	if err := os.WriteFile(p, in, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, load := range map[string]func() error{
		"ParseNPZ":   func() error { _, err := parseNPZBytes(in, p); return err },
		"LoadModel":  func() error { _, _, err := LoadModel(p, reference.Limits{}); return err },
		"LoadSample": func() error { _, _, err := LoadSample(p, reference.Limits{}); return err },
		"LoadScores": func() error { _, _, err := LoadScores(p, reference.Limits{}); return err },
	} {
		var err error
		got := testenv.Allocated(func() { err = load() })
		var ie *reference.InflationError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), p+": inflates to 8000000") || !strings.Contains(err.Error(), "more than 100 to 1") {
			t.Errorf("%s: %.300v; want it refused for inflating more than 100 to 1", name, err)
		}
		if got > 1<<20 {
			t.Errorf("%s: refusing the bomb allocated %d bytes", name, got)
		}
	}
}

// Past the value budget an archive is refused however little it compresses; within both
// bounds it reads (a stored archive of zeros of 2 MB, and a deflated one of 512 KB at
// 1000 to 1, within the grace).
func TestNPZValueBudgetAndGrace(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "w.npy", Method: zip.Store})
	w.Write(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (8192,), }", make([]byte, 8*8192)))
	zw.Close()
	_, err := ParseNPZ(bytes.NewReader(b.Bytes()), int64(b.Len()), "m.npz", reference.Limits{MaxValues: 1 << 10}) // a budget of 32 KiB inflated
	var ie *reference.InflationError
	if !errors.As(err, &ie) || !ie.Budget || !strings.Contains(err.Error(), "m.npz: inflates to more than 32768 bytes") {
		t.Errorf("stored archive past the budget: %.300v", err)
	}
	if a, err := parseNPZBytes(b.Bytes(), "m.npz"); err != nil || len(a[0].Data) != 8192 {
		t.Errorf("stored archive within the budget: %v", err)
	}
	if a, err := parseNPZBytes(npzBomb(t, 1<<16), "m.npz"); err != nil || len(a[0].Data) != 1<<16 {
		t.Errorf("deflated 512 KB within the grace: %v", err)
	}
}

// FuzzLoadSample reads a folder of one or two model files of every format from the
// fuzzer's bytes: no panic (an empty model is an error), a sample has a row per file and at
// least one column, and the allocation stays within the parsers' O(k) bound of what the
// files hold — for an .npz or a .pt, of what it may inflate to (100 to 1 past the grace).
func FuzzLoadSample(f *testing.F) {
	f.Add(must(os.ReadFile(filepath.Join("testdata", "models.npz"))), uint8(1), true)
	f.Add(must(os.ReadFile(filepath.Join("testdata", "models_compressed.npz"))), uint8(1), false)
	f.Add(must(os.ReadFile(filepath.Join("testdata", "vector_f8.npy"))), uint8(0), true)
	f.Add(stFile(`{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, le(float32(1), float32(2))), uint8(2), true)
	f.Add(stFile(`{}`, nil), uint8(2), false)
	f.Add([]byte("1,2,3\n"), uint8(3), true)
	f.Add([]byte(goodCard), uint8(4), false)
	f.Add(must(os.ReadFile(filepath.Join("testdata", "batchnorm.pt"))), uint8(5), true)
	f.Add(must(os.ReadFile(filepath.Join("testdata", "mlp_f64_proto4.pth"))), uint8(6), false)
	f.Fuzz(func(t *testing.T, in []byte, kind uint8, two bool) {
		ext := modelExts[int(kind)%len(modelExts)]
		dir := t.TempDir()
		files := 1
		os.WriteFile(filepath.Join(dir, "a"+ext), in, 0o644)
		if two {
			os.WriteFile(filepath.Join(dir, "b"+ext), in, 0o644)
			files = 2
		}
		var (
			m   *mat.Dense
			err error
		)
		got := testenv.Allocated(func() { m, _, err = LoadSample(dir, reference.Limits{}) })
		held := len(in)
		switch ext {
		case ".npz":
			held = max(reference.InflationGrace, reference.MaxInflation*len(in))
		case ".pt", ".pth": // and a storage read out through up to four views
			held = maxStorageAliases * 4 * max(reference.InflationGrace, reference.MaxInflation*len(in))
		}
		if limit := uint64(files) * fuzzAllocLimit(held); got > limit {
			t.Fatalf("%d bytes of %s (%d files) allocated %d (limit %d)", len(in), ext, files, got, limit)
		}
		if err != nil {
			return
		}
		if r, c := m.Dims(); r != files || c == 0 {
			t.Fatalf("%d × %d from %d files", r, c, files)
		}
	})
}
