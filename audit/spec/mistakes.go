package spec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// CheckModels refuses files read as models (verify without --scores) that are per-record
// scores: when the spec states "scores", or when, without the spec's data to check the
// models' width against, the files have one column per deleted record (the spec's
// deletes). Read as models, a loss matrix of 75 deleted records would be audited as
// models of 75 "parameters"; the error names the flag to add. spec is the spec's file,
// flag and file the models' own.
func (s *Spec) CheckModels(spec, flag, file string, width int) error {
	if s.ScoresGiven {
		return fmt.Errorf("%s: field scores (%q) says the files are per-record scores: add --scores (without it %s %s is read as models of %d parameters)",
			spec, map[checks.ScoreKind]string{checks.LossScores: "loss", checks.ConfidenceScores: "confidence"}[s.Scores], flag, file, width)
	}
	if s.Data.File == "" && len(s.Deletes) > 0 && width == len(s.Deletes) {
		return fmt.Errorf("%s %s: %d columns, one per deleted record of the spec's deletes: per-record scores, not models; add --scores. Models of %d parameters are read as such when the spec gives the data they were trained on (data.file) or no deletes, which the parameter route without data does not use",
			flag, file, width, width)
	}
	return nil
}

// CheckScoreColumns checks that a scores matrix (models × records) has one column per
// record of the spec's deletes, when it lists them: the columns are those records, in
// that order, and name them in the report. A matrix with one row per deleted record is
// named transposed.
func (s *Spec) CheckScoreColumns(flag, file string, m *mat.Dense) error {
	k := len(s.Deletes)
	if k == 0 {
		return nil
	}
	r, c := m.Dims()
	if c == k {
		return nil
	}
	msg := fmt.Sprintf("%s %s: %d × %d scores; the spec's deletes lists %d records, one a column in its order", flag, file, r, c, k)
	if r == k {
		msg += ": the file looks transposed (a row a record): save it models × records (scores.T)"
	}
	return errors.New(msg)
}

// TransposedHint is what sameColumns adds when one side's rows match the other's
// columns: that side looks transposed.
func TransposedHint(unlearned, retrained *mat.Dense) string {
	nu, du := unlearned.Dims()
	nr, dr := retrained.Dims()
	var sides []string
	if nu == dr && nu != du {
		sides = append(sides, fmt.Sprintf("the unlearned file has %d rows, as many as the retrained one has columns", nu))
	}
	if nr == du && nr != dr {
		sides = append(sides, fmt.Sprintf("the retrained file has %d rows, as many as the unlearned one has columns", nr))
	}
	switch len(sides) {
	case 0:
		return ""
	case 2:
		return "; " + strings.Join(sides, ", and ") + ": one of them looks transposed (a row is a model: save it with .T; the spec's deletes, one a column, would say which)"
	}
	return "; " + sides[0] + ": it looks transposed (a row is a model: save it with .T)"
}

// NameCell names a non-finite value of a matrix file that verify read (a
// reference.CellError) by what its row and column are: a model (the row) and, for the
// deleted records' scores (recordIDs), the record's ID from the spec's deletes, or its
// column when the spec lists none or the file does not have one column per deleted
// record; what says what the columns are otherwise ("held-out record"). Other errors
// are returned as they are.
func (s *Spec) NameCell(err error, what string, recordIDs bool) error {
	var ce *reference.CellError
	if !errors.As(err, &ce) {
		return err
	}
	col := fmt.Sprintf("%s in column %d", what, ce.Col)
	if recordIDs {
		switch {
		case len(s.Deletes) == ce.Cols:
			col = fmt.Sprintf("deleted record %d (column %d, deletes[%d])", s.Deletes[ce.Col], ce.Col, ce.Col)
		case len(s.Deletes) == 0:
			col = fmt.Sprintf("the deleted record in column %d (the spec lists no deletes to name its ID)", ce.Col)
		default:
			col = fmt.Sprintf("the record in column %d (of %d; the spec's deletes lists %d)", ce.Col, ce.Cols, len(s.Deletes))
		}
	}
	return fmt.Errorf("model %d (row %d), %s: %w", ce.Row, ce.Row, col, err)
}
