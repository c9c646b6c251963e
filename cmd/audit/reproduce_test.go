package main

import (
	"strings"
	"testing"
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
