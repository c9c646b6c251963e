package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports"
)

// reproduce without an experiment, or with an unknown one, is bad usage and lists the
// experiments.
func TestReproduceUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce"}, "name an experiment"},
		{[]string{"reproduce", "nope"}, `unknown experiment "nope"`},
	} {
		_, errOut, code := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "d2d-accuracy") || !strings.Contains(errOut, "sglu-table3") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q and the experiments", tc.args, code, errOut, tc.want)
		}
	}
}

// A reproduction that judges nothing (sglu-fig3d reports its tables) shows nothing: it
// exits 3, INCONCLUSIVE, and says so — never 0.
func TestReproduceNothingJudgedIsInconclusive(t *testing.T) {
	out, errOut, code := runCLI(t, "reproduce", "sglu-fig3d", "--requests", "3", "--formats", "svg", "--out", t.TempDir())
	if code != exitInconclusive || !strings.Contains(out, "overall: INCONCLUSIVE (nothing judged)") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 3 saying nothing was judged", code, out, errOut)
	}
}

// A reproduction states the day it ran, --date's over SOURCE_DATE_EPOCH's, in its JSON
// and its Markdown; a bad --date is bad usage, before the experiment runs.
func TestReproduceDated(t *testing.T) {
	t.Setenv(reports.SourceDateEpoch, "1700000000") // 2023-11-14
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "2023-11-14"}, {[]string{"--date", "2025-01-02"}, "2025-01-02"}} {
		dir := t.TempDir()
		_, errOut, code := runCLI(t, append([]string{"reproduce", "sglu-table3", "--out", dir}, c.args...)...)
		if code != exitPass {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		js, err1 := os.ReadFile(filepath.Join(dir, "sglu-table3.json"))
		md, err2 := os.ReadFile(filepath.Join(dir, "sglu-table3.md"))
		if err1 != nil || err2 != nil || !strings.Contains(string(js), `"date": "`+c.want+`"`) || !strings.Contains(string(md), "Audit date: "+c.want) {
			t.Errorf("%v: want the date %s in the JSON and the Markdown (%v, %v)", c.args, c.want, err1, err2)
		}
	}
	out := filepath.Join(t.TempDir(), "x")
	if _, errOut, code := runCLI(t, "reproduce", "sglu-table3", "--date", "2025-1-2", "--out", out); code != exitUsage || !strings.Contains(errOut, "--date") {
		t.Errorf("--date 2025-1-2: exit %d, %q; want 2 naming --date", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused --date left %s (%v)", out, err)
	}
}
