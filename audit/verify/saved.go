package verify

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// SavedSubject is a Subject over models already trained: trial i publishes row i of
// UnlearnedModels and of RetrainedModels (artifact.LoadSample reads them from disk). It lets the
// engine, its checks and a report treat models on disk like the toolkit's own runs —
// from `go test` (props.CheckSaved) or a program — with one rule: there are only as many
// trials as saved models, and a trial past them is an error, never a reuse.
type SavedSubject struct {
	Label           string        // the subject's name in reports
	Declared        verdict.Claim // the claim the models are audited against
	UnlearnedModels *mat.Dense    // one model a row
	RetrainedModels *mat.Dense
}

// NewSavedSubject checks that both samples hold as many models of as many parameters.
func NewSavedSubject(label string, claim verdict.Claim, unlearned, retrained *mat.Dense) (*SavedSubject, error) {
	if _, _, err := paired(unlearned, retrained, "saved subject "+label, "have %d parameters"); err != nil {
		return nil, err
	}
	return &SavedSubject{Label: label, Declared: claim, UnlearnedModels: unlearned, RetrainedModels: retrained}, nil
}

// Trials is the number of saved trials.
func (s *SavedSubject) Trials() int { n, _ := s.UnlearnedModels.Dims(); return n }

func (s *SavedSubject) Name() string { return s.Label }

// Params is the saved models' dimension (Dimensioned).
func (s *SavedSubject) Params() int { _, p := s.UnlearnedModels.Dims(); return p }

func (s *SavedSubject) Claim() verdict.Claim { return s.Declared }

func (s *SavedSubject) Unlearned(_ context.Context, st reference.Streams) (reference.Release, error) {
	return s.row(s.UnlearnedModels, st.Trial)
}

func (s *SavedSubject) Retrained(_ context.Context, st reference.Streams) (reference.Release, error) {
	return s.row(s.RetrainedModels, st.Trial)
}

func (s *SavedSubject) row(m *mat.Dense, i int) (reference.Release, error) {
	if i < 0 || i >= s.Trials() {
		return reference.Release{}, fmt.Errorf("saved subject %s: trial %d of %d saved models", s.Label, i, s.Trials())
	}
	return reference.Release{Published: mat.Row(nil, i, m)}, nil
}
