package audit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/canary"
)

// A plan file longer than any plan of MaxCanaries canaries is refused by its size,
// having read no more than the bound, before any parsing.
func TestReadCanaryPlanRefusesOversizedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, make([]byte, 4*canary.MaxCanaries+4096+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := canary.ReadCanaryPlan(path)
	if err == nil || !strings.Contains(err.Error(), "larger than") || !strings.Contains(err.Error(), path) {
		t.Fatalf("ReadCanaryPlan of an oversized file: %v, want a size refusal naming %s", err, path)
	}
}
