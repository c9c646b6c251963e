package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// ptModels writes n state dicts laid out as PyTorch wrote artifact/testdata/batchnorm.pt
// (Linear(3, 2) then BatchNorm1d(2)), each with fresh float32 values in its storages, and
// beside each the same model as a float64 .npy of its float tensors in the order given by
// pick (names), as a user's export script would write it. The storages' keys are those
// torch.save gave the tensors (data.pkl names them in state-dict order).
func ptModels(t *testing.T, dir string, n int, shift float64, seed uint64, pick []string) (ptDir, npyDir string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "artifact", "testdata", "batchnorm.pt"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{"0.weight": "0", "0.bias": "1", "1.weight": "2", "1.bias": "3", "1.running_mean": "4", "1.running_var": "5"}
	ptDir, npyDir = filepath.Join(dir, "pt"), filepath.Join(dir, "npy")
	os.MkdirAll(ptDir, 0o755)
	os.MkdirAll(npyDir, 0o755)
	r := reference.Stream(seed, 0, dir)
	for i := range n {
		zr, err := zip.NewReader(bytes.NewReader(src), int64(len(src)))
		if err != nil {
			t.Fatal(err)
		}
		values := map[string][]float64{} // storage key → the float32 values written
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for _, zf := range zr.File {
			rc, _ := zf.Open()
			data, _ := io.ReadAll(rc)
			rc.Close()
			key := strings.TrimPrefix(zf.Name, "batchnorm/data/")
			if key != zf.Name && key != "6" { // 6 is num_batches_tracked, an int64
				var fresh []byte
				for range len(data) / 4 {
					v := float32(shift + r.NormFloat64())
					values[key] = append(values[key], float64(v))
					fresh = binary.LittleEndian.AppendUint32(fresh, math.Float32bits(v))
				}
				data = fresh
			}
			w, _ := zw.CreateHeader(&zip.FileHeader{Name: zf.Name, Method: zip.Store})
			w.Write(data)
		}
		zw.Close()
		name := "model_" + string(rune('a'+i))
		os.WriteFile(filepath.Join(ptDir, name+".pt"), b.Bytes(), 0o644)
		var flat []float64
		for _, p := range pick {
			flat = append(flat, values[keys[p]]...)
		}
		os.WriteFile(filepath.Join(npyDir, name+".npy"), npyF8(1, len(flat), flat), 0o644)
	}
	return ptDir, npyDir
}

