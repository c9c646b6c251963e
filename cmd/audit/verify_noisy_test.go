package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// The pre-noise route's fixtures, and the command docs/noisy-release.md shows to write them
// again: scikit-learn, NumPy and PyTorch, as a pipeline would use them.
const makeNoisy = "/usr/bin/python3 cmd/audit/testdata/noisy/make_noisy.py"

// noisyFixture is the path of a file of a fixture case under testdata/noisy.
func noisyFixture(c, name string) string { return filepath.Join("testdata", "noisy", c, name) }

// noisyArgs are the verify command line of a fixture case.
func noisyArgs(c, out string) []string {
	return []string{"verify", "--spec", filepath.Join("testdata", "noisy", "spec.json"),
		"--unlearned", noisyFixture(c, "unlearned"), "--retrained", noisyFixture(c, "retrained"),
		"--prenoise-unlearned", noisyFixture(c, "prenoise_unlearned.npy"), "--prenoise-retrained", noisyFixture(c, "prenoise_retrained.npy"), "--out", out}
}

// verify's pre-noise route end to end on make_noisy.py's fixtures: 32 published models a side
// of 30 parameters (PyTorch state dicts) and their parameters before the noise (NumPy), the
// spec declaring Δ = 0.1 and σ = 0.3731 for ε = 1 at δ = 1e-5. The honest pipeline PASSes
// (the noise test's false alarm at most 5 %, the supporting game's at most 5 %, the files
// fixed) with the three deciding checks in the report; half the declared variance FAILs on
// the release check, which says the noise is smaller than declared; the utility the
// script measured goes beside the verdict without moving it; a spec without
// "noise", or one pre-noise flag alone, is refused naming what is missing.
func TestVerifyPrenoise(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		code int
		says string
	}{{"honest", exitPass, ""}, {"half", exitFail, "noise smaller than declared"}} {
		out := filepath.Join(dir, c.name+"-report")
		stdout, stderr, code := runCLI(t, append(noisyArgs(c.name, out), "--utility", noisyFixture(c.name, "utility.npz"))...)
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
				Utility struct {
					Rows []struct{ Models, Records int }
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
		if u := rep.Subjects[0].Utility.Rows; len(u) != 12 || u[0].Models != 32 || u[0].Records != 10 {
			t.Errorf("%s: utility rows %+v; want the 12 of make_noisy.py's utility.npz, 32 models × 10 forget records first", c.name, u)
		}
		roles := map[string]int{}
		for _, i := range rep.Inputs {
			roles[i.Role]++
		}
		if roles["pre-noise unlearned model"] != 1 || roles["pre-noise retrained model"] != 1 || roles["unlearned model"] != 32 {
			t.Errorf("%s: report inputs %v; want the pre-noise files and the 32 published models a side listed", c.name, roles)
		}
	}
	bare := filepath.Join(dir, "bare.json")
	os.WriteFile(bare, []byte(`{"claim": {"epsilon": 1, "delta": 1e-5}}`), 0o644)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--spec", bare}, "bare.json: noise: missing"},
		{[]string{"--prenoise-retrained", ""}, "--prenoise-unlearned and --prenoise-retrained go together"},
	} {
		args := append(noisyArgs("honest", filepath.Join(dir, "refused")), c.args...)
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, %q; want a usage error saying %q", c.args, code, stderr, c.says)
		}
	}
}

// TestMakeNoisyRegeneratesTheFixtures runs docs/noisy-release.md's make_noisy.py command from
// the repository root into a new temporary folder: its spec is the committed one byte for
// byte, and every model file holds the committed values (the noise exactly; the L-BFGS
// minimisers to the last bits a BLAS rounds differently, 1e-12 on values of order 1).
func TestMakeNoisyRegeneratesTheFixtures(t *testing.T) {
	doc, err := os.ReadFile("../../docs/noisy-release.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), "`"+makeNoisy+"`") {
		t.Fatalf("docs/noisy-release.md does not show `%s`", makeNoisy)
	}
	if out, err := exec.Command("/usr/bin/python3", "-c", "import numpy, sklearn, torch").CombinedOutput(); err != nil {
		msg := "/usr/bin/python3 cannot import numpy, sklearn and torch (apt-get install python3-sklearn python3-torch): " + strings.TrimSpace(string(out))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	tmp := t.TempDir()
	args := strings.Fields(makeNoisy)
	cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", makeNoisy, err, out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	written := strings.TrimPrefix(first, "writing into ")
	if written == first || filepath.Dir(written) != tmp {
		t.Fatalf("%s: first line %q, want writing into a new folder in %s", makeNoisy, first, tmp)
	}
	fixtures := filepath.Join("testdata", "noisy")
	committed, got := dirHashes(t, fixtures), dirHashes(t, written)
	delete(committed, "make_noisy.py")
	if len(got) != len(committed) {
		t.Errorf("make_noisy.py wrote %d files, the committed fixtures are %d", len(got), len(committed))
	}
	for name := range committed {
		if _, ok := got[name]; !ok {
			t.Errorf("make_noisy.py did not write %s", name)
			continue
		}
		if name == "spec.json" {
			a, _ := os.ReadFile(filepath.Join(fixtures, name))
			b, _ := os.ReadFile(filepath.Join(written, name))
			if !bytes.Equal(a, b) {
				t.Errorf("spec.json: written\n%s\ncommitted\n%s", b, a)
			}
			continue
		}
		want, _, err := artifact.LoadSample(filepath.Join(fixtures, name), reference.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		have, _, err := artifact.LoadSample(filepath.Join(written, name), reference.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		wr, wc := want.Dims()
		if hr, hc := have.Dims(); hr != wr || hc != wc {
			t.Errorf("%s: %d × %d values, the committed file %d × %d", name, hr, hc, wr, wc)
			continue
		}
		for i := range wr {
			for j := range wc {
				if d := math.Abs(have.At(i, j) - want.At(i, j)); !(d <= 1e-12) {
					t.Errorf("%s: value (%d, %d) is %v, committed %v", name, i, j, have.At(i, j), want.At(i, j))
					break
				}
			}
		}
	}
}

// The verify samples of docs/noisy-release.md and docs/utility.md are the commands' real
// outputs: each is run from the repository root (its $D the fixtures' folder, its --out a
// temporary one) and its console output compared line for line, exit codes as the samples
// imply. Planted by hand: a digit of a docs sample changed fails it.
func TestNoisyDocsSamplesAreRealOutputs(t *testing.T) {
	checked := 0
	for _, page := range []string{"../../docs/noisy-release.md", "../../docs/utility.md"} {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range readmeSamples(string(b)) {
			if len(s.args) < 1 || s.args[0] != "verify" {
				continue
			}
			checked++
			dir := t.TempDir()
			args := make([]string, len(s.args))
			var out string
			for i, a := range s.args {
				args[i] = strings.ReplaceAll(a, "$D", filepath.Join("testdata", "noisy"))
				if i > 0 && s.args[i-1] == "--out" {
					out = a
					args[i] = filepath.Join(dir, "out")
				}
			}
			stdout, stderr, code := runCLI(t, args...)
			if code == exitUsage {
				t.Errorf("%s: %v: %s", page, s.args, stderr)
				continue
			}
			if got := strings.ReplaceAll(stdout, filepath.Join(dir, "out"), out); got != s.output {
				t.Errorf("%s: sample of %v differs from the command's output.\ndoc:\n%s\ncommand:\n%s", page, s.args, s.output, got)
			}
		}
	}
	if checked != 3 {
		t.Fatalf("%d verify samples found in the two pages; want 3 (honest, half, utility)", checked)
	}
}
