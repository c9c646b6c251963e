package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/audit/trials"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
)

// GatherShards reads the parts of a sharded audit run (audit merge DIR...: each dir a
// part's folder, or the folder holding shard-I-of-N folders) and merges their trials
// (trials.MergeShardsProgress, telling progress of the trials read). The merge's folder
// out may not be a part or lie inside one: the parts are read, never written. keyArgs are
// the merge's key flags (MergeSettings.KeyArgs): a part's rerun command carries the
// evidence key's.
func GatherShards(ctx context.Context, dirs []string, out string, key *evidence.Key, keyArgs []string, progress func(done, total int)) (*trials.ShardSet, error) {
	if found, err := trials.FindShards(dirs, key); err == nil { // else MergeShards says why
		var parts []outdir.Input
		for _, f := range found {
			parts = append(parts, outdir.Input{Flag: "shard part", Path: f.Dir, Tree: true})
		}
		for _, d := range dirs { // the folder of parts itself: the merge's input, not its output
			parts = append(parts, outdir.Input{Flag: "folder of parts", Path: d})
		}
		if err := CheckOut("merge", out, nil, parts...); err != nil {
			return nil, err
		}
	}
	set, err := trials.MergeShardsProgress(ctx, dirs, key, partKeyArgs(keyArgs), progress)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err) // an interruption stays one: nothing written
	}
	return set, nil
}

// MergeSettings are audit merge's own settings, passed on to the command it replays.
type MergeSettings struct {
	Out                string
	Workers            int
	KeyArgs            []string // the flags that pass the evidence and signing keys on
	Quiet, JSON, Force bool
	Date               string // --date, as given; "" keeps the parts' own
}

// ReplayArgv is the command line audit merge runs again for the parts of m: the parts'
// own arguments, then the merge's settings (which win). A spec named by a relative path
// is refused unless the merge runs in the folder the parts ran in (the report records
// the paths as given).
func ReplayArgv(m trials.ShardManifest, s MergeSettings) ([]string, error) {
	if wd, err := os.Getwd(); err == nil && m.Dir != "" && wd != m.Dir && hasRelativeSpec(m.Args) {
		return nil, fmt.Errorf("merge: the shards ran in %s with a relative --spec; run the merge there too (the report records the paths as given)", m.Dir)
	}
	argv := append(append(append([]string{}, m.Args...), "--out="+s.Out, fmt.Sprintf("--workers=%d", s.Workers)), s.KeyArgs...)
	if s.Quiet {
		argv = append(argv, "--quiet")
	}
	if s.JSON {
		argv = append(argv, "--json")
	}
	if s.Force {
		argv = append(argv, "--force")
	}
	if s.Date != "" { // after the parts' own: the merge's --date wins
		argv = append(argv, "--date="+s.Date)
	}
	return argv, nil
}

// hasRelativeSpec reports whether the replayed arguments name the spec by a relative path.
func hasRelativeSpec(args []string) bool {
	for _, a := range args {
		if p, ok := strings.CutPrefix(a, "--spec="); ok {
			return !filepath.IsAbs(p)
		}
	}
	return false
}

// partKeyArgs are the key flags of a command that reruns a part: the evidence key's only
// (a part signs no report), its path made absolute, since audit merge's commands change
// to the part's working folder first.
func partKeyArgs(keyArgs []string) []string {
	var out []string
	for _, a := range keyArgs {
		if f, ok := strings.CutPrefix(a, "--evidence-key="); ok {
			if abs, err := filepath.Abs(f); err == nil {
				f = abs
			}
			out = append(out, "--evidence-key="+f)
		}
	}
	return out
}

// ArchWarning is what audit merge tells the user when the parts of set ran on several
// architectures, or on another than the merge's own (here, buildinfo.Arch): each rounds
// floating point its own way, so the merged report, whose trials come from the parts and
// whose checks run here, is one no single machine would write. Its verdicts stand as
// checked; only byte-identity with a one-machine run is lost. "" when every part that
// names its architecture (older manifests do not) ran on here's.
func ArchWarning(set *trials.ShardSet, here string) string {
	parts := map[string][]string{}
	var archs []string
	for _, f := range set.Shards {
		a := f.Manifest.Arch
		if a == "" {
			continue
		}
		if _, ok := parts[a]; !ok {
			archs = append(archs, a)
		}
		parts[a] = append(parts[a], f.Shard.String())
	}
	if len(archs) == 0 || len(archs) == 1 && archs[0] == here {
		return ""
	}
	var ran []string
	for _, a := range archs {
		ran = append(ran, fmt.Sprintf("%s (part %s)", a, strings.Join(parts[a], ", ")))
	}
	return fmt.Sprintf("the parts ran on %s and this merge runs on %s: floating point rounds per architecture, so this report's numbers will not be byte-identical to a run on one machine (its verdicts are checked as ever); for that, run every part and the merge on one architecture",
		strings.Join(ran, " and "), here)
}
