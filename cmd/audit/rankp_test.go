package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// One model whose deleted records' mean loss is below all of 20 retrains: on the default,
// conservative rank p-value (1/21 > t = 0.049/e) it is INCONCLUSIVE at every spec seed;
// the randomised p-value, asked for by --rank-p or the spec's rank_p, FAILs it at seed 1
// (its tie-breaker 0.17 ≤ 21t) and names itself; --rank-p conservative overrides the
// spec's choice. Planted bug caught: the flag parsed but not applied (exit 3 at seed 1).
func TestVerifyRankP(t *testing.T) {
	dir := t.TempDir()
	one := writeGaussian(t, dir, "one.csv", 1, 5, -20, 1)
	refs := writeGaussian(t, dir, "refs.csv", 20, 5, 0, 2)
	run := func(spec string, want int, flags ...string) string {
		t.Helper()
		p := writeSpec(t, dir, "spec.json", spec)
		args := append([]string{"verify", "--spec", p, "--scores", "--unlearned", one, "--retrained", refs, "--out", filepath.Join(dir, "out"), "--force"}, flags...)
		out, errOut, code := runCLI(t, args...)
		if code != want {
			t.Fatalf("%s %v: exit %d, want %d\n%s%s", spec, flags, code, want, out, errOut)
		}
		return out
	}
	for seed := 1; seed <= 3; seed++ {
		out := run(fmt.Sprintf(`{"claim": {"epsilon": 1, "delta": 1e-3}, "seed": %d}`, seed), exitInconclusive)
		if strings.Contains(out, "randomised") {
			t.Errorf("seed %d, default p-value: %s", seed, out)
		}
	}
	out := run(`{"claim": {"epsilon": 1, "delta": 1e-3}, "seed": 1}`, exitFail, "--rank-p", "randomised")
	if !strings.Contains(out, "randomised p-value") {
		t.Errorf("--rank-p randomised: the finding does not name it:\n%s", out)
	}
	run(`{"claim": {"epsilon": 1, "delta": 1e-3}, "seed": 1, "rank_p": "randomised"}`, exitFail)
	run(`{"claim": {"epsilon": 1, "delta": 1e-3}, "seed": 1, "rank_p": "randomised"}`, exitInconclusive, "--rank-p", "conservative")
	_, errOut, code := runCLI(t, "verify", "--spec", filepath.Join(dir, "spec.json"), "--scores", "--unlearned", one, "--retrained", refs, "--rank-p", "random")
	if code != exitUsage || !strings.Contains(errOut, "--rank-p") {
		t.Errorf("--rank-p random: exit %d, %s; want a usage error naming the flag", code, errOut)
	}
}
