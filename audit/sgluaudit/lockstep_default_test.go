package sgluaudit_test

import (
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/sgluaudit"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
)

// The method's subjects run their trials in lockstep unless told not to (issue 44: lockstep
// where it applies, and it applies to every subject the method builds: logistic regression
// without clipping, replacement removals); --sglu-lockstep 0 runs them one at a time.
// Planted: the default put back to 0, and this fails.
func TestMethodRunsInLockstepByDefault(t *testing.T) {
	for _, c := range []struct {
		given string
		want  int
	}{{"", 32}, {"0", 0}, {"8", 8}} {
		args := audit.DefaultArgs(sgluaudit.Method{}.DemoParams())
		if c.given != "" {
			args.Set("sglu-lockstep", c.given)
		}
		a := decisiveAuditsWith(t, 1e-3, nil, args)[0]
		bs, ok := a.Subject.(trials.BatchSubject)
		if !ok {
			t.Fatalf("the SGLU subject is no trials.BatchSubject")
		}
		if got := bs.BatchSize(); got != c.want {
			t.Errorf("--sglu-lockstep %q: %d trials a batch, want %d", c.given, got, c.want)
		}
	}
}
