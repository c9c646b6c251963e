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

// audit merge warns when the parts ran on several architectures, or on another than the
// merge's: the report is then no one machine's, byte for byte. Parts that do not name
// theirs (older manifests) are not counted. Planted: comparing the parts with each other
// only (here ignored) fails the one-architecture-elsewhere case.
func TestArchWarning(t *testing.T) {
	set := func(archs ...string) *trials.ShardSet {
		s := &trials.ShardSet{}
		for i, a := range archs {
			sh := trials.Shard{Index: i, Count: len(archs)}
			s.Shards = append(s.Shards, trials.FoundShard{Shard: sh, Manifest: trials.ShardManifest{Shard: sh.String(), Arch: a}})
		}
		return s
	}
	for _, c := range []struct {
		archs []string
		here  string
		want  []string // "" for no warning
	}{
		{[]string{"amd64/v1", "amd64/v1"}, "amd64/v1", nil},
		{[]string{"", ""}, "arm64", nil},
		{[]string{"", "arm64"}, "arm64", nil},
		{[]string{"amd64/v1", "arm64", "amd64/v1"}, "amd64/v1", []string{"amd64/v1 (part 0/3, 2/3) and arm64 (part 1/3)", "merge runs on amd64/v1", "byte-identical"}},
		{[]string{"arm64", "arm64"}, "amd64/v1", []string{"ran on arm64 (part 0/2, 1/2) and this merge runs on amd64/v1"}},
		{[]string{"amd64/v1", "amd64/v3"}, "amd64/v3", []string{"amd64/v1 (part 0/2) and amd64/v3 (part 1/2)"}},
	} {
		got := pipeline.ArchWarning(set(c.archs...), c.here)
		if (got == "") != (c.want == nil) {
			t.Errorf("parts on %q, merge on %s: warning %q", c.archs, c.here, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("parts on %q, merge on %s: warning %q; want it to say %q", c.archs, c.here, got, w)
			}
		}
	}
}
