package verify

import (
	"fmt"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// VerifyHoldout is HoldoutMembership on score files: the first unlearned model's scores on
// the deleted records (row 0 of unlearned) against its scores on held-out records (row 0
// of holdout, which scores the same models in the same order), oriented by s.Scores so that
// higher is more member-like; the records are named by s.Deletes, which must then list one
// a column (CheckScoreColumns), else by their column, and the finding says so: a column
// is not a record ID.
func VerifyHoldout(unlearned, holdout *mat.Dense, s *spec.Spec) (verdict.Finding, error) {
	if err := checks.CheckHoldout(unlearned, holdout); err != nil {
		return verdict.Finding{}, err
	}
	if err := s.CheckScoreColumns("verify:", "--unlearned", unlearned); err != nil {
		return verdict.Finding{}, err
	}
	_, k := unlearned.Dims()
	ids := make([]int64, k)
	for j := range ids {
		ids[j] = int64(j)
		if len(s.Deletes) == k {
			ids[j] = s.Deletes[j]
		}
	}
	sign := s.Scores.MemberSign()
	u, h := unlearned.RawRowView(0), holdout.RawRowView(0)
	u, h = floats.ScaleTo(make([]float64, len(u)), sign, u), floats.ScaleTo(make([]float64, len(h)), sign, h)
	f, err := checks.HoldoutMembership(u, h, ids, s.Confidence, s.Seed)
	if err != nil || len(s.Deletes) > 0 {
		return f, err
	}
	top := f.Membership.Records[0].ID
	f.Detail = strings.Replace(f.Detail, fmt.Sprintf("the most exposed is record %d (", top),
		fmt.Sprintf("the most exposed is the record in column %d (", top), 1)
	f.Detail += "; the spec lists no deletes, so records are named by their column (0-based), not by an ID: give deletes, one a column in order, to name them"
	return f, nil
}
