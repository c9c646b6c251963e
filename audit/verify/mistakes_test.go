package verify_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// References built by random halves (testdata/references: each of 64 references IN on
// about half of the 50 deleted records) are measured against the audited deletion of all
// 50 together, and the report says how they differ; references built as the audit deletes
// (all IN or all OUT) are said to match. Planted bug caught: counting a reference as
// matching when it is IN on any record (the random halves then "match").
func TestReferencesAgainstDeletion(t *testing.T) {
	dir := filepath.Join("..", "testdata", "references")
	refs, err := checks.LoadReferences(filepath.Join(dir, "references.npz"), reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	u, _, err := artifact.LoadSample(filepath.Join(dir, "unlearned.npy"), reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := artifact.LoadSample(filepath.Join(dir, "retrained.npy"), reference.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := &spec.Spec{Epsilon: 1, Delta: 1e-3, Confidence: 0.95, PowerAgainst: 2, Seed: 1, References: refs}
	_, fs, err := verify.VerifyScores(context.Background(), u, r, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[1].Check != "verify/measurement/references" || fs[1].Kind != verdict.Measurement {
		t.Fatalf("findings %v; want the game and the references' measurement", fs)
	}
	f := fs[1]
	if f.Measured != 0 || !strings.Contains(f.Detail, "64 mixed") || !strings.Contains(f.Detail, "not of the audited 50 together") {
		t.Errorf("random halves: measured %v, %q; want 0 matching and the difference named", f.Measured, f.Detail)
	}
	if fs[0].Verdict != verdict.Fail {
		t.Errorf("the game's verdict moved: %s", fs[0].Verdict)
	}

	matched := &checks.References{Scores: mat.NewDense(4, 3, nil), In: [][]bool{{true, true, true}, {true, true, true}, {false, false, false}, {false, false, false}}}
	if f := matched.AgainstDeletion(3); f.Measured != 1 || !strings.Contains(f.Detail, "follow the audited deletion") {
		t.Errorf("matched references: %v %q", f.Measured, f.Detail)
	}
	one := &checks.References{Scores: mat.NewDense(2, 3, nil), In: [][]bool{{true, true, true}, {true, false, false}}}
	if f := one.AgainstDeletion(3); f.Measured != 0.5 || !strings.Contains(f.Detail, "IN on 1 to 1 of the 3 records") {
		t.Errorf("one mixed: %v %q", f.Measured, f.Detail)
	}
}

// The holdout names records by the spec's deletes; without them it names columns and says
// so, and deletes that are not one a column are refused. Planted bug caught: naming a
// column "record" when the spec lists no deletes.
func TestHoldoutRecordIDs(t *testing.T) {
	forget := mat.NewDense(1, 3, []float64{0.1, 5, 0.3})
	holdout := mat.NewDense(1, 6, []float64{1, 2, 3, 4, 2.5, 1.5})
	s := &spec.Spec{Confidence: 0.95, Seed: 1}
	f, err := verify.VerifyHoldout(forget, holdout, s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Detail, "the most exposed is the record in column 0 (") || !strings.Contains(f.Detail, "not by an ID") {
		t.Errorf("no deletes: %q", f.Detail)
	}
	s.Deletes = []int64{17, 42, 99}
	if f, err = verify.VerifyHoldout(forget, holdout, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Detail, "the most exposed is record 17 (") || strings.Contains(f.Detail, "column") {
		t.Errorf("deletes: %q", f.Detail)
	}
	s.Deletes = []int64{17, 42}
	if _, err := verify.VerifyHoldout(forget, holdout, s); err == nil || !strings.Contains(err.Error(), "deletes lists 2 records") {
		t.Errorf("two deletes for three columns: %v", err)
	}
}
