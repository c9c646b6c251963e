package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// A short d2d-accuracy run on breast cancer: every file is written, the JSON reads back
// under its schema, the same seed gives byte-identical JSON and figures, and --json prints
// the same JSON.
func TestReproduceD2DAccuracy(t *testing.T) {
	datasets := testenv.SharedDatasets(t)
	args := func(out string, extra ...string) []string {
		return append([]string{"reproduce", "d2d-accuracy", "--datasets", datasets, "--only", "breast-cancer", "--updates", "100",
			"--weak-updates", "5", "--dist-updates", "10", "--draws", "200", "--formats", "svg,png,pdf", "--out", out}, extra...)
	}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	out, errOut, code := runCLI(t, args(a)...)
	if code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"strongly-convex (Thm 3.1)", "perfect (Thm 3.2)", "convex-strong (Thm 3.4)", "convex-weak (Thm 3.5)", "distributed (Thm 4.5)", "overall: PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	js, err := os.ReadFile(filepath.Join(a, "d2d-accuracy.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := reports.ReadReproduction(bytes.NewReader(js), "d2d-accuracy.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Datasets) != 1 || len(rep.Datasets[0].Curves) != 5 || rep.Summary.Verdict != "PASS" || len(rep.Inputs) != 1 {
		t.Fatalf("unexpected reproduction: %d datasets, summary %+v, %d inputs", len(rep.Datasets), rep.Summary, len(rep.Inputs))
	}
	for _, c := range rep.Datasets[0].Curves {
		if want := map[string]int{"convex-weak": 5, "distributed": 10}[c.Method]; want != 0 && c.Updates != want || want == 0 && c.Updates != 100 {
			t.Errorf("%s: %d updates", c.Method, c.Updates)
		}
		if c.Points[len(c.Points)-1].Round != c.Updates {
			t.Errorf("%s: last checkpoint %d, want %d", c.Method, c.Points[len(c.Points)-1].Round, c.Updates)
		}
	}
	md, err := os.ReadFile(filepath.Join(a, "d2d-accuracy.md"))
	if err != nil || !strings.Contains(string(md), "![breast-cancer](d2d-accuracy-breast-cancer.svg)") {
		t.Errorf("markdown missing or without the figure (err %v)", err)
	}

	out2, _, code := runCLI(t, args(b, "--json")...)
	if code != exitPass {
		t.Fatalf("second run: exit %d", code)
	}
	if out2 != string(js) {
		t.Error("--json output differs from d2d-accuracy.json")
	}
	for _, f := range []string{"d2d-accuracy.json", "d2d-accuracy.md", "d2d-accuracy-breast-cancer.svg", "d2d-accuracy-breast-cancer.png", "d2d-accuracy-breast-cancer.pdf"} {
		x, errA := os.ReadFile(filepath.Join(a, f))
		y, errB := os.ReadFile(filepath.Join(b, f))
		if errA != nil || errB != nil || len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s: differs between two runs with the same seed (errors %v, %v)", f, errA, errB)
		}
	}
}

func TestReproduceUsageErrors(t *testing.T) {
	datasets := testenv.SharedDatasets(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce"}, "name an experiment"},
		{[]string{"reproduce", "nope"}, `unknown experiment "nope"`},
		{[]string{"reproduce", "d2d-accuracy", "--datasets", filepath.Join(t.TempDir(), "missing")}, "not a directory"},
		{[]string{"reproduce", "d2d-accuracy", "--datasets", datasets, "--only", "iris"}, `unknown dataset "iris"`},
		{[]string{"reproduce", "d2d-accuracy", "--datasets", datasets, "--variants", "fast"}, `"fast"`},
		{[]string{"reproduce", "d2d-accuracy", "--datasets", datasets, "--formats", "gif"}, `"gif"`},
		{[]string{"reproduce", "d2d-accuracy", "--datasets", datasets, "--draws", "1"}, "--draws 1"},
		{[]string{"reproduce", "d2d-accuracy", "--datasets", datasets, "--updates", "0"}, "--updates 0"},
		{[]string{"reproduce", "d2d-accuracy", "--datasets", datasets, "--beta", "1"}, "--beta 1"},
		{[]string{"reproduce", "d2d-accuracy", "--datasets", datasets, "--schedule", "weekly"}, `"weekly"`},
		{[]string{"reproduce", "d2d-accuracy", "--datasets", t.TempDir(), "--only", "breast-cancer"}, "breast_cancer.csv"},
	} {
		_, errOut, code := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errOut, tc.want)
		}
	}
}
