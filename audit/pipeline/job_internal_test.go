package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
	"github.com/unlearnaudit/unlearnaudit/internal/shell"
)

// Subjects share their bootstrap resamples with their controls' checks when controls are
// checked, and not without them nor when plan times each check alone (it would time the
// draws once, for the first check only). Planted bug caught: sharing during plan (Timing
// ignored).
func TestJobSetupSharesResamples(t *testing.T) {
	for _, c := range []struct{ controls, timing, share bool }{{true, false, true}, {false, false, false}, {true, true, false}} {
		j := Job{Controls: c.controls, Timing: c.timing}
		if got := j.setup(nil, nil).ShareResamples; got != c.share {
			t.Errorf("controls %v, timing %v: shared %v; want %v", c.controls, c.timing, got, c.share)
		}
	}
}

// The one folder preparation of a whole audit and of a part: files the tool did not write
// are refused with the way out, before anything is removed; the old report is removed;
// --fresh removes the kept trials, and without it they stay; the checkpoints are recorded
// as the tool's in the trials folder. Planted bugs caught: the reports not removed, the
// checkpoints removed without fresh (or kept with it), the old report removed before the
// other files are claimed.
func TestOutFilesPrepare(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		return err == nil
	}
	open := func() *outdir.Dir {
		t.Helper()
		d, err := OpenOut("run", dir, false)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	files := outFiles{command: "run", reports: []string{"report.json", "report.md"}, checkpoints: []string{"trials/a.jsonl"}, trials: "trials"}

	// the tool's earlier report beside a trial file it did not write: refused before the
	// report is removed
	d := open()
	if err := d.WriteFiles(map[string][]byte{"report.json": []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	write("trials/a.jsonl", "someone's trials")
	d = open()
	err := files.prepare(d)
	var fe *outdir.ForeignError
	if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "run: ") || !strings.HasSuffix(err.Error(), "; move it away, or give --force to let this run replace it") {
		t.Fatalf("a foreign file: %v; want a ForeignError naming run and the way out", err)
	}
	if !exists("report.json") || !exists("trials/a.jsonl") {
		t.Fatal("a refused preparation removed a file")
	}
	d.Close()
	os.Remove(filepath.Join(dir, "trials/a.jsonl"))

	// the tool's own report and checkpoint: the report goes, the checkpoint stays
	d = open()
	if err := files.prepare(d); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFiles(map[string][]byte{"report.json": []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Join("trials/a.jsonl"), []byte("a trial\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.Close()
	d = open()
	if err := files.prepare(d); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if exists("report.json") {
		t.Error("the earlier report was left beside the new run")
	}
	if !exists("trials/a.jsonl") {
		t.Error("the kept trials were removed without fresh")
	}

	// fresh: the kept trials go too
	files.fresh = true
	d = open()
	if err := files.prepare(d); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if exists("trials/a.jsonl") {
		t.Error("fresh kept the trials")
	}
}

// OutError says the way out of each refusal of the folder, and names the command in every
// error. Planted bugs caught: "it" for several files, the --force hint on a lock.
func TestOutError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&outdir.ForeignError{Dir: "d", Names: []string{"a"}}, "; move it away, or give --force to let this run replace it"},
		{&outdir.ForeignError{Dir: "d", Names: []string{"a", "b"}}, "; move them away, or give --force to let this run replace them"},
		{&outdir.ManifestError{Path: "m", Err: errors.New("bad")}, "; give --force to take the folder over"},
		{&outdir.LockedError{Dir: "d"}, ""},
	} {
		got := OutError("demo", c.err).Error()
		if got != "demo: "+c.err.Error()+c.want {
			t.Errorf("%T: %q; want %q", c.err, got, "demo: "+c.err.Error()+c.want)
		}
		if !errors.Is(OutError("demo", c.err), c.err) {
			t.Errorf("%T: not in the chain", c.err)
		}
	}
}

// A refused checkpoint's rerun command names the keys the run was given, every word quoted
// for a shell: without --evidence-key the rerun keeps untagged trials (which a run with the
// key then refuses) and without --sign-key it signs no report. A part's names the evidence
// key only (a part signs no report). Planted: rerun without KeyArgs fails it.
func TestRerunNamesKeys(t *testing.T) {
	keys := []string{"--evidence-key=my keys/evidence.key", "--sign-key=my keys/sign.key"}
	j := Job{Command: "run", ReplayArgs: []string{"--spec=a spec.json"}, KeyArgs: keys, Out: "out dir"}
	want := ": audit run '--spec=a spec.json' --fresh '--evidence-key=my keys/evidence.key' '--sign-key=my keys/sign.key' '--out=out dir'"
	if got := j.rerun(); got != want {
		t.Errorf("whole run's rerun = %s, want %s", got, want)
	}
	j.Shard = trials.Shard{Index: 1, Count: 3}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	want = ": audit run '--spec=a spec.json' --fresh " + shell.Quote("--evidence-key="+filepath.Join(wd, "my keys", "evidence.key")) + " --shard=1/3 '--out=out dir'"
	if got := j.rerun(); got != want {
		t.Errorf("part's rerun = %s, want %s", got, want)
	}
}

// A part's rerun command, run from the part's own working folder (audit merge's), carries
// the evidence key only, by its absolute path; an absolute path is kept as it is.
// Planted: the path left relative, or the signing key kept, fails it.
func TestPartKeyArgs(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	got := partKeyArgs([]string{"--evidence-key=keys/e.key", "--sign-key=keys/s.key"})
	if want := "--evidence-key=" + filepath.Join(wd, "keys", "e.key"); len(got) != 1 || got[0] != want {
		t.Errorf("partKeyArgs = %q, want [%q]", got, want)
	}
	abs := filepath.Join(wd, "k")
	if got := partKeyArgs([]string{"--sign-key=s", "--evidence-key=" + abs}); len(got) != 1 || got[0] != "--evidence-key="+abs {
		t.Errorf("partKeyArgs of an absolute path = %q", got)
	}
	if got := partKeyArgs(nil); got != nil {
		t.Errorf("partKeyArgs(nil) = %q, want none", got)
	}
}
