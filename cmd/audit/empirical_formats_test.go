package main

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// npyF8 is a little-endian float64 .npy file of a rows × cols matrix.
func npyF8(rows, cols int, data []float64) []byte {
	h := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	h += strings.Repeat(" ", 63-(10+len(h))%64) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	b = append(b, h...)
	for _, v := range data {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// writeNPZ writes an .npz archive of the given .npy entries.
func writeNPZ(t *testing.T, path string, entries map[string][]byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, b := range entries {
		w, _ := zw.Create(name + ".npy")
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// audit epsilon and audit estimate read the same matrix from CSV, .npy and an .npz of one
// array (as verify --scores does) and print byte-identical results for each; a file that
// is not what its extension says, or an .npz of two arrays, is refused naming the flag,
// the file and what is wrong.
func TestEmpiricalReadsNumPy(t *testing.T) {
	dir := t.TempDir()
	const n, k = 60, 3
	write := func(base string, shift float64, seed uint64) map[string]string {
		r := reference.Stream(seed, 0, base)
		data := make([]float64, n*k)
		var csv strings.Builder
		for i := range n {
			for j := range k {
				v := r.NormFloat64()
				if j == 0 {
					v += shift
				}
				data[i*k+j] = v
				if j > 0 {
					csv.WriteByte(',')
				}
				fmt.Fprintf(&csv, "%.17g", v)
			}
			csv.WriteByte('\n')
		}
		paths := map[string]string{"csv": filepath.Join(dir, base+".csv"), "npy": filepath.Join(dir, base+".npy"), "npz": filepath.Join(dir, base+".npz")}
		os.WriteFile(paths["csv"], []byte(csv.String()), 0o644)
		os.WriteFile(paths["npy"], npyF8(n, k, data), 0o644)
		writeNPZ(t, paths["npz"], map[string][]byte{"scores": npyF8(n, k, data)})
		return paths
	}
	a, b := write("a", 3, 1), write("b", 0, 2)
	for _, cmd := range [][]string{{"epsilon", "--delta", "1e-5", "--json"}, {"estimate", "--method", "gauss", "--json"}} {
		want, errOut, code := runCLI(t, append(cmd, "--a", a["csv"], "--b", b["csv"])...)
		if code != exitPass {
			t.Fatalf("%s on CSV: exit %d: %s", cmd[0], code, errOut)
		}
		for _, format := range []string{"npy", "npz"} {
			got, errOut, code := runCLI(t, append(cmd, "--a", a[format], "--b", b[format])...)
			if code != exitPass || got != want {
				t.Errorf("%s on .%s: exit %d %s\n%s\nwant (CSV):\n%s", cmd[0], format, code, errOut, got, want)
			}
		}
		// mixed formats on the two sides read too
		if got, _, code := runCLI(t, append(cmd, "--a", a["npy"], "--b", b["csv"])...); code != exitPass || got != want {
			t.Errorf("%s on .npy and CSV: exit %d\n%s", cmd[0], code, got)
		}
	}
	// a CSV named .npy is refused by the .npy reader, naming the file and the field, not
	// read as CSV (and a .npy named .csv is the CSV reader's error, as before)
	fake := filepath.Join(dir, "fake.npy")
	os.WriteFile(fake, []byte("1,2\n3,4\n"), 0o644)
	two := filepath.Join(dir, "two.npz")
	writeNPZ(t, two, map[string][]byte{"x": npyF8(2, 2, make([]float64, 4)), "y": npyF8(2, 2, make([]float64, 4))})
	short := filepath.Join(dir, "short.npy")
	os.WriteFile(short, npyF8(n, k, make([]float64, n*k))[:200], 0o644)
	for _, c := range []struct {
		file string
		want []string
	}{
		{fake, []string{"--a: " + fake + ": magic: ", "not a .npy file"}},
		{two, []string{"--a: " + two + ": 2 arrays (x, y)"}},
		{short, []string{"--a: " + short + ": data: "}},
		{filepath.Join(dir, "absent.npy"), []string{"--a: ", "absent.npy"}},
	} {
		for _, cmd := range [][]string{{"epsilon", "--delta", "1e-5"}, {"estimate"}} {
			_, errOut, code := runCLI(t, append(cmd, "--a", c.file, "--b", b["csv"])...)
			if code != exitUsage {
				t.Errorf("%s --a %s: exit %d, want %d: %s", cmd[0], c.file, code, exitUsage, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("%s --a %s: %q lacks %q", cmd[0], c.file, errOut, w)
				}
			}
		}
	}
}
