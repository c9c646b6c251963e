package pipeline_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/canary"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/internal/buildinfo"
)

// A spec gives every setting of the job but those the flags given override (trials,
// attacks, the folder, the formats), and errors about its settings name its fields.
// Planted bugs caught: the spec's trials taken over --trials, or its formats over --formats.
func TestApplySpecFlagsOverride(t *testing.T) {
	s := &spec.Spec{Trials: 10, Attacks: audit.Attacks{"game"}, Outputs: spec.SpecOutputs{Dir: "specdir", Formats: []string{"md", "html"}},
		Seed: 4, Confidence: 0.9, Epsilon: 1, Delta: 0.01, Deletes: []int64{5, 9}, Variants: []string{"strongly-convex"}, Params: audit.DefaultArgs(nil)}
	s.Params.Set("iterations", "12")
	j := pipeline.Job{Trials: 7, Attacks: "membership", Out: "mine", Formats: "pdf"}
	j.ApplySpec(s, "spec.json", map[string]bool{"trials": true, "attacks": true, "out": true, "formats": true})
	if j.Trials != 7 || j.Attacks != "membership" || j.Out != "mine" || j.Formats != "pdf" {
		t.Errorf("flags given: trials %d, attacks %q, out %q, formats %q; want the flags' 7, membership, mine, pdf", j.Trials, j.Attacks, j.Out, j.Formats)
	}
	if j.FromSpec["trials"] || !j.FromSpec["delta"] || j.Spec != "spec.json" || j.Data.Spec != "spec.json" {
		t.Errorf("FromSpec %v, Spec %q, Data.Spec %q: want trials the flag's, delta the spec's", j.FromSpec, j.Spec, j.Data.Spec)
	}
	j = pipeline.Job{Trials: 7, Attacks: "membership", Out: "mine", Formats: "pdf"}
	j.ApplySpec(s, "spec.json", map[string]bool{})
	if j.Trials != 10 || j.Attacks != "game" || j.Out != "specdir" || j.Formats != "md,html" || !j.FromSpec["trials"] {
		t.Errorf("no flags: trials %d, attacks %q, out %q, formats %q, FromSpec %v; want the spec's", j.Trials, j.Attacks, j.Out, j.Formats, j.FromSpec)
	}
	if j.Seed != 4 || j.Confidence != 0.9 || j.Deletes != "5,9" || j.Variants != "strongly-convex" || j.MethodArgs.String("iterations") != "12" {
		t.Errorf("seed %d, confidence %v, deletes %q, variants %q, iterations %q: not the spec's", j.Seed, j.Confidence, j.Deletes, j.Variants, j.MethodArgs.String("iterations"))
	}
}

// Prepare refuses bad settings before it loads anything, each error naming the setting;
// the memory cap on the trials names --trials, or the spec's field when the spec gave them.
// Planted bug caught: the cap's error naming --trials for a spec's trials.
func TestPrepareRefuses(t *testing.T) {
	ctx := context.Background()
	base := func() pipeline.Job {
		return pipeline.Job{Command: "demo", Out: filepath.Join(t.TempDir(), "out"), Formats: "md", Attacks: "game", Trials: 8,
			Variants: "perfect", Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Confidence: 0.95, PowerAgainst: 2, Seed: 1,
			MethodArgs: audit.DefaultArgs(pipeline.DemoParams())}
	}
	for _, c := range []struct {
		name string
		edit func(*pipeline.Job)
		want string
	}{
		{"formats", func(j *pipeline.Job) { j.Formats = "docx" }, "--formats: "},
		{"attacks", func(j *pipeline.Job) { j.Attacks = "guess" }, "--attacks: "},
		{"deletes", func(j *pipeline.Job) { j.Deletes = "3,x" }, `--delete: "x" is not a record ID`},
		{"out is the spec", func(j *pipeline.Job) { j.Spec, j.Out = "s.json", "s.json" }, "demo: --out"},
		{"report over the spec", func(j *pipeline.Job) { j.Spec, j.Out = filepath.Join("d", "report.json"), "d" }, "demo: --out"},
		{"trials over the cap", func(j *pipeline.Job) { j.Trials, j.Data.MaxValues = 1<<20, 1<<20 }, "demo: --trials 1048576 on : "},
		{"spec's trials over the cap", func(j *pipeline.Job) {
			j.Trials, j.Data.MaxValues, j.Spec, j.FromSpec = 1<<20, 1<<20, "a.json", map[string]bool{"trials": true}
		}, "demo: a.json: " + audit.SpecField("trials", -1) + " 1048576 on : "},
	} {
		j := base()
		c.edit(&j)
		_, err := j.Prepare(ctx)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error containing %q", c.name, err, c.want)
		}
	}
	j := base()
	p, err := j.Prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Plan.Subjects) == 0 || p.Plan.Checkpoints != "trials" || !slices.Equal(p.Formats, []string{"md"}) {
		t.Errorf("prepared %d subjects, checkpoints %q, formats %v", len(p.Plan.Subjects), p.Plan.Checkpoints, p.Formats)
	}
}

