package python_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// python is Debian's interpreter, the one .ci/run installs the packages for (not the
// python3 first on PATH, which may be another installation without them).
const python = "/usr/bin/python3"

const doc = "../../docs/models-trained-elsewhere.md"

// TestWorkedExamples runs the commands of the docs' "Worked examples" section as written,
// from the repository root with the audit binary on PATH and the Python package
// (python/, which the scripts audit with) on PYTHONPATH, each script writing into the
// test's temporary folder (TMPDIR), and checks: the script's exit 0, its verdict lines
// equal to the doc's, each report.json's verdict (the fake unlearner FAILed, the honest one
// PASS or INCONCLUSIVE), the .pt files read as they are, and no file of the repository's
// examples, docs or fixtures written or changed.
func TestWorkedExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	runs := workedExamples(t)
	if len(runs) != 3 || runs[0].command != "go install ./cmd/audit" {
		t.Fatalf("%s: want the worked examples' go install line and two scripts, got %d commands", doc, len(runs))
	}
	// go install would write into the user's GOBIN: the test builds the same binary into
	// a folder of its own and puts that on PATH instead.
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "audit"), "../../cmd/audit").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/audit: %v\n%s", err, out)
	}
	before := treeHashes(t, root)
	for _, run := range runs[1:] {
		t.Run(filepath.Base(strings.Fields(run.command)[len(strings.Fields(run.command))-1]), func(t *testing.T) {
			// PYTHONPATH=python: the scripts import the package from the clone (python/), which
			// runs the audit binary on PATH
			env, cmdline, _ := strings.Cut(run.command, " ")
			args := strings.Fields(cmdline)
			if env != "PYTHONPATH=python" || len(args) != 2 || args[0] != python {
				t.Fatalf("%s: %q: want PYTHONPATH=python %s SCRIPT", doc, run.command, python)
			}
			modules := map[string]string{"sklearn_unlearn.py": "numpy, sklearn", "torch_unlearn.py": "numpy, torch"}[filepath.Base(args[1])]
			if modules == "" {
				t.Fatalf("%s: %q: not a script this test knows", doc, run.command)
			}
			requirePython(t, modules)
			tmp := t.TempDir()
			cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
			cmd.Dir = root
			cmd.Env = append(withoutAudit(os.Environ()), env, "TMPDIR="+tmp, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", run.command, err, out, stderr.String())
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(got) != len(run.output) {
				t.Errorf("%s printed %d lines, the doc shows %d:\n%s", run.command, len(got), len(run.output), out)
			}
			var folder string
			for i, want := range run.output[:min(len(got), len(run.output))] {
				switch {
				case strings.HasPrefix(want, "writing into "):
					// a new temporary folder: its name varies, its place and prefix do not
					folder = strings.TrimPrefix(got[i], "writing into ")
					base := filepath.Base(strings.TrimPrefix(want, "writing into "))
					prefix := base[:strings.LastIndex(base, "-")+1]
					if filepath.Dir(folder) != tmp || !strings.HasPrefix(filepath.Base(folder), prefix) {
						t.Errorf("line %d: %q: want a new folder %s%s… (TMPDIR)", i+1, got[i], filepath.Join(tmp, ""), prefix)
					}
				case strings.HasPrefix(want, "done in "):
					// the time varies; the conclusion does not
					_, w, _ := strings.Cut(want, ": ")
					_, g, _ := strings.Cut(got[i], ": ")
					if !strings.HasPrefix(got[i], "done in ") || g != w {
						t.Errorf("line %d: %q, want done in … s: %s", i+1, got[i], w)
					}
				default:
					if got[i] != want {
						t.Errorf("line %d differs from the doc's\ndoc:    %s\nscript: %s", i+1, want, got[i])
					}
				}
			}
			if folder == "" {
				t.Fatal("the script did not say where it wrote")
			}
			// The verdicts from the reports themselves, not from the script's summary.
			for name, want := range map[string][]string{
				"fake": {"FAIL"}, "fake-scores": {"FAIL"},
				"honest": {"PASS", "INCONCLUSIVE"}, "honest-scores": {"PASS", "INCONCLUSIVE"},
			} {
				r := readReport(t, filepath.Join(folder, "report-"+name, "report.json"))
				if !slices.Contains(want, r.Summary.Verdict) {
					t.Errorf("report-%s: verdict %s, want one of %v", name, r.Summary.Verdict, want)
				}
				if strings.HasPrefix(name, "fake") && (len(r.Subjects) != 1 || len(r.Subjects[0].Findings) == 0 || !(r.Subjects[0].Findings[0].Measured > r.Subjects[0].Findings[0].Bound)) {
					t.Errorf("report-%s: the deciding finding shows no ε above the claim: %+v", name, r.Subjects)
				}
			}
			// The models audited are the files the script saved, in its own format.
			ext := map[string]string{"sklearn_unlearn.py": ".npy", "torch_unlearn.py": ".pt"}[filepath.Base(args[1])]
			r := readReport(t, filepath.Join(folder, "report-fake", "report.json"))
			models := 0
			for _, in := range r.Inputs {
				if strings.HasPrefix(in.Path, filepath.Join(folder, "fake")+string(filepath.Separator)) && strings.HasSuffix(in.Path, ext) {
					models++
				}
			}
			if models != 100 {
				t.Errorf("report-fake lists %d %s models of %s/fake as inputs, want 100", models, ext, folder)
			}
		})
	}
	if after := treeHashes(t, root); !maps.Equal(before, after) {
		t.Errorf("running the examples changed files of the repository:\n%s", diffHashes(before, after))
	}
}

