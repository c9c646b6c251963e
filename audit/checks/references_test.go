package checks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/artifact"
	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/audit/verify"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// With reference models, the U-LiRA aggregate joins the scores route's family and decides
// where a mean over the records cannot: the records' losses have spreads of 10 and 0.1
// (testdata/references, written by NumPy), so a shift of −0.1 on every record is lost in
// the mean loss (the game without references does not FAIL) and found by LiRA's per-record
// fits (FAIL, the U-LiRA aggregate named as the deciding statistic). Planted bug caught: the
// IN/OUT mask read one record off (the game no longer FAILs). The orientation of the scores
// does not matter here: negating every score mirrors the fits and leaves each ratio as it is.
func TestULiRAStatistic(t *testing.T) {
	dir := filepath.Join("..", "testdata", "references")
	load := func(name string) *mat.Dense {
		m, _, err := artifact.LoadSample(filepath.Join(dir, name), reference.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	u, r := load("unlearned.npy"), load("retrained.npy")
	s := &spec.Spec{Epsilon: 1, Delta: 1e-3, Confidence: 0.95, PowerAgainst: 2, Seed: 1}
	_, fs, err := verify.VerifyScores(context.Background(), u, r, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("without references: %s, ε ≥ %.3g: %s", fs[0].Verdict, fs[0].Measured, fs[0].Detail)
	if fs[0].Verdict == verdict.Fail {
		t.Fatalf("the mean loss alone FAILs this pair; the fixture no longer tests what U-LiRA adds")
	}
	if s.References, err = checks.LoadReferences(filepath.Join(dir, "references.npz"), reference.Limits{}); err != nil {
		t.Fatal(err)
	}
	_, fs, err = verify.VerifyScores(context.Background(), u, r, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with references: %s, ε ≥ %.3g: %s", fs[0].Verdict, fs[0].Measured, fs[0].Detail)
	if fs[0].Verdict != verdict.Fail || !strings.Contains(fs[0].Detail, "The check: decided by the U-LiRA aggregate") {
		t.Fatalf("with references: %s; want a FAIL decided by the U-LiRA aggregate", fs[0].Verdict)
	}
}

// Bad reference files are refused naming the file and what is wrong.
func TestLoadReferencesRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		want string
	}{
		{"missing.npz", "load references"},
		{"one.npz", `want two arrays, "in"`},
	} {
		path := filepath.Join(dir, c.name)
		if c.name == "one.npz" {
			b, _ := os.ReadFile(filepath.Join("..", "..", "cmd", "audit", "testdata", "verify", "scores_good.npz"))
			os.WriteFile(path, b, 0o644)
		}
		if _, err := checks.LoadReferences(path, reference.Limits{}); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: %v; want an error naming the file and %q", c.name, err, c.want)
		}
	}
}
