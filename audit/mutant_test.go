package audit

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// A Mutant replaces only the unlearned run: its retrain and claim are its subject's, and
// its name and fingerprint differ from its subject's, so the engine keeps its trials apart.
func TestMutant(t *testing.T) {
	g := gausstest.New(3, 0.05, 0.5)
	m := Mutant{Of: g, Bug: "no-noise", Run: func(_ context.Context, st reference.Streams) (reference.Release, error) {
		return reference.Release{Published: []float64{7, 7, 7}}, nil
	}}
	st := reference.Streams{Seed: 1, Trial: 2}
	u, _ := m.Unlearned(context.Background(), st)
	r, _ := m.Retrained(context.Background(), st)
	want, _ := g.Retrained(context.Background(), st)
	if u.Published[0] != 7 || r.Published[0] != want.Published[0] {
		t.Errorf("unlearned %v (want the bug's), retrained %v (want the subject's %v)", u.Published, r.Published, want.Published)
	}
	if m.Name() != "gauss~no-noise" || m.Claim().Rho != g.Claim().Rho {
		t.Errorf("name %q, claim %+v", m.Name(), m.Claim())
	}
	if trials.Fingerprint(m) == trials.Fingerprint(g) {
		t.Error("the mutant's fingerprint is its subject's: their trials would share a checkpoint")
	}
	if _, batch := any(m).(trials.BatchSubject); batch {
		t.Error("a Mutant is a BatchSubject: RunTrials would bypass its buggy run")
	}
}

// streamed is a Gaussian subject naming a noise stream.
type streamed struct{ gausstest.Subject }

func (streamed) NoiseStream() string        { return "gen/v2" }
func (streamed) UnnamedNoiseStream() string { return "the old generator" }

// A Mutant's runs draw its subject's noise, so its checkpoints name its subject's stream:
// a control's checkpoint of another stream is refused as the subject's is, and one of a
// subject naming no stream names none. Planted: Mutant without NoiseStream (as it was)
// names no stream, and its checkpoint of the old generator would be resumed.
func TestMutantNamesItsSubjectsNoiseStream(t *testing.T) {
	run := func(_ context.Context, st reference.Streams) (reference.Release, error) {
		return reference.Release{Published: []float64{7, 7, 7}}, nil
	}
	for _, c := range []struct {
		of            trials.Subject
		want, unnamed string
	}{
		{streamed{gausstest.New(3, 0.05, 0.5)}, "gen/v2", "the old generator"},
		{gausstest.New(3, 0.05, 0.5), "", ""},
	} {
		stream, unnamed := trials.NoiseStreamOf(Mutant{Of: c.of, Bug: "no-noise", Run: run})
		if stream != c.want || unnamed != c.unnamed {
			t.Errorf("a mutant of %s names the stream %q (%q); want %q (%q)", c.of.Name(), stream, unnamed, c.want, c.unnamed)
		}
	}
	// end to end: the control's checkpoint, its stream edited to another, is refused
	ctx := context.Background()
	m := Mutant{Of: streamed{gausstest.New(3, 0.05, 0.5)}, Bug: "no-noise", Run: run}
	path := trials.CheckpointPath(t.TempDir(), m, 3)
	if _, err := (trials.Engine{Checkpoint: path}).Run(ctx, m, 3, 4); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(b), `"noise":"gen/v2"`, `"noise":"gen/v1"`, 1)
	if old == string(b) {
		t.Fatalf("the control's checkpoint does not name its stream: %s", b)
	}
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	var ce *trials.CheckpointError
	if _, err := (trials.Engine{Checkpoint: path}).Run(ctx, m, 3, 4); !errors.As(err, &ce) {
		t.Fatalf("a control's checkpoint of another stream: %v; want a CheckpointError", err)
	}
}
