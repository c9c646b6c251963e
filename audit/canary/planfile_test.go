package canary

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/atomicfile"
)

// A plan written is the plan read back; a second plan is never written over the first
// (the refusal says why, and the first is unchanged); NumIncluded counts the canaries
// trained on.
func TestWritePlan(t *testing.T) {
	p, err := NewCanaryPlan(3, 200)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "canaries.json")
	if err := WritePlan(path, p); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCanaryPlan(path)
	if err != nil || !reflect.DeepEqual(back, p) {
		t.Fatalf("ReadCanaryPlan of the plan written = %+v, %v; want the plan", back, err)
	}
	before, _ := os.ReadFile(path)
	q, _ := NewCanaryPlan(4, 200)
	err = WritePlan(path, q)
	var nc *atomicfile.NotCreatedError
	if !errors.As(err, &nc) || !strings.HasSuffix(err.Error(), "(a plan is never overwritten: it must match the training run)") {
		t.Errorf("a second plan over the first: %v; want a refusal saying a plan is never overwritten", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the first plan changed")
	}
	n := 0
	for _, in := range p.Bits() {
		if in {
			n++
		}
	}
	if got := p.NumIncluded(); got != n || n == 0 || n == 200 {
		t.Errorf("NumIncluded = %d, want %d (of 200, some and not all)", got, n)
	}
}
