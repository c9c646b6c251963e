package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// shardSpec writes a small audit spec of a subject with negative controls (D2D), so the
// shards carry controls' trials too.
func shardSpec(t *testing.T, dir string) string {
	t.Helper()
	spec := filepath.Join(dir, "audit.json")
	if err := os.WriteFile(spec, []byte(`{"schema": "unlearnaudit/spec/v1",
	  "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 12}},
	  "claim": {"epsilon": 1, "delta": 0.01}, "deletes": [5, 9], "trials": 10, "seed": 4,
	  "outputs": {"formats": ["md", "html"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec
}

// withEnv makes the CLI see env as its environment for the shard variables.
func withEnv(t *testing.T, env map[string]string) {
	t.Helper()
	old := getenv
	getenv = func(k string) string {
		if k == reports.SourceDateEpoch { // the tests' audit date (TestMain) is kept
			return old(k)
		}
		return env[k]
	}
	t.Cleanup(func() { getenv = old })
}

// Parts run by flag, by a Slurm array's variables and by a Kubernetes Indexed Job's merge
// into the report the one-machine run writes, byte for byte in every format, whatever the
// order the parts are given in.
func TestShardsMergeByteIdentical(t *testing.T) {
	dir := t.TempDir()
	spec := shardSpec(t, dir)
	single, shards, merged := filepath.Join(dir, "single"), filepath.Join(dir, "shards"), filepath.Join(dir, "merged")
	if out, stderr, code := runCLI(t, "run", "--spec", spec, "--out", single); code != 0 {
		t.Fatalf("one-machine run: exit %d: %s%s", code, out, stderr)
	}
	withEnv(t, map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_STEP": "1"})
	out, stderr, code := runCLI(t, "run", "--spec", spec, "--out", shards, "--workers", "1")
	if code != 0 || !strings.Contains(out, "part 1/3 (from SLURM_ARRAY_TASK_ID): 3 of 10 trials") {
		t.Fatalf("Slurm task: exit %d: %s%s", code, out, stderr)
	}
	withEnv(t, map[string]string{"JOB_COMPLETION_INDEX": "2", "JOB_COMPLETIONS": "3"})
	if out, stderr, code := runCLI(t, "run", "--spec", spec, "--out", shards); code != 0 || !strings.Contains(out, "part 2/3 (from JOB_COMPLETION_INDEX)") {
		t.Fatalf("Kubernetes pod: exit %d: %s%s", code, out, stderr)
	}
	withEnv(t, nil)
	if out, stderr, code := runCLI(t, "run", "--spec", spec, "--shard", "0/3", "--out", shards); code != 0 || !strings.Contains(out, "4 of 10 trials of each of 4 subjects") {
		t.Fatalf("--shard 0/3: exit %d: %s%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(shards, "report.json")); !os.IsNotExist(err) {
		t.Errorf("a shard wrote a report (%v)", err)
	}
	// each subject's dimension is recorded (it bounds the merge's reading of its lines), and
	// its lines are well under that bound
	m, err := trials.ReadShardManifest(filepath.Join(shards, "shard-0-of-3", "shard.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Subjects {
		b, err := os.ReadFile(filepath.Join(shards, "shard-0-of-3", s.File))
		if err != nil || s.Params != 20 { // the demo data's 20 features
			t.Fatalf("%s: params %d, want 20 (%v)", s.Name, s.Params, err)
		}
		for k, line := range strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n") {
			if r := float64(len(line)) / float64(trials.MaxTrialLineBytes(s.Params)); r > 0.25 {
				t.Errorf("%s line %d: %d bytes, %.2f of its bound", s.File, k+1, len(line), r)
			}
		}
	}
	args := []string{"merge", filepath.Join(shards, "shard-2-of-3"), "--out", merged, filepath.Join(shards, "shard-0-of-3"), filepath.Join(shards, "shard-1-of-3")}
	if out, stderr, code := runCLI(t, args...); code != 0 || !strings.Contains(out, "overall: PASS") {
		t.Fatalf("merge: exit %d: %s%s", code, out, stderr)
	}
	for _, f := range []string{"report.json", "report.md", "report.html"} {
		a, err1 := os.ReadFile(filepath.Join(single, f))
		b, err2 := os.ReadFile(filepath.Join(merged, f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: merged differs from the one-machine run (%v, %v)", f, err1, err2)
		}
	}
	// merging the folder of parts gives the same again
	again := filepath.Join(dir, "again")
	if _, stderr, code := runCLI(t, "merge", shards, "--out", again, "--workers", "1"); code != 0 {
		t.Fatalf("merge of the parts' folder: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(single, "report.json"))
	b, _ := os.ReadFile(filepath.Join(again, "report.json"))
	if !bytes.Equal(a, b) {
		t.Error("merging the parts' folder gave another report")
	}
}

// runShards runs the spec's three parts into dir/shards and returns the folder.
func runShards(t *testing.T, spec, dir string) string {
	t.Helper()
	shards := filepath.Join(dir, "shards")
	for _, p := range []string{"0/3", "1/3", "2/3"} {
		if out, stderr, code := runCLI(t, "run", "--spec", spec, "--shard", p, "--out", shards, "--controls=false"); code != 0 {
			t.Fatalf("part %s: exit %d: %s%s", p, code, out, stderr)
		}
	}
	return shards
}

// Shards that cannot make the one-machine report are refused, exit 2, with a message
// naming the parts and the fix, and no report written: a part missing (with the command
// that reruns it), a part cut short, a part given twice, a part of another audit, a
// trial in the wrong part, an edited trial, and a spec changed since the parts ran.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	spec := shardSpec(t, dir)
	shards := runShards(t, spec, dir)
	part := func(i int) string { return filepath.Join(shards, trials.Shard{Index: i, Count: 3}.Name()) }
	subjectFile := func(i int, prefix string) string {
		m, err := trials.ReadShardManifest(filepath.Join(part(i), "shard.json"), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range m.Subjects {
			if strings.HasPrefix(s.Name, prefix) {
				return filepath.Join(part(i), s.File)
			}
		}
		t.Fatalf("no %s subject in part %d", prefix, i)
		return ""
	}
	// copy the parts to a scratch folder each case may spoil
	scratch := func(t *testing.T) string {
		d := filepath.Join(t.TempDir(), "shards")
		if err := os.CopyFS(d, os.DirFS(shards)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	other := filepath.Join(dir, "other.json")
	b, _ := os.ReadFile(spec)
	os.WriteFile(other, bytes.Replace(b, []byte(`"epsilon": 1`), []byte(`"epsilon": 2`), 1), 0o644)
	otherShards := filepath.Join(dir, "other")
	if _, stderr, code := runCLI(t, "run", "--spec", other, "--shard", "1/3", "--out", otherShards, "--controls=false"); code != 0 {
		t.Fatal(stderr)
	}
	for _, c := range []struct {
		name  string
		spoil func(d string) []string // returns the merge's folders
		want  []string
	}{
		{"missing part", func(d string) []string {
			os.RemoveAll(filepath.Join(d, "shard-1-of-3"))
			return []string{d}
		}, []string{"part 1/3 is missing trials", "d2d/strongly-convex: trials 1, 4, 7", "not among the folders given", "--spec=" + spec + " --shard=1/3 --out="}},
		{"part cut short", func(d string) []string {
			f := strings.Replace(subjectFile(2, "d2d"), shards, d, 1)
			body, _ := os.ReadFile(f)
			lines := bytes.SplitAfter(body, []byte("\n"))
			os.WriteFile(f, bytes.Join(lines[:len(lines)-3], nil), 0o644) // the last two trials lost
			m, _ := trials.ReadShardManifest(filepath.Join(d, "shard-2-of-3", "shard.json"), nil)
			m.Complete = false
			trials.WriteShardManifest(filepath.Join(d, "shard-2-of-3"), m, nil)
			return []string{d}
		}, []string{"part 2/3 is missing trials (d2d/strongly-convex: trials ", "did not finish"}},
		{"part twice", func(d string) []string {
			return []string{d, filepath.Join(d, "shard-0-of-3")}
		}, []string{"part 0/3 given twice"}},
		{"another audit", func(d string) []string {
			os.RemoveAll(filepath.Join(d, "shard-1-of-3"))
			return []string{d, otherShards}
		}, []string{"shards of different audits", "1/3 (" + filepath.Join(otherShards, "shard-1-of-3") + ")", "--spec=" + other}},
		{"trial in the wrong part", func(d string) []string {
			from, to := strings.Replace(subjectFile(1, "d2d"), shards, d, 1), strings.Replace(subjectFile(0, "d2d"), shards, d, 1)
			body, _ := os.ReadFile(from)
			lines := bytes.SplitAfter(body, []byte("\n"))
			f, _ := os.OpenFile(to, os.O_APPEND|os.O_WRONLY, 0)
			f.Write(lines[1]) // a trial of part 1, its checksum valid, in part 0's file
			f.Close()
			return []string{d}
		}, []string{"holds trial ", "which belongs to part 1/3, not 0/3"}},
		{"edited trial", func(d string) []string {
			f := strings.Replace(subjectFile(0, "d2d"), shards, d, 1)
			body, _ := os.ReadFile(f)
			lines := bytes.SplitAfter(body, []byte("\n"))
			lines[2] = regexp.MustCompile(`"index":\d+`).ReplaceAll(lines[2], []byte(`"index":99`)) // any edit breaks the checksum
			os.WriteFile(f, bytes.Join(lines, nil), 0o644)
			return []string{d}
		}, []string{"checksum does not match", "part 0/3's trials cannot be used: its checkpoint is refused above", "--fresh --shard=0/3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := scratch(t)
			out := filepath.Join(t.TempDir(), "merged")
			_, stderr, code := runCLI(t, append(append([]string{"merge"}, c.spoil(d)...), "--out", out)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want 2: %s", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("message %q lacks %q", stderr, w)
				}
			}
			if _, err := os.Stat(filepath.Join(out, "report.json")); !os.IsNotExist(err) {
				t.Errorf("a report was written (%v)", err)
			}
		})
	}
	// the spec changed after the parts ran: same arguments, another configuration
	t.Run("spec changed", func(t *testing.T) {
		orig, _ := os.ReadFile(spec)
		t.Cleanup(func() { os.WriteFile(spec, orig, 0o644) })
		os.WriteFile(spec, bytes.Replace(orig, []byte(`"deletes": [5, 9]`), []byte(`"deletes": [5, 10]`), 1), 0o644)
		out := filepath.Join(t.TempDir(), "merged")
		_, stderr, code := runCLI(t, "merge", shards, "--out", out)
		if code != exitUsage || !strings.Contains(stderr, "configuration changed since the shards ran") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "trials")); err == nil {
			if ents, _ := os.ReadDir(filepath.Join(out, "trials")); len(ents) > 0 {
				t.Errorf("merged trials written for a changed configuration: %v", ents)
			}
		}
	})
}

// A spec whose check settings (confidence, power, attacks) are edited after the parts ran
// is refused at the merge, though the trials would fit: the report would be another.
func TestMergeRefusesEditedCheckSettings(t *testing.T) {
	dir := t.TempDir()
	spec := shardSpec(t, dir)
	shards := runShards(t, spec, dir)
	orig, _ := os.ReadFile(spec)
	for name, edit := range map[string]string{
		"confidence": `"confidence": 0.9, "seed": 4`,
		"power":      `"power": {"against": 3}, "seed": 4`,
		"attacks":    `"attacks": ["game"], "seed": 4`,
	} {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(spec, bytes.Replace(orig, []byte(`"seed": 4`), []byte(edit), 1), 0o644)
			t.Cleanup(func() { os.WriteFile(spec, orig, 0o644) })
			out := filepath.Join(t.TempDir(), "merged")
			_, stderr, code := runCLI(t, "merge", shards, "--out", out)
			if code != exitUsage || !strings.Contains(stderr, "check settings changed since the shards ran") || strings.Contains(stderr, "merge: merge:") {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "report.json")); !os.IsNotExist(err) {
				t.Errorf("a report was written (%v)", err)
			}
		})
	}
	os.WriteFile(spec, orig, 0o644)
	if _, stderr, code := runCLI(t, "merge", shards, "--out", filepath.Join(dir, "merged")); code != 0 {
		t.Fatalf("the spec restored: exit %d: %s", code, stderr)
	}
}

// A merge run from another folder than the parts names, in its "rerun it:" command, the
// parts' folder as the command will see it: the command changes to the folder the part
// ran in, where the merge's relative name is another place (a red-team run wrote the
// rerun part there, and the merge went on missing it).
func TestMergeRerunFromAnotherFolder(t *testing.T) {
	dir := t.TempDir()
	spec := shardSpec(t, dir)
	runIn, mergeIn := filepath.Join(dir, "sp"), filepath.Join(dir, "elsewhere")
	for _, d := range []string{runIn, mergeIn} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(runIn)
	for _, p := range []string{"0/3", "2/3"} {
		if _, stderr, code := runCLI(t, "run", "--spec", spec, "--shard", p, "--out", "../parts", "--controls=false"); code != 0 {
			t.Fatalf("part %s: %s", p, stderr)
		}
	}
	t.Chdir(mergeIn)
	_, stderr, code := runCLI(t, "merge", "../parts", "--out", "merged")
	want := "--out=" + filepath.Join(dir, "parts")
	if code != exitUsage || !strings.Contains(stderr, "part 1/3 is missing trials") || !strings.Contains(stderr, "(cd -- "+runIn) || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, %q; want the rerun command to cd to %s and write to %s", code, stderr, runIn, want)
	}
}

// A part's variables that cannot be mapped to a part are refused before any work, naming
// them; --shard overrides them; a shard's folder of another audit is not overwritten.
func TestShardRefusals(t *testing.T) {
	dir := t.TempDir()
	spec := shardSpec(t, dir)
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3"}, nil, "SLURM_ARRAY_TASK_COUNT is not"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"}, nil, "sparse --array"},
		{map[string]string{"JOB_COMPLETION_INDEX": "1"}, nil, "JOB_COMPLETIONS is not"},
		{nil, []string{"--shard", "3/3"}, "parts are numbered 0 to 2"},
		{nil, []string{"--shard", "1-3"}, "want I/N"},
		{nil, []string{"--shard", "0/2", "--json"}, "a shard writes no report"},
	} {
		withEnv(t, c.env)
		out := filepath.Join(dir, "out")
		_, stderr, code := runCLI(t, append([]string{"run", "--spec", spec, "--out", out}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v %v: exit %d, %q; want 2 and %q", c.env, c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v %v: %s created", c.env, c.args, out)
		}
	}
	// --shard wins over the environment
	withEnv(t, map[string]string{"SLURM_ARRAY_TASK_ID": "junk"})
	shards := filepath.Join(dir, "shards")
	if out, stderr, code := runCLI(t, "run", "--spec", spec, "--shard", "0/4", "--out", shards, "--controls=false"); code != 0 || !strings.Contains(out, "part 0/4 (from --shard)") {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	withEnv(t, nil)
	other := filepath.Join(dir, "other.json")
	b, _ := os.ReadFile(spec)
	os.WriteFile(other, bytes.Replace(b, []byte(`"seed": 4`), []byte(`"seed": 5`), 1), 0o644)
	if _, stderr, code := runCLI(t, "run", "--spec", other, "--shard", "0/4", "--out", shards, "--controls=false"); code != exitUsage || !strings.Contains(stderr, "holds part 0/4 of another audit") {
		t.Errorf("another audit's part folder: exit %d, %q", code, stderr)
	}
}

// plan --spec names the trials the spec's distinguishing game needs for the power target
// (the game's own question: per-family confidence, the spec's power.against), and those its
// other game needs (the membership game on the deleted records, at its own confidence), and
// predicts the run from a calibration: the arithmetic of its JSON holds together, and a
// sharded run's parts are shorter than the one-machine run. Claim settings beside --spec
// are refused.
func TestPlanSpec(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "audit.json")
	os.WriteFile(spec, []byte(`{"schema": "unlearnaudit/spec/v1", "method": {"name": "sglu"},
	  "claim": {"epsilon": 1, "delta": 0.05}, "power": {"against": 3}, "trials": 40, "seed": 3}`), 0o644)
	got := runJSONObject(t, "plan", "--spec", spec, "--calibrate", "300ms", "--shards", "4", "--json")
	need, mu, err := epsilon.TrialsToDetect(context.Background(), epsilon.PowerSpec{Claim: 1, Factor: 3, Power: 0.8, Delta: 0.05, Conf: 1 - 0.05/2})
	if err != nil {
		t.Fatal(err)
	}
	if got["trials_needed"] != float64(need) || got["gdp_mu"] != mu || got["against"] != 3.0 || got["spec_trials"] != 40.0 {
		t.Errorf("plan %v; want %d trials needed against 3× (μ = %v) and the spec's 40", got, need, mu)
	}
	if p := got["spec_power"].(float64); !(p >= 0 && p < 0.8) {
		t.Errorf("the spec's 40 trials have power %v; want below 0.8", p)
	}
	// the spec's other game, the membership attack on the deleted records, with the
	// planner's count for its own question (each record at 1 − 0.05/k)
	others, _ := got["other_games"].([]any)
	if len(others) != 1 {
		t.Fatalf("other games %v; want the membership game", got["other_games"])
	}
	o := others[0].(map[string]any)
	conf := o["confidence"].(float64)
	memNeed, _, err := epsilon.TrialsToDetect(context.Background(), epsilon.PowerSpec{Claim: 1, Factor: 3, Power: 0.8, Delta: 0.05, Conf: conf})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(o["route"].(string), "per deleted record") || conf <= 1-0.05/2 || o["trials_needed"] != float64(memNeed) {
		t.Errorf("other game %v; want the per-record game at a stricter confidence needing %d", o, memNeed)
	}
	// the subject, then its negative controls (run by default), each calibrated
	cals := got["calibration"].([]any)
	preds := got["predictions"].([]any)
	if first := cals[0].(map[string]any); len(preds) != 2 || first["subject"] != "sglu/b=32" || first["seconds_per_trial"].(float64) <= 0 {
		t.Fatalf("calibration %v, predictions %v", cals, preds)
	}
	for _, x := range preds {
		p := x.(map[string]any)
		n := p["trials"].(float64)
		one := got["setup_seconds"].(float64)
		for _, c := range cals {
			cal := c.(map[string]any)
			one += n*cal["seconds_per_trial"].(float64) + cal["check_seconds_fixed"].(float64) + n*cal["check_seconds_per_trial"].(float64)
		}
		// Predict sums durations rounded to the nanosecond, so the JSON and this sum agree to a few ns (held to 1 µs)
		if d := p["one_machine_seconds"].(float64) - one; d < -1e-6 || d > 1e-6 {
			t.Errorf("at %v trials: one machine %v s, want setup + trials × per-trial + check = %v", n, p["one_machine_seconds"], one)
		}
		if p["per_shard_seconds"].(float64) >= p["one_machine_seconds"].(float64) || p["shards"] != 4.0 {
			t.Errorf("at %v trials: a part takes %v s of the one machine's %v", n, p["per_shard_seconds"], p["one_machine_seconds"])
		}
	}
	// --controls=false plans the run audit run --controls=false does: the subject alone
	if alone := runJSONObject(t, "plan", "--spec", spec, "--calibrate", "300ms", "--controls=false", "--json"); len(alone["calibration"].([]any)) != 1 || len(cals) < 2 {
		t.Errorf("plan --controls=false calibrates %d subjects (with controls %d); want the subject alone", len(alone["calibration"].([]any)), len(cals))
	}
	if _, stderr, code := runCLI(t, "plan", "--trials", "100", "--delta", "0.1", "--controls=false"); code != exitUsage || !strings.Contains(stderr, "--controls plans a spec's run") {
		t.Errorf("--controls without --spec: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "plan", "--spec", spec, "--delta", "0.1"); code != exitUsage || !strings.Contains(stderr, "--delta comes from the spec") {
		t.Errorf("--delta beside --spec: exit %d, %q", code, stderr)
	}
}

// A part that owns none of the trials (part 12/15 of a run of 10) says so as it runs,
// instead of running nothing without a word; a part with trials says nothing of the kind.
func TestEmptyPartWarns(t *testing.T) {
	dir := t.TempDir()
	spec := shardSpec(t, dir) // 10 trials
	const warn = "holds none of them"
	for _, c := range []struct {
		part string
		want bool
	}{{"12/15", true}, {"9/15", false}} {
		_, stderr, code := runCLI(t, "run", "--spec", spec, "--shard", c.part, "--out", filepath.Join(dir, "parts"), "--controls=false")
		if code != 0 || strings.Contains(stderr, warn) != c.want {
			t.Errorf("part %s: exit %d, %q; want a warning: %v", c.part, code, stderr, c.want)
		}
	}
}

// A refusal of the run a merge replays is told as the merge's ("audit: merge: …"), not as
// a run the user did not type (a red-team auditor met "audit: run: output folder … is a
// file" from audit merge); a verdict's exit code passes through.
func TestMergeRefusalsNameTheMerge(t *testing.T) {
	dir := t.TempDir()
	spec := shardSpec(t, dir)
	shards := runShards(t, spec, dir)
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("x"), 0o644)
	_, stderr, code := runCLI(t, "merge", shards, "--out", file)
	if code != exitUsage || !strings.HasPrefix(strings.TrimPrefix(stderr, "audit: "), "merge: output folder") || strings.Contains(stderr, "run:") {
		t.Errorf("merge --out a file: exit %d, %q; want 2 and the merge named", code, stderr)
	}
	if _, stderr, code := runCLI(t, "merge", shards, "--out", filepath.Join(dir, "ok")); code == exitUsage {
		t.Errorf("a good merge: exit %d, %s", code, stderr)
	}
}
