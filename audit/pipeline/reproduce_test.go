package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// reproducer is a method with experiments and nothing else.
type reproducer struct{ es []audit.Experiment }

func (reproducer) Name() string                      { return "repro" }
func (reproducer) Summary() string                   { return "has experiments" }
func (r reproducer) Experiments() []audit.Experiment { return r.es }

// The list of experiments names each one once, at the start of a line, and keeps every
// line within the help's width however long a summary is.
func TestWriteExperiments(t *testing.T) {
	long := strings.Repeat("a summary long enough to wrap ", 10)
	m := reproducer{[]audit.Experiment{{Name: "repro-short", Summary: "one line"}, {Name: "repro-a-longer-name", Summary: long}}}
	audit.MustRegister(m)
	t.Cleanup(func() { audit.Deregister(m.Name()) })
	var b bytes.Buffer
	WriteExperiments(&b)
	for _, e := range m.es {
		if n := strings.Count("\n"+b.String(), "\n  "+e.Name+" "); n != 1 {
			t.Errorf("%s is listed %d times at a line's start:\n%s", e.Name, n, b.String())
		}
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("the long summary was not wrapped:\n%s", b.String())
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 96 {
			t.Errorf("a line of %d characters, want at most 96: %q", utf8.RuneCountInString(l), l)
		}
	}
}

// Reproduce refuses a folder holding a NAME.json it did not write before the experiment
// runs, passes the experiment's error on, and writes the files of a run, rendered from
// the values the experiment returned and dated.
func TestReproduce(t *testing.T) {
	runs := 0
	e := audit.Experiment{Name: "x", Run: func(_ context.Context, env audit.ExperimentEnv, _ audit.Args) (*reports.Reproduction, error) {
		runs++
		rep := reports.NewReproduction(env.Version, "x", "X")
		rep.Plot("x-fig", reports.Figure{Title: "f", Series: []reports.Series{{Name: "s", X: []float64{0, 1}, Y: []float64{1, 2}}}}, []string{"svg"})
		return rep, nil
	}}
	open := func(dir string) *outdir.Dir {
		d, err := outdir.Open(dir, outdir.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "x.json"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	var fe *outdir.ForeignError
	if _, err := Reproduce(context.Background(), e, audit.Args{}, audit.ExperimentEnv{}, open(foreign), ""); !errors.As(err, &fe) || runs != 0 {
		t.Errorf("a folder with another x.json: %v after %d runs; want a ForeignError before any", err, runs)
	}
	dir := t.TempDir()
	res, err := Reproduce(context.Background(), e, audit.Args{}, audit.ExperimentEnv{Out: dir}, open(dir), "2025-03-01")
	if err != nil || res.Verdict != verdict.Inconclusive {
		t.Fatalf("Reproduce = %+v, %v; want the rendered run, INCONCLUSIVE (nothing judged)", res, err)
	}
	for _, name := range []string{"x.json", "x.md", "x-fig.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(b, res.Files[name]) {
			t.Errorf("%s: %v; want the rendered file written", name, err)
		}
	}
	if !strings.Contains(string(res.Files["x.md"]), "Audit date: 2025-03-01") || !strings.Contains(string(res.JSON), `"x-fig.svg"`) {
		t.Errorf("the results are not dated, or do not list the figure:\n%s", res.JSON)
	}
	boom := errors.New("boom")
	e.Run = func(context.Context, audit.ExperimentEnv, audit.Args) (*reports.Reproduction, error) {
		return nil, boom
	}
	if _, err := Reproduce(context.Background(), e, audit.Args{}, audit.ExperimentEnv{}, open(t.TempDir()), ""); !errors.Is(err, boom) {
		t.Errorf("an experiment's error: %v; want it passed on", err)
	}
}
