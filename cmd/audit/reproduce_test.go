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