// requirePython skips the test when Debian's Python cannot import the modules, and fails
// it under CI, which installs them (.ci/run).
func requirePython(t *testing.T, modules string) {
	t.Helper()
	out, err := exec.Command(python, "-c", "import "+modules).CombinedOutput()
	if err == nil {
		return
	}
	msg := python + " cannot import " + modules + " (apt-get install python3-numpy python3-sklearn python3-torch): " + strings.TrimSpace(lastLine(string(out)))
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// withoutAudit drops $AUDIT (and $PYTHONPATH, which the doc's command sets), so the
// scripts find the binary the test put on PATH, as a reader who ran go install does.
func withoutAudit(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "AUDIT=") || strings.HasPrefix(kv, "PYTHONPATH=")
	})
}

type run struct {
	command string
	output  []string
}

// workedExamples reads the first console block of the doc's "## Worked examples" section:
// "$ " lines are commands, the lines after one its output.
func workedExamples(t *testing.T) []run {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []run
	section, block := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = line == "## Worked examples"
		case !section:
		case !block && line == "```console":
			block = true
		case block && line == "```":
			return runs
		case block && strings.HasPrefix(line, "$ "):
			runs = append(runs, run{command: strings.TrimPrefix(line, "$ ")})
		case block && len(runs) > 0:
			runs[len(runs)-1].output = append(runs[len(runs)-1].output, line)
		case block:
			t.Fatalf("%s: output before any command in the worked examples: %q", doc, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("%s: no console block in a \"## Worked examples\" section", doc)
	return nil
}

type report struct {
	Inputs []struct {
		Path string `json:"path"`
	} `json:"inputs"`
	Subjects []struct {
		Findings []struct {
			Verdict  string  `json:"verdict"`
			Measured float64 `json:"measured"`
			Bound    float64 `json:"bound"`
		} `json:"findings"`
	} `json:"subjects"`
	Summary struct {
		Verdict string `json:"verdict"`
	} `json:"summary"`
}

func readReport(t *testing.T, path string) report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// treeHashes is the SHA-256 of every file under the folders the examples could touch:
// these scripts' own, the docs and the committed fixtures of audit verify.
func treeHashes(t *testing.T, root string) map[string]string {
	t.Helper()
	h := map[string]string{}
	for _, dir := range []string{"examples", "docs", "cmd/audit/testdata/verify", "bench/detection"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			h[path] = hex.EncodeToString(sum[:])
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func diffHashes(before, after map[string]string) string {
	var out []string
	for k, v := range after {
		switch w, ok := before[k]; {
		case !ok:
			out = append(out, "new:     "+k)
		case w != v:
			out = append(out, "changed: "+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, "removed: "+k)
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}