// verify reads a folder of PyTorch state dicts as it reads the same weights exported to
// NumPy: every float tensor in name order by default (num_batches_tracked, an int64
// counter, left out), or the tensors --tensor names in the order given; the summaries
// agree to the byte, and each report names its first file's parts in the order read
// (the .pt's tensors, --tensor's order; the .npy's one array). A name the files lack, an integer buffer, a pickled module, and
// --tensor on the scores routes are refused (exit 2), naming the file and what to do, and
// nothing is written.
func TestVerifyPyTorch(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "my-torch-unlearner"}, "claim": {"epsilon": 1, "delta": 1e-3}}`), 0o644)
	all := []string{"0.bias", "0.weight", "1.bias", "1.running_mean", "1.running_var", "1.weight"}
	picked := []string{"1.weight", "0.bias"}
	for _, c := range []struct {
		name   string
		tensor string
		pick   []string
		params string
	}{
		{"all", "", all, "of 16 parameters"},
		{"picked", "1.weight,0.bias", picked, "of 4 parameters"},
	} {
		base := filepath.Join(dir, c.name)
		uPT, uNPY := ptModels(t, filepath.Join(base, "u"), 10, 1, 1, c.pick)
		rPT, rNPY := ptModels(t, filepath.Join(base, "r"), 10, 0, 2, c.pick)
		args := []string{"verify", "--spec", spec, "--unlearned", uPT, "--retrained", rPT, "--out", filepath.Join(base, "out-pt")}
		if c.tensor != "" {
			args = append(args, "--tensor", c.tensor)
		}
		got, stderr, code := runCLI(t, args...)
		if code == exitUsage {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		want, _, wantCode := runCLI(t, "verify", "--spec", spec, "--unlearned", uNPY, "--retrained", rNPY, "--out", filepath.Join(base, "out-npy"))
		got = strings.ReplaceAll(got, "out-pt", "out-npy") // the report's folder, named in the summary
		if got != want || code != wantCode {
			t.Errorf("%s: .pt gave exit %d\n%s\nthe same weights as .npy gave exit %d\n%s", c.name, code, got, wantCode, want)
		}
		// the reports' findings (statistics, estimates, plots' data) agree too
		var reps [2]struct {
			Subjects json.RawMessage `json:"subjects"`
			Data     struct{ Description string }
			Inputs   []struct{ Path string }
		}
		for i, out := range []string{"out-pt", "out-npy"} {
			if err := json.Unmarshal(must(os.ReadFile(filepath.Join(base, out, "report.json"))), &reps[i]); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(reps[0].Subjects, reps[1].Subjects) {
			t.Errorf("%s: the findings on .pt and on .npy differ", c.name)
		}
		// the same models, each side's description naming its own first file's parts: the
		// .pt's tensors in the order read (--tensor's), the .npy's one array
		shape := map[string]string{"0.weight": "[2 3]"}
		var ptParts []string
		for _, p := range c.pick {
			sh, ok := shape[p]
			if !ok {
				sh = "[2]"
			}
			ptParts = append(ptParts, p+" "+sh+" float32")
		}
		d, dn := reps[0].Data.Description, reps[1].Data.Description
		head, _, _ := strings.Cut(d, "; the first,")
		headN, _, _ := strings.Cut(dn, "; the first,")
		if !strings.Contains(d, c.params) || head != headN || !strings.HasSuffix(d, "model_a.pt, read as "+strings.Join(ptParts, ", ")+", in that order") || !strings.HasSuffix(reps[0].Inputs[1].Path, "model_a.pt") {
			t.Errorf("%s: the report says %q of %v; want %q of the .pt files, read as %s", c.name, d, reps[0].Inputs[1], c.params, strings.Join(ptParts, ", "))
		}
		if want := "model_a.npy, read as [1 " + strings.TrimSuffix(strings.TrimPrefix(c.params, "of "), " parameters") + "] <f8"; !strings.HasSuffix(dn, want) {
			t.Errorf("%s: the .npy report says %q; want …%s", c.name, dn, want)
		}
	}
	uPT := filepath.Join(dir, "all", "u", "pt")
	rPT := filepath.Join(dir, "all", "r", "pt")
	mixed := filepath.Join(dir, "mixed")
	os.MkdirAll(mixed, 0o755)
	os.WriteFile(filepath.Join(mixed, "a.pt"), must(os.ReadFile(filepath.Join(uPT, "model_a.pt"))), 0o644)
	os.WriteFile(filepath.Join(mixed, "b.pt"), must(os.ReadFile(filepath.Join("..", "..", "artifact", "testdata", "whole_model.pt"))), 0o644)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--unlearned", uPT, "--retrained", rPT, "--tensor", "fc.weight"}, []string{"--unlearned: ", "model_a.pt: fc.weight: no such tensor; the file holds 0.bias, 0.weight, 1.bias"}},
		{[]string{"--unlearned", uPT, "--retrained", rPT, "--tensor", "1.num_batches_tracked"}, []string{"model_a.pt: 1.num_batches_tracked: not read: int64 [], not floating point"}},
		{[]string{"--unlearned", uPT, "--retrained", rPT, "--tensor", "0.bias,,0.weight"}, []string{`--tensor "0.bias,,0.weight": an empty tensor name`}},
		{[]string{"--unlearned", uPT, "--retrained", rPT, "--tensor", "0.bias,0.bias"}, []string{`tensor "0.bias" given twice`}},
		{[]string{"--unlearned", mixed, "--retrained", rPT}, []string{"b.pt: whole_model/data.pkl: the pickle imports", "save model.state_dict() instead"}},
		{[]string{"--scores", "--unlearned", uPT, "--retrained", rPT, "--tensor", "0.bias"}, []string{"--tensor picks the weights of model files"}},
	} {
		out := filepath.Join(dir, "refused")
		_, stderr, code := runCLI(t, append([]string{"verify", "--spec", spec, "--out", out}, c.args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d; want %d: %s", c.args, code, exitUsage, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: %q lacks %q", c.args, stderr, w)
			}
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s was written", c.args, out)
		}
	}
}
