package logit

import (
	"os"
	"os/exec"
	"testing"
)

// HasAsm must hold only where math.Exp takes the FMA path the assembly repeats. math
// decides that with internal/cpu (AVX and FMA) and this package with x/sys/cpu; both read
// GODEBUG's cpu.* switches, so a switch that turns math's FMA path off must turn the
// assembly off too, or Derivs's bits leave Deriv's. Each case reruns TestDerivsMatchDeriv
// in a child process under that GODEBUG.
func TestDerivsMatchDerivUnderGODEBUG(t *testing.T) {
	if os.Getenv("LOGIT_GODEBUG_CHILD") != "" {
		t.Skip("in the child process")
	}
	for _, godebug := range []string{"cpu.avx=off", "cpu.fma=off", "cpu.avx2=off", "cpu.all=off"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDerivsMatchDeriv$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug, "LOGIT_GODEBUG_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GODEBUG=%s: %v\n%s", godebug, err, out)
		}
	}
}
