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
// runs, passes the experiment's error on, and writes the files of a run.
func TestReproduce(t *testing.T) {
	runs := 0
	e := audit.Experiment{Name: "x", Run: func(context.Context, audit.ExperimentEnv, audit.Args) (*verdict.Reproduced, error) {
		runs++
		return &verdict.Reproduced{Files: map[string][]byte{"x.json": []byte("{}\n"), "x.md": []byte("# x\n")}, Text: "ran\n", Verdict: verdict.Pass}, nil
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
	res, err := Reproduce(context.Background(), e, audit.Args{}, audit.ExperimentEnv{}, open(dir), "")
	if err != nil || res.Text != "ran\n" {
		t.Fatalf("Reproduce = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x.md")); string(b) != "# x\n" {
		t.Errorf("x.md holds %q, want the experiment's", b)
	}
	boom := errors.New("boom")
	e.Run = func(context.Context, audit.ExperimentEnv, audit.Args) (*verdict.Reproduced, error) { return nil, boom }
	if _, err := Reproduce(context.Background(), e, audit.Args{}, audit.ExperimentEnv{}, open(t.TempDir()), ""); !errors.Is(err, boom) {
		t.Errorf("an experiment's error: %v; want it passed on", err)
	}
}