// The one-run demo's ladder doubles from 32 up to the largest count asked, which must lie
// in [32, canary.MaxCanaries]. Planted bug caught: the largest count left off the ladder.
func TestOneRunLadder(t *testing.T) {
	for _, c := range []struct {
		largest int
		want    []int
	}{{32, []int{32}}, {100, []int{32, 64}}, {128, []int{32, 64, 128}}} {
		got, err := pipeline.OneRunLadder(c.largest)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("OneRunLadder(%d) = %v, %v; want %v", c.largest, got, err, c.want)
		}
	}
	for _, bad := range []int{31, 0, canary.MaxCanaries + 1} {
		if _, err := pipeline.OneRunLadder(bad); err == nil || !strings.HasPrefix(err.Error(), "--one-run-max ") {
			t.Errorf("OneRunLadder(%d): %v; want a refusal naming --one-run-max", bad, err)
		}
	}
	j := pipeline.Job{Command: "demo", Out: t.TempDir(), Formats: "md", Attacks: "game", Deletes: "4"}
	if _, err := j.PrepareOneRun(context.Background(), 64); err == nil || !strings.Contains(err.Error(), "--delete does not apply") {
		t.Errorf("one-run with --delete: %v; want it refused", err)
	}
}

// A part runs into Out/shard-I-of-N with a complete manifest; a part of another audit in
// that folder is refused unless Fresh; the merge's folder may not lie inside a part; and
// the merge's replay refuses a configuration that is not the parts'. Planted bugs caught:
// the other audit's part overwritten without Fresh, the fingerprint check skipped.
func TestRunPartAndMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the trials of a part")
	}
	ctx := context.Background()
	out := t.TempDir()
	shard, err := trials.ParseShard("0/2")
	if err != nil {
		t.Fatal(err)
	}
	job := func(seed uint64) pipeline.Job {
		return pipeline.Job{Command: "run", Version: "test", Out: out, Formats: "md", Attacks: "game", Trials: 4,
			Variants: "perfect", Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Confidence: 0.95, PowerAgainst: 2, Seed: seed,
			MethodArgs: audit.DefaultArgs(pipeline.DemoParams()), Shard: shard, ShardFrom: "--shard", ReplayArgs: []string{"--seed=1"}}
	}
	part := func(j pipeline.Job) (*trials.ShardManifest, error) {
		p, err := j.Prepare(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return j.RunPart(ctx, p)
	}
	m, err := part(job(1))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Complete || m.Shard != "0/2" || len(m.Subjects) == 0 {
		t.Fatalf("manifest %+v; want part 0/2 complete", m)
	}
	if m.Arch != buildinfo.Arch() || m.Arch == "" {
		t.Errorf("the part's manifest names architecture %q; want this build's, %q", m.Arch, buildinfo.Arch())
	}
	other := job(2)
	if _, err := part(other); err == nil || !strings.Contains(err.Error(), "holds part 0/2 of another audit") {
		t.Fatalf("another audit's part: %v; want it refused", err)
	}
	other.Fresh = true
	if _, err := part(other); err != nil {
		t.Fatalf("another audit's part with Fresh: %v", err)
	}
	if _, err := pipeline.GatherShards(ctx, []string{out}, filepath.Join(out, shard.Name(), "r"), nil, nil, nil); err == nil || !strings.HasPrefix(err.Error(), "merge: --out") {
		t.Errorf("merge into a part: %v; want it refused", err)
	}
	if _, err := pipeline.GatherShards(ctx, []string{out}, out, nil, nil, nil); err == nil || !strings.HasPrefix(err.Error(), "merge: --out") || !strings.Contains(err.Error(), "folder of parts") {
		t.Errorf("merge into the folder of parts it reads: %v; want it refused", err)
	}
	replay := func(seed uint64, edit ...func(*pipeline.Job)) error {
		j := job(seed)
		for _, e := range edit {
			e(&j)
		}
		j.Shard, j.Out = trials.Shard{}, filepath.Join(t.TempDir(), "r")
		j.Replay = pipeline.Replay{Fingerprint: m.Fingerprint, Checks: m.Checks}
		p, err := j.Prepare(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = j.Audit(ctx, p)
		return err
	}
	const changed = "the audit's configuration changed since the shards ran"
	if err := replay(2); err == nil || !strings.Contains(err.Error(), changed) {
		t.Errorf("replay of another configuration: %v; want it refused", err)
	}
	// the checks' settings, which the trials do not depend on but the report does: a spec
	// edited after the parts ran (a red-team run merged at confidence 0.9 parts run at 0.95)
	if m.Checks == "" {
		t.Fatal("the part's manifest records no check settings")
	}
	for name, edit := range map[string]func(*pipeline.Job){
		"confidence": func(j *pipeline.Job) { j.Confidence = 0.9 },
		"power":      func(j *pipeline.Job) { j.PowerAgainst = 3 },
		"attacks":    func(j *pipeline.Job) { j.Attacks = "game,membership" },
	} {
		if err := replay(1, edit); err == nil || !strings.Contains(err.Error(), "check settings changed since the shards ran") {
			t.Errorf("replay with the %s changed: %v; want it refused", name, err)
		}
	}
	// the parts' own configuration passes the check (and, given no trials, runs none)
	if err := replay(1); err == nil || strings.Contains(err.Error(), changed) || !strings.Contains(err.Error(), "this run may not run any") {
		t.Errorf("replay of the parts' configuration: %v; want the check passed and no trial run", err)
	}
}
