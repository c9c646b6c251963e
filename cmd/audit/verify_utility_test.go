package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// utilityOf reads the first subject's utility rows and the summary of a report.json.
func utilityOf(t *testing.T, dir string) (rows []map[string]any, summary map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Summary  map[string]any
		Subjects []struct {
			Utility *struct{ Rows []map[string]any }
		}
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if u := rep.Subjects[0].Utility; u != nil {
		rows = u.Rows
	}
	return rows, rep.Summary
}

// --utility on the scores route: the report carries each array's measurement, its verdict
// and tallies are those of the same audit without it, and an array of another model count
// is refused naming it. By hand: 40 unlearned models each right on 1 of 2 test records
// (accuracy ½, SD 0); retrained test losses 0 and 2 alternating by model (mean 1, SD
// 1.0127 = √(40/39)).
func TestVerifyUtilityFile(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 0.5, "delta": 1e-3}}`), 0o644)
	correct, loss := make([]float64, 80), make([]float64, 40)
	for i := range 40 {
		correct[2*i] = 1
		loss[i] = float64(2 * (i % 2))
	}
	util := filepath.Join(dir, "utility.npz")
	writeNPZ(t, util, map[string][]byte{"unlearned_test_correct": npyF8(40, 2, correct), "retrained_test_loss": npyF8(40, 1, loss)})
	short := filepath.Join(dir, "short.npz")
	writeNPZ(t, short, map[string][]byte{"unlearned_test_correct": npyF8(39, 2, correct[:78])})
	models := filepath.Join("testdata", "verify")
	args := func(out string, extra ...string) []string {
		return append([]string{"verify", "--scores", "--spec", spec, "--unlearned", filepath.Join(models, "scores_good.npz"),
			"--retrained", filepath.Join(models, "scores_retrained.npz"), "--out", filepath.Join(dir, out)}, extra...)
	}
	_, _, plainCode := runCLI(t, args("plain")...)
	stdout, stderr, code := runCLI(t, args("with", "--utility", util)...)
	if code != plainCode {
		t.Fatalf("exit %d with utility, %d without: %s %s", code, plainCode, stdout, stderr)
	}
	for _, want := range []string{"\nutility of verify/d2d (a measurement, no verdict; mean ± SD over models, models × records):\n",
		"\n  test loss: unlearned —; retrained 1 ± 1.01274 (40 × 1); unlearned − retrained —\n",
		"\n  test accuracy: unlearned 0.5 ± 0 (40 × 2); retrained —; unlearned − retrained —\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the console lacks %q:\n%s", want, stdout)
		}
	}
	rows, summary := utilityOf(t, filepath.Join(dir, "with"))
	_, plain := utilityOf(t, filepath.Join(dir, "plain"))
	if !equalJSON(summary, plain) {
		t.Errorf("summary with utility %v, without %v; want the same", summary, plain)
	}
	want := []struct {
		set, measure, side string
		mean, sd           float64
	}{{"test", "loss", "retrained", 1, math.Sqrt(40.0 / 39)}, {"test", "accuracy", "unlearned", 0.5, 0}}
	if len(rows) != len(want) {
		t.Fatalf("utility rows %v; want %d", rows, len(want))
	}
	for i, w := range want {
		r := rows[i]
		if r["set"] != w.set || r["measure"] != w.measure || r["side"] != w.side || math.Abs(r["mean"].(float64)-w.mean) > 1e-12 || math.Abs(r["sd"].(float64)-w.sd) > 1e-12 {
			t.Errorf("row %d: %v; want %+v", i, r, w)
		}
	}
	_, stderr, code = runCLI(t, args("short", "--utility", short)...)
	if code != exitUsage || !strings.Contains(stderr, "unlearned_test_correct scores 39 models; the unlearned models audited are 40") {
		t.Errorf("39 models: exit %d, %s", code, stderr)
	}
	// a value that is no correctness is refused before anything else is read: before the
	// missing retrained scores are found missing
	bad := filepath.Join(dir, "bad.npz")
	correct[3] = 0.5
	writeNPZ(t, bad, map[string][]byte{"unlearned_test_correct": npyF8(40, 2, correct)})
	early := args("bad", "--utility", bad)
	early[slices.Index(early, "--retrained")+1] = filepath.Join(dir, "missing.npz")
	_, stderr, code = runCLI(t, early...)
	if code != exitUsage || !strings.Contains(stderr, "unlearned_test_correct: model 1, record 1 is 0.5; want 1 (correct) or 0") {
		t.Errorf("0.5 correct: exit %d, %s", code, stderr)
	}
}

// equalJSON compares two decoded JSON values.
func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// --utility-from-data on linear models, by hand: records x = +1 labelled +1 and x = −1
// labelled −1 (IDs 0…19, record 0 deleted); unlearned models w = c > 0 classify every record
// right, with loss ln(1 + e^(−c)) on each; retrained ones w = −c every record wrong, with
// loss ln(1 + e^c). Refused on the scores route and without deletes.
func TestVerifyUtilityFromData(t *testing.T) {
	dir := t.TempDir()
	var data strings.Builder
	for i := range 20 {
		if i%2 == 0 {
			data.WriteString("1,1\n")
		} else {
			data.WriteString("-1,-1\n")
		}
	}
	os.WriteFile(filepath.Join(dir, "d.csv"), []byte(data.String()), 0o644)
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "linear"}, "data": {"file": "d.csv", "format": "csv", "preprocessing": "none"}, "deletes": [0], "claim": {"epsilon": 1, "delta": 1e-5}}`), 0o644)
	var un, re strings.Builder
	var lossU, lossR float64
	for i := range 8 {
		c := 0.5 + 0.25*float64(i)
		un.WriteString(strconv.FormatFloat(c, 'g', -1, 64) + "\n")
		re.WriteString(strconv.FormatFloat(-c, 'g', -1, 64) + "\n")
		lossU += math.Log1p(math.Exp(-c)) / 8
		lossR += math.Log1p(math.Exp(c)) / 8
	}
	os.WriteFile(filepath.Join(dir, "u.csv"), []byte(un.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "r.csv"), []byte(re.String()), 0o644)
	stdout, stderr, code := runCLI(t, "verify", "--spec", spec, "--unlearned", filepath.Join(dir, "u.csv"), "--retrained", filepath.Join(dir, "r.csv"),
		"--utility-from-data", "--out", filepath.Join(dir, "out"))
	if code == exitUsage {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	rows, _ := utilityOf(t, filepath.Join(dir, "out"))
	want := map[string]float64{
		"forget loss unlearned": lossU, "forget loss retrained": lossR, "retain loss unlearned": lossU, "retain loss retrained": lossR,
		"forget accuracy unlearned": 1, "forget accuracy retrained": 0, "retain accuracy unlearned": 1, "retain accuracy retrained": 0,
	}
	if len(rows) != len(want) {
		t.Fatalf("utility rows %v; want %d", rows, len(want))
	}
	for _, r := range rows {
		key := r["set"].(string) + " " + r["measure"].(string) + " " + r["side"].(string)
		records := 19.0
		if r["set"] == "forget" {
			records = 1
		}
		if w, ok := want[key]; !ok || math.Abs(r["mean"].(float64)-w) > 1e-12 || r["records"].(float64) != records {
			t.Errorf("%s: %v; want mean %v over %v records", key, r, w, records)
		}
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--scores"}, "--utility-from-data computes losses from model weights"},
	} {
		args := append([]string{"verify", "--spec", spec, "--unlearned", filepath.Join(dir, "u.csv"), "--retrained", filepath.Join(dir, "r.csv"), "--utility-from-data", "--out", filepath.Join(dir, "refused")}, c.args...)
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, stderr, c.says)
		}
	}
	bare := filepath.Join(dir, "bare.json")
	os.WriteFile(bare, []byte(`{"claim": {"epsilon": 1, "delta": 1e-5}}`), 0o644)
	_, stderr, code = runCLI(t, "verify", "--spec", bare, "--unlearned", filepath.Join(dir, "u.csv"), "--retrained", filepath.Join(dir, "r.csv"), "--utility-from-data", "--out", filepath.Join(dir, "refused"))
	if code != exitUsage || !strings.Contains(stderr, "--utility-from-data needs the spec's data and deletes") {
		t.Errorf("no data: exit %d, %q", code, stderr)
	}
}
