package d2daudit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	_ "github.com/unlearnaudit/unlearnaudit/audit/d2daudit"
	"github.com/unlearnaudit/unlearnaudit/internal/audittest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// A short d2d-accuracy run on breast cancer: every file is written, the JSON reads back
// under its schema, the same seed gives byte-identical JSON and figures, and the JSON
// printed is the file's.
func TestReproduceD2DAccuracy(t *testing.T) {
	datasets := testenv.Datasets(t)
	args := []string{"--datasets", datasets, "--only", "breast-cancer", "--updates", "100",
		"--weak-updates", "5", "--dist-updates", "10", "--draws", "200", "--formats", "svg,png,pdf"}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	res, err := audittest.Reproduce(t, "d2d-accuracy", a, args...)
	if err != nil || res.Verdict != verdict.Pass {
		t.Fatalf("error %v\n%s", err, audittest.Summary(res))
	}
	out := res.Text
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
		for _, f := range c.Findings { // an accuracy bound states its slack, and 100× or more is not judged
			if strings.HasSuffix(f.Check, "/bound") && f.Verdict == "PASS" &&
				(!(f.Slack >= 1) || !strings.Contains(f.Detail, "measured/bound = ") || f.Reported != (f.Slack >= reports.SlackLimit)) {
				t.Errorf("%s: slack %v, reported %v, detail %q", f.Check, f.Slack, f.Reported, f.Detail)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(a, "d2d-accuracy.md"))
	if err != nil || !strings.Contains(string(md), "![breast-cancer](d2d-accuracy-breast-cancer.svg)") {
		t.Errorf("markdown missing or without the figure (err %v)", err)
	}

	again, err := audittest.Reproduce(t, "d2d-accuracy", b, args...)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if !bytes.Equal(res.JSON, js) || !bytes.Equal(again.JSON, js) {
		t.Error("the JSON printed differs from d2d-accuracy.json")
	}
	for _, f := range []string{"d2d-accuracy.json", "d2d-accuracy.md", "d2d-accuracy-breast-cancer.svg", "d2d-accuracy-breast-cancer.png", "d2d-accuracy-breast-cancer.pdf"} {
		x, errA := os.ReadFile(filepath.Join(a, f))
		y, errB := os.ReadFile(filepath.Join(b, f))
		if errA != nil || errB != nil || len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s: differs between two runs with the same seed (errors %v, %v)", f, errA, errB)
		}
	}
}

// Bad settings and missing data are refused before anything runs, naming what is wrong.
func TestReproduceUsageErrors(t *testing.T) {
	datasets := testenv.Datasets(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--datasets", filepath.Join(t.TempDir(), "missing")}, "not a directory"},
		{[]string{"--datasets", datasets, "--only", "iris"}, `unknown dataset "iris"`},
		{[]string{"--datasets", datasets, "--variants", "fast"}, `"fast"`},
		{[]string{"--datasets", datasets, "--formats", "gif"}, `"gif"`},
		{[]string{"--datasets", datasets, "--draws", "1"}, "--draws 1"},
		{[]string{"--datasets", datasets, "--updates", "0"}, "--updates 0"},
		{[]string{"--datasets", datasets, "--beta", "1"}, "--beta 1"},
		{[]string{"--datasets", datasets, "--schedule", "weekly"}, `"weekly"`},
		{[]string{"--datasets", t.TempDir(), "--only", "breast-cancer"}, "breast_cancer.csv"},
	} {
		if _, err := audittest.Reproduce(t, "d2d-accuracy", t.TempDir(), tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v; want one mentioning %q", tc.args, err, tc.want)
		}
	}
}
