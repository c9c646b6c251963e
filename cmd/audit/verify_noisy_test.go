package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// noisySigma is the σ the fixtures under testdata/noisy declare (spec.json) and the honest
// ones add: a little above the 3.73063 the Gaussian mechanism needs for ε = 1 at δ = 1e-5
// with Δ = 1.
const noisySigma = 3.7307

// writeNoisyPipeline writes, as CSV matrices (one model a row) in dir, what a pipeline
// that publishes with Gaussian noise hands over: 32 pairs of 10 parameters before the noise
// (pre_u.csv, pre_r.csv; the unlearned one 0.8 from its retrain) and the published models
// (pub_u.csv, pub_r.csv) with noise of standard deviation noise. The fixtures are written
// by Go, not by PyTorch or scikit-learn (docs/noisy-release.md shows their scripts): the
// route reads matrices, whoever wrote them.
func writeNoisyPipeline(t *testing.T, dir string, noise float64, seed uint64) {
	t.Helper()
	const n, d = 32, 10
	r := reference.Stream(seed, 0, "noisy pipeline")
	files := map[string]*strings.Builder{"prenoise_unlearned.csv": {}, "prenoise_retrained.csv": {}, "unlearned.csv": {}, "retrained.csv": {}}
	put := func(name string, j int, v float64) {
		b := files[name]
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		if j == d-1 {
			b.WriteByte('\n')
		}
	}
	dir0 := make([]float64, d)
	for range n {
		reference.FillNormal(dir0, 1, r)
		var norm float64
		for _, v := range dir0 {
			norm += float64(v * v) // float64(): no fused multiply-add, the same bits on every machine
		}
		norm = math.Sqrt(norm)
		for j := range d {
			base := r.NormFloat64()
			u := base + 0.8*dir0[j]/norm
			put("prenoise_retrained.csv", j, base)
			put("prenoise_unlearned.csv", j, u)
			put("unlearned.csv", j, u+float64(noise*r.NormFloat64()))
			put("retrained.csv", j, base+float64(noise*r.NormFloat64()))
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// noisyFixture is the path of a file of the fixture case under testdata/noisy.
func noisyFixture(c, name string) string { return filepath.Join("testdata", "noisy", c, name) }

// The committed fixtures are writeNoisyPipeline's output, to the last digit a machine's
// float formatting could change (1e-12 relative): a change to the generator or the files
// alone fails this.
func TestNoisyFixturesRegenerate(t *testing.T) {
	for _, c := range []struct {
		name  string
		noise float64
		seed  uint64
	}{{"honest", noisySigma, 5}, {"half", noisySigma / math.Sqrt2, 6}} {
		dir := t.TempDir()
		writeNoisyPipeline(t, dir, c.noise, c.seed)
		for _, f := range []string{"prenoise_unlearned.csv", "prenoise_retrained.csv", "unlearned.csv", "retrained.csv"} {
			got, err := reference.LoadMatrixCSV(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			want, err := reference.LoadMatrixCSV(noisyFixture(c.name, f))
			if err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(got, want, 1e-12) {
				t.Errorf("%s/%s: the committed fixture is not writeNoisyPipeline's output", c.name, f)
			}
		}
	}
}

// verify's pre-noise route end to end on the committed fixtures (32 pairs of 10
// parameters, the spec declaring Δ = 1 and σ = 3.7307 for ε = 1 at δ = 1e-5): the honest
// pipeline PASSes (the noise test's false alarm at most 5 %, the supporting game's at most
// 5 %, the files fixed) and the report carries the three deciding checks; half the
// declared variance FAILs on the release check, which says the noise is smaller than
// declared; a spec without "noise", or one pre-noise flag alone, is refused naming what is
// missing.
func TestVerifyPrenoise(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join("testdata", "noisy", "spec.json")
	for _, c := range []struct {
		name string
		code int
		says string
	}{{"honest", exitPass, ""}, {"half", exitFail, "noise smaller than declared"}} {
		out := filepath.Join(dir, c.name+"-report")
		stdout, stderr, code := runCLI(t, "verify", "--spec", spec, "--unlearned", noisyFixture(c.name, "unlearned.csv"), "--retrained", noisyFixture(c.name, "retrained.csv"),
			"--prenoise-unlearned", noisyFixture(c.name, "prenoise_unlearned.csv"), "--prenoise-retrained", noisyFixture(c.name, "prenoise_retrained.csv"), "--out", out)
		if code != c.code {
			t.Fatalf("%s: exit %d, want %d: %s %s", c.name, code, c.code, stdout, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Inputs   []struct{ Role string }
			Subjects []struct {
				Findings []struct {
					Check, Verdict, Detail string
					Required               bool
				}
			}
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		required := map[string]string{}
		for _, f := range rep.Subjects[0].Findings {
			if f.Required {
				required[f.Check] = f.Verdict
			}
			if c.says != "" && f.Verdict == "FAIL" && !strings.Contains(f.Detail, c.says) {
				t.Errorf("%s: %s FAILs saying %q; want %q", c.name, f.Check, f.Detail, c.says)
			}
		}
		want := map[string]string{"verify/certificate/gaussian-sigma": "PASS", "verify/implementation/pre-noise-gap": "PASS", "verify/release/noise-scale": "PASS"}
		if c.code == exitFail {
			want["verify/release/noise-scale"] = "FAIL"
		}
		if fmt.Sprint(required) != fmt.Sprint(want) {
			t.Errorf("%s: required findings %v; want %v", c.name, required, want)
		}
		roles := map[string]int{}
		for _, i := range rep.Inputs {
			roles[i.Role]++
		}
		if roles["pre-noise unlearned model"] != 1 || roles["pre-noise retrained model"] != 1 {
			t.Errorf("%s: report inputs %v; want the pre-noise files listed", c.name, roles)
		}
	}
	bare := filepath.Join(dir, "bare.json")
	os.WriteFile(bare, []byte(`{"claim": {"epsilon": 1, "delta": 1e-5}}`), 0o644)
	in := filepath.Join("testdata", "noisy", "honest")
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--spec", bare, "--prenoise-unlearned", filepath.Join(in, "prenoise_unlearned.csv"), "--prenoise-retrained", filepath.Join(in, "prenoise_retrained.csv")}, "bare.json: noise: missing"},
		{[]string{"--spec", spec, "--prenoise-unlearned", filepath.Join(in, "prenoise_unlearned.csv")}, "--prenoise-unlearned and --prenoise-retrained go together"},
	} {
		args := append([]string{"verify", "--unlearned", filepath.Join(in, "unlearned.csv"), "--retrained", filepath.Join(in, "retrained.csv"), "--out", filepath.Join(dir, "refused")}, c.args...)
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, %q; want a usage error saying %q", c.args, code, stderr, c.says)
		}
	}
}
