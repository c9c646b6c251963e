package pipeline_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
)

// audit merge replays the parts' command with its own settings after theirs, and refuses
// a relative --spec from another folder than the parts'. Planted bugs caught: the relative
// spec accepted, the merge's --date placed before the parts' own.
func TestReplayArgv(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	s := pipeline.MergeSettings{Out: "o", Workers: 2, KeyArgs: []string{"--evidence-key=k"}, Quiet: true, JSON: true, Force: true, Date: "2026-01-01"}
	m := trials.ShardManifest{Dir: wd, Args: []string{"--spec=rel.json", "--date=2025-01-01"}}
	got, err := pipeline.ReplayArgv(m, s)
	want := []string{"--spec=rel.json", "--date=2025-01-01", "--out=o", "--workers=2", "--evidence-key=k", "--quiet", "--json", "--force", "--date=2026-01-01"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ReplayArgv = %q, %v; want %q", got, err, want)
	}
	m.Dir = filepath.Join(wd, "elsewhere")
	if _, err := pipeline.ReplayArgv(m, s); err == nil || !strings.Contains(err.Error(), "with a relative --spec; run the merge there too") {
		t.Errorf("relative spec from another folder: %v; want it refused", err)
	}
	m.Args[0] = "--spec=" + filepath.Join(wd, "abs.json")
	if _, err := pipeline.ReplayArgv(m, s); err != nil {
		t.Errorf("absolute spec from another folder: %v", err)
	}
}
