package trials

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/internal/atomicfile"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/jsonerr"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/internal/shell"
)

// ShardSchema names the version of a shard's manifest (shard.json).
const ShardSchema = "unlearnaudit/shard/v1"

// ShardManifestFile is the manifest's name in a shard's folder.
const ShardManifestFile = "shard.json"

// A ShardManifest says what a shard's folder holds: which part of which audit, how to
// replay the audit's command (Args, run in Dir), and a checkpoint file per subject. It
// is written when the shard starts, with Complete false, and rewritten with Complete true
// when every one of its trials is on disk: a shard killed on the way is known as such.
type ShardManifest struct {
	Schema string `json:"schema"`
	Tool   string `json:"tool"`  // the tool and version that ran it: trials of two versions never mix
	Shard  string `json:"shard"` // "I/N"
	// From is what assigned the part: "--shard", or the environment variable read
	// (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX).
	From string `json:"from"`
	// Fingerprint identifies the audit's configuration (RunFingerprint): shards merge
	// only with shards of the same fingerprint.
	Fingerprint string `json:"fingerprint"`
	// Dir is the working directory the command ran in: relative paths in Args are
	// relative to it.
	Dir string `json:"dir"`
	// Args are the command's arguments that decide the report (--name=value), without
	// the ones that only say where or how fast it runs (--shard, --out, --workers, …).
	Args []string `json:"args"`
	// Checks are the checks' settings as the spec and flags resolved them (confidence,
	// power, attacks): the trials do not depend on them but the report does, so a spec
	// edited between the parts and the merge changes the fingerprint. Absent in older
	// manifests, whose fingerprints did not hold them.
	Checks   string         `json:"checks,omitempty"`
	Seed     uint64         `json:"seed"`
	Trials   int            `json:"trials"`
	Subjects []ShardSubject `json:"subjects"`
	Complete bool           `json:"complete"`
	// Arch is the architecture the part ran on (buildinfo.Arch): floating point rounds
	// per architecture, so parts of several make a report no one machine would write.
	// Not in the fingerprint: their trials still merge. Absent in older manifests.
	Arch string `json:"arch,omitempty"`
}

// A ShardSubject is one audited subject of a shard (a control is a subject too): its
// name, its Fingerprint, its checkpoint file, relative to the shard's folder, and its
// models' parameter dimension (ParamsOf), which bounds each line of that file when
// merging (MaxTrialLineBytes): a subject must be Dimensioned to be sharded.
type ShardSubject struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	File        string `json:"file"`
	Params      int    `json:"params"`
}

// RunFingerprint identifies an audit run for sharding: the tool's version, its arguments,
// seed, trials and every subject's Fingerprint (so the data, claim and method settings are
// in it).
func RunFingerprint(tool string, args []string, checks string, seed uint64, trials int, subjects []ShardSubject) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\ntool %q\nseed %d\ntrials %d\n", ShardSchema, tool, seed, trials)
	for _, a := range args {
		fmt.Fprintf(h, "arg %q\n", a)
	}
	if checks != "" {
		fmt.Fprintf(h, "checks %q\n", checks)
	}
	for _, s := range subjects {
		fmt.Fprintf(h, "subject %q %s %s %d\n", s.Name, s.Fingerprint, filepath.Base(s.File), s.Params)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// WriteShardManifest writes dir/shard.json atomically.
func WriteShardManifest(dir string, m ShardManifest, key *evidence.Key) error {
	b, err := EncodeShardManifest(m, key)
	if err != nil {
		return err
	}
	return atomicfile.WriteFileAtomic(filepath.Join(dir, ShardManifestFile), b)
}

// EncodeShardManifest is the text of shard.json, for a writer that places it itself. With
// a key, the text begins with a line holding the tag of the rest (the manifest's JSON)
// under the key.
func EncodeShardManifest(m ShardManifest, key *evidence.Key) ([]byte, error) {
	m.Schema = ShardSchema
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("write shard manifest: %w", err)
	}
	b = append(b, '\n')
	if key != nil {
		b = key.Seal(manifestDomain, nil, b, '\n')
	}
	return b, nil
}

// maxManifestBytes bounds a manifest: settings and file names, never trials.
const maxManifestBytes = 1 << 20

// ReadShardManifest reads and checks a shard's manifest. With a key, its tag is checked
// before its JSON is decoded; a manifest with a tag is refused without a key, and one
// without a tag with a key. Without a key, a manifest whose fingerprint is not that of its
// own settings is refused as edited (a checksum against accidents: someone who can write
// the file can recompute it, which the key's tag stops).
func ReadShardManifest(path string, key *evidence.Key) (ShardManifest, error) {
	f, err := regular.Open(path)
	if err != nil {
		return ShardManifest{}, fmt.Errorf("read shard manifest: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return ShardManifest{}, fmt.Errorf("read shard manifest %s: %w", path, err)
	}
	if len(b) > maxManifestBytes {
		return ShardManifest{}, fmt.Errorf("shard manifest %s: larger than %d bytes", path, maxManifestBytes)
	}
	if b, err = openManifest(b, key); err != nil {
		return ShardManifest{}, fmt.Errorf("shard manifest %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m ShardManifest
	if err := dec.Decode(&m); err != nil {
		return ShardManifest{}, fmt.Errorf("shard manifest %s: %s", path, jsonerr.Describe(err))
	}
	if m.Schema != ShardSchema {
		return ShardManifest{}, fmt.Errorf("shard manifest %s: schema %s, want %q", path, clip.Quote(m.Schema), ShardSchema)
	}
	if _, err := ParseShard(m.Shard); err != nil {
		return ShardManifest{}, fmt.Errorf("shard manifest %s: field shard: %w", path, err)
	}
	if m.Trials < 1 || m.Trials > MaxTrials {
		return ShardManifest{}, fmt.Errorf("shard manifest %s: field trials: %d, want 1 to %d", path, m.Trials, MaxTrials)
	}
	if len(m.Subjects) == 0 {
		return ShardManifest{}, fmt.Errorf("shard manifest %s: field subjects: empty", path)
	}
	for k, s := range m.Subjects {
		if s.File == "" || filepath.IsAbs(s.File) || strings.Contains(filepath.ToSlash(s.File), "..") {
			return ShardManifest{}, fmt.Errorf("shard manifest %s: field subjects[%d].file: %s is not a file inside the shard's folder", path, k, clip.Quote(s.File))
		}
		// the dimension bounds every line of the subject's checkpoint: without it, a line
		// could cost up to a gibibyte before it is refused, so a manifest without one (an
		// older version's, or a subject that does not say its dimension) is not merged
		if s.Params == 0 {
			return ShardManifest{}, fmt.Errorf("shard manifest %s: field subjects[%d].params: missing (an older version's manifest, or a subject that does not say its dimension): it bounds each line of %s; rerun part %s with this version and --fresh", path, k, s.File, m.Shard)
		}
		if s.Params < 0 || int64(s.Params) > maxParams {
			return ShardManifest{}, fmt.Errorf("shard manifest %s: field subjects[%d].params: %d, want 1 to %d", path, k, s.Params, int64(maxParams))
		}
	}
	if fp := RunFingerprint(m.Tool, m.Args, m.Checks, m.Seed, m.Trials, m.Subjects); fp != m.Fingerprint {
		return ShardManifest{}, fmt.Errorf("shard manifest %s: edited: its fingerprint (%.12s…) is not that of its own tool, args, seed, trials and subjects (%.12s…); rerun part %s", path, m.Fingerprint, fp, m.Shard)
	}
	return m, nil
}

// openManifest returns a manifest file's JSON: with a key, once the tag on its first line
// is checked; without one, the file as it is, unless it is tagged.
func openManifest(b []byte, key *evidence.Key) ([]byte, error) {
	if key == nil {
		if evidence.Tagged(b, '\n') {
			return nil, errors.New("written with an evidence key (its first line is a tag): give the key (--evidence-key FILE or " + evidence.KeyEnv + ") to read it")
		}
		return b, nil
	}
	body, err := key.Open(manifestDomain, nil, b, '\n')
	switch {
	case errors.Is(err, evidence.ErrUntagged):
		return nil, errors.New("written without an evidence key (untagged), but this run has one: rerun the part under the key, or merge without one")
	case err != nil:
		return nil, errors.New("its tag does not match its content under the evidence key: edited or forged, or written under another key")
	}
	return body, nil
}

// A FoundShard is a shard's folder and what its manifest says.
type FoundShard struct {
	Dir      string
	Shard    Shard
	Manifest ShardManifest
}

// A ShardSet is the shards of one audit run, checked complete and consistent by
// MergeShards: every trial of every subject present exactly once.
type ShardSet struct {
	Shards []FoundShard // in part order
	// Trials holds each subject's trials, in index order, by subject name.
	Trials map[string][]TrialResult
	header map[string]checkpointHeader
	key    *evidence.Key // the shards' evidence key, which the merged checkpoints are written under
}

// Manifest is the manifest the shards share (the first shard's: they agree on all
// that merging uses).
func (ss *ShardSet) Manifest() ShardManifest { return ss.Shards[0].Manifest }

// A MergeError is shards that cannot be merged: what is wrong, and what to do about it
// (which shards to rerun, with the command), one line each.
type MergeError struct {
	Problems []string
}

func (e *MergeError) Error() string {
	return "cannot merge the shards:\n  " + strings.Join(e.Problems, "\n  ")
}

// shardFolders are the entries of d named shard-*-of-*, in name order. d is listed, not
// globbed: a folder named res[1] or r* is a name, not a pattern (filepath.Glob read r*
// as every folder starting with r, and res[1] as res1).
func shardFolders(d string) ([]string, error) {
	entries, _ := os.ReadDir(d) // as Glob, an unreadable d has no entries: the caller says what d is
	var subs []string
	for _, e := range entries {
		if ok, _ := filepath.Match("shard-*-of-*", e.Name()); ok {
			subs = append(subs, filepath.Join(d, e.Name()))
		}
	}
	return subs, nil
}

// FindShards finds the shards among dirs: each is a shard's folder (it holds shard.json)
// or a folder of shard folders (shard-I-of-N/shard.json), as `audit run --shard` writes.
func FindShards(dirs []string, key *evidence.Key) ([]FoundShard, error) {
	var found []FoundShard
	for _, d := range dirs {
		candidates := []string{d}
		if _, err := os.Stat(filepath.Join(d, ShardManifestFile)); os.IsNotExist(err) {
			subs, err := shardFolders(d)
			if err != nil {
				return nil, fmt.Errorf("find shards in %s: %w", d, err)
			}
			if len(subs) == 0 {
				if _, err := os.Stat(d); err != nil {
					return nil, fmt.Errorf("find shards: %w", err)
				}
				return nil, fmt.Errorf("find shards: %s holds no %s and no shard-I-of-N folders (is it a shard's --out?)", d, ShardManifestFile)
			}
			candidates = subs
		}
		for _, c := range candidates {
			m, err := ReadShardManifest(filepath.Join(c, ShardManifestFile), key)
			if err != nil {
				return nil, fmt.Errorf("find shards: %w", err)
			}
			sh, _ := ParseShard(m.Shard) // checked by ReadShardManifest
			found = append(found, FoundShard{Dir: c, Shard: sh, Manifest: m})
		}
	}
	slices.SortStableFunc(found, func(a, b FoundShard) int { return a.Shard.Index - b.Shard.Index })
	return found, nil
}

// MergeShards gathers the shards among dirs (FindShards) and checks that they are one
// audit's, whole: the same fingerprint and part count, no part twice, every trial of every
// subject present once, in the part it belongs to, with its checksum. Every problem is
// reported at once in a MergeError, with the parts to rerun and the command that reruns
// them (a rerun resumes: only the missing trials run). With a key, every manifest and
// checkpoint line must carry a valid tag under it (checked before it is decoded), and the
// set keeps the key to write the merged checkpoints with. It stops, returning ctx's error
// and no set, before reading another line once ctx is done.
func MergeShards(ctx context.Context, dirs []string, key *evidence.Key) (*ShardSet, error) {
	return MergeShardsProgress(ctx, dirs, key, nil, nil)
}

// MergeShardsProgress is MergeShards calling progress, if not nil, after each checkpoint
// file it reads: done of total (the subjects times the parts found), for a bar with an ETA.
// rerun are flags the "rerun it:" commands add to a part's arguments: the evidence key's
// (--evidence-key=FILE), which the manifests do not keep and a keyed part's resume needs.
func MergeShardsProgress(ctx context.Context, dirs []string, key *evidence.Key, rerun []string, progress func(done, total int)) (*ShardSet, error) {
	if len(dirs) == 0 {
		return nil, errors.New("merge shards: no folders given")
	}
	found, err := FindShards(dirs, key)
	if err != nil {
		return nil, err
	}
	first := found[0]
	var problems []string
	// one audit: same fingerprint and part count
	byFingerprint := map[string][]string{}
	var fps []string
	for _, f := range found {
		if _, ok := byFingerprint[f.Manifest.Fingerprint]; !ok {
			fps = append(fps, f.Manifest.Fingerprint)
		}
		byFingerprint[f.Manifest.Fingerprint] = append(byFingerprint[f.Manifest.Fingerprint], fmt.Sprintf("%s (%s)", f.Shard, f.Dir))
	}
	if len(fps) > 1 {
		msg := "shards of different audits (configuration fingerprints differ; merge the shards of one run):"
		for _, fp := range fps {
			msg += fmt.Sprintf(" %.12s… holds %s;", fp, strings.Join(byFingerprint[fp], ", "))
		}
		for _, f := range found {
			if f.Manifest.Fingerprint != first.Manifest.Fingerprint {
				msg += fmt.Sprintf(" %s and %s differ in %s", first.Shard, f.Shard, manifestDiff(first.Manifest, f.Manifest))
				break
			}
		}
		return nil, &MergeError{Problems: []string{strings.TrimSuffix(msg, ";")}}
	}
	count := first.Shard.Count
	byIndex := map[int]FoundShard{}
	for _, f := range found {
		if f.Shard.Count != count {
			problems = append(problems, fmt.Sprintf("%s holds part %s but %s holds part %s: parts of one run share their count", f.Dir, f.Shard, first.Dir, first.Shard))
			continue
		}
		if g, dup := byIndex[f.Shard.Index]; dup {
			problems = append(problems, fmt.Sprintf("part %s given twice: %s and %s; give each part once", f.Shard, g.Dir, f.Dir))
			continue
		}
		byIndex[f.Shard.Index] = f
	}
	if len(problems) > 0 {
		return nil, &MergeError{Problems: problems}
	}
	ss := &ShardSet{Trials: map[string][]TrialResult{}, header: map[string]checkpointHeader{}, key: key}
	for i := range count {
		if f, ok := byIndex[i]; ok {
			ss.Shards = append(ss.Shards, f)
		}
	}
	n := first.Manifest.Trials
	// missing[part] lists, per subject, the trials missing from that part
	missing := map[int][]string{}
	refused := map[int]bool{} // parts with a checkpoint refused above: a resume would refuse it too
	read, files := 0, len(first.Manifest.Subjects)*len(ss.Shards)
	for _, subj := range first.Manifest.Subjects {
		results := make([]TrialResult, n)
		have := make([]bool, n)
		noise := map[Shard]string{} // each part's noise stream
		for _, f := range ss.Shards {
			path := filepath.Join(f.Dir, subj.File)
			hdr, trials, err := readCheckpointFile(ctx, path, key, subj.Params)
			if ctx.Err() != nil {
				return nil, fmt.Errorf("merge shards: %w", ctx.Err())
			}
			if read++; progress != nil {
				progress(read, files)
			}
			switch {
			case os.IsNotExist(err):
				continue // its trials are reported missing below
			case err != nil:
				problems = append(problems, err.Error())
				refused[f.Shard.Index] = true
				continue
			case hdr.Fingerprint != subj.Fingerprint || hdr.Subject != subj.Name || hdr.Seed != first.Manifest.Seed:
				problems = append(problems, fmt.Sprintf("%s: written for %s (seed %d, fingerprint %.12s…), not %q of this run", path, clip.Quote(hdr.Subject), hdr.Seed, hdr.Fingerprint, subj.Name))
				continue
			}
			ss.header[subj.Name] = hdr
			noise[f.Shard] = hdr.Noise
			for _, t := range trials {
				switch {
				case t.Index >= n:
					continue // an earlier, longer run's trial: kept there, not used
				case !f.Shard.Owns(t.Index):
					problems = append(problems, fmt.Sprintf("%s holds trial %d, which belongs to part %d/%d, not %s", path, t.Index, t.Index%count, count, f.Shard))
				case have[t.Index]:
					problems = append(problems, fmt.Sprintf("trial %d of %s twice (%s)", t.Index, subj.Name, path))
				default:
					results[t.Index], have[t.Index] = t, true
				}
			}
		}
		if p := mixedNoise(subj.Name, noise, byIndex); p != "" {
			problems = append(problems, p)
		}
		var lost map[int][]int
		for i, ok := range have {
			if !ok {
				if lost == nil {
					lost = map[int][]int{}
				}
				lost[i%count] = append(lost[i%count], i)
			}
		}
		for part, idx := range lost {
			missing[part] = append(missing[part], fmt.Sprintf("%s: %s", subj.Name, listIndices(idx, 4)))
		}
		ss.Trials[subj.Name] = results
	}
	parts := make([]int, 0, len(missing))
	for p := range missing {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	for _, p := range parts {
		sh := Shard{Index: p, Count: count}
		where := "not among the folders given"
		if f, ok := byIndex[p]; ok {
			where = "in " + f.Dir
			if !f.Manifest.Complete {
				where += ", which did not finish (interrupted, or still running)"
			}
		}
		if refused[p] {
			// its trials are not missing but unreadable: the resume would refuse the same file
			problems = append(problems, fmt.Sprintf("part %s's trials cannot be used: its checkpoint is refused above (%s); mend the file, or start the part over: %s", sh, where, rerunCommand(first, sh, append(slices.Clone(rerun), "--fresh")...)))
			continue
		}
		problems = append(problems, fmt.Sprintf("part %s is missing trials (%s) — %s; rerun it: %s", sh, strings.Join(missing[p], "; "), where, rerunCommand(first, sh, rerun...)))
	}
	if len(problems) > 0 {
		return nil, &MergeError{Problems: problems}
	}
	return ss, nil
}

// RerunCommands are the commands that rerun every part of the set, in part order, with
// the flags extra after the audit's own (a merge whose trials this version cannot resume
// names them with --fresh).
func (ss *ShardSet) RerunCommands(extra ...string) []string {
	var cmds []string
	for _, f := range ss.Shards {
		cmds = append(cmds, rerunCommand(f, f.Shard, extra...))
	}
	return cmds
}

// mixedNoise is the problem of a subject whose parts drew their noise from different
// streams (checkpoints' noise field: written by different versions), or "": one audit's
// trials cannot mix two laws of noise. The parts to rerun from scratch are those not of
// the one stream a header names, if exactly one is named (an unnamed stream is the
// older), else those not of the first part's.
func mixedNoise(subject string, noise map[Shard]string, byIndex map[int]FoundShard) string {
	var parts []Shard
	named := map[string]bool{}
	for sh, n := range noise {
		parts = append(parts, sh)
		if n != "" {
			named[n] = true
		}
	}
	slices.SortFunc(parts, func(a, b Shard) int { return a.Index - b.Index })
	if len(parts) == 0 {
		return ""
	}
	keep := noise[parts[0]]
	if len(named) == 1 {
		for n := range named {
			keep = n
		}
	}
	var streams, reruns []string
	mixed := false
	for _, sh := range parts {
		n := noise[sh]
		if n == "" {
			n = "an unnamed stream (written before streams were named)"
		} else {
			n = clip.Quote(n)
		}
		streams = append(streams, fmt.Sprintf("part %s %s", sh, n))
		if noise[sh] != keep {
			mixed = true
			reruns = append(reruns, rerunCommand(byIndex[sh.Index], sh, "--fresh"))
		}
	}
	if !mixed {
		return ""
	}
	return fmt.Sprintf("%s: the parts drew their noise from different streams (%s), written by different versions: one audit's trials cannot mix them; rerun from scratch: %s",
		subject, strings.Join(streams, ", "), strings.Join(reruns, "; "))
}

// rerunCommand is the command that (re)runs part sh of the audit f belongs to, into the
// folder the shards' folders are in, with the flags extra after the audit's own.
func rerunCommand(f FoundShard, sh Shard, extra ...string) string {
	out := filepath.Dir(f.Dir)
	if filepath.Base(f.Dir) != f.Shard.Name() { // a shard's own folder was given
		out = f.Dir
	}
	if wd, err := os.Getwd(); err == nil && f.Manifest.Dir != "" && f.Manifest.Dir != wd && !filepath.IsAbs(out) {
		// the folder was named from where merge runs; the command runs from the part's
		// own folder, where the same relative name is another place
		out = filepath.Join(wd, out)
	}
	// every word quoted: the arguments and folders come from the shards' manifests and the
	// command line, and the command is printed to be pasted into a shell
	cmd := shell.Join(append(append(append([]string{"audit", "run"}, f.Manifest.Args...), extra...), "--shard="+sh.String(), "--out="+out))
	if f.Manifest.Dir != "" {
		cmd = "(cd -- " + shell.Quote(f.Manifest.Dir) + " && " + cmd + ")"
	}
	return cmd
}

// manifestDiff names what differs between two manifests' settings.
func manifestDiff(a, b ShardManifest) string {
	var d []string
	if a.Tool != b.Tool {
		d = append(d, fmt.Sprintf("tool (%s, not %s)", a.Tool, b.Tool))
	}
	if !slices.Equal(a.Args, b.Args) {
		d = append(d, fmt.Sprintf("arguments (%s, not %s)", strings.Join(a.Args, " "), strings.Join(b.Args, " ")))
	}
	if a.Seed != b.Seed {
		d = append(d, fmt.Sprintf("seed (%d, not %d)", a.Seed, b.Seed))
	}
	if a.Trials != b.Trials {
		d = append(d, fmt.Sprintf("trials (%d, not %d)", a.Trials, b.Trials))
	}
	if len(d) == 0 {
		d = append(d, "the data, claim or method settings behind the same arguments (the spec file or its data changed between them)")
	}
	return strings.Join(d, "; ")
}

// readCheckpointFile reads a whole checkpoint: its header and every complete trial line,
// each checked as a resuming run checks it (tag under key, checksum, index range, no
// repeats), and each bounded by MaxTrialLineBytes(params). A torn last line is dropped:
// its trial is missing. It stops before reading another line once ctx is done (a shard's
// file may hold thousands of lines: merge answers a signal between two of them).
func readCheckpointFile(ctx context.Context, path string, key *evidence.Key, params int) (checkpointHeader, []TrialResult, error) {
	f, err := regular.Open(path)
	if err != nil {
		return checkpointHeader{}, nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	var (
		hdr    checkpointHeader
		trials []TrialResult
		seen   = map[int]int{}
	)
	for k := 1; ; k++ {
		if err := ctx.Err(); err != nil {
			return hdr, nil, fmt.Errorf("read %s: %w", path, err)
		}
		line, err := readLine(r, MaxTrialLineBytes(params))
		if mergeLineRead != nil {
			mergeLineRead()
		}
		if errors.Is(err, errLineTooLong) {
			return hdr, nil, &CheckpointError{Path: path, Line: k, Msg: "line " + lineBound(params)}
		}
		if len(line) == 0 || line[len(line)-1] != '\n' {
			if err != nil && !errors.Is(err, io.EOF) {
				return hdr, nil, fmt.Errorf("read %s: %w", path, err)
			}
			if k == 1 {
				return hdr, nil, &CheckpointError{Path: path, Msg: "empty"}
			}
			return hdr, trials, nil
		}
		if k == 1 {
			var ce *CheckpointError
			if hdr, ce = readHeader(line, key); ce != nil {
				ce.Path = path
				return hdr, nil, ce
			}
			continue
		}
		if ce := checkLine(k, line, hdr, key, seen, func(t TrialResult) { trials = append(trials, t) }); ce != nil {
			ce.Path = path
			return hdr, nil, ce
		}
	}
}

// mergeLineRead, if not nil, is called after each line readCheckpointFile reads: a test's
// count of the lines read after a cancellation.
var mergeLineRead func()

// errLineTooLong is readLine's refusal of a line past its bound.
var errLineTooLong = errors.New("line too long")

// readLine reads up to and including the next '\n' (or to the end of the input), but
// refuses with errLineTooLong, having held no more than about max bytes, a line longer
// than max: the bound holds whatever the file holds.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// A Dimensioned subject says how many parameters its models have: no vector of its
// releases (published, secret, coupled) has more coordinates. A checkpoint line of its
// trials is then bounded by MaxTrialLineBytes(Params()), when read (resuming, merging)
// and when written.
type Dimensioned interface {
	Params() int
}

// ParamsOf is s's Params, or 0 (unknown) when s is not Dimensioned.
func ParamsOf(s Subject) int {
	if d, ok := s.(Dimensioned); ok {
		return d.Params()
	}
	return 0
}

const (
	// trialVectors is the most vectors of p numbers a trial line holds: two releases
	// (unlearned, retrained) of up to three models each (reference.Release's published,
	// secret and coupled).
	trialVectors = 6
	// floatBytes bounds one number of a trial line with its separator. encoding/json writes
	// a float64 as strconv's shortest text ('f' for 1e-6 ≤ |x| < 1e21, else 'e' with a
	// trimmed exponent): at most 17 significant digits, so at most 25 characters
	// ("-0.0000012345678901234567"; "-1.2345678901234567e-308" is 24), plus a comma: 26,
	// rounded up to 32.
	floatBytes = 32
	// lineSlack bounds the rest of a line: the index, field names, the diagnostics (a few
	// named numbers), the checksum and an evidence key's tag; a header line fits too.
	lineSlack = 64 << 10
	// maxParams bounds a manifest's params: beyond any model the toolkit trains, and small
	// enough that MaxTrialLineBytes cannot overflow.
	maxParams = 1 << 31
	// maxTrialLineBytes bounds a line of a subject that does not say its dimension: six
	// models of up to reference.MaxValues/6 parameters could not be held anyway; a line
	// this long is not a trial this toolkit wrote.
	maxTrialLineBytes = 1 << 30
)

// MaxTrialLineBytes is the longest checkpoint line a trial of a subject whose models have
// p parameters can write: 64 KiB + 6·p·32 bytes (see trialVectors, floatBytes). A longer
// line is refused before more of it is held, so a hostile line costs about this bound,
// whatever its length. p ≤ 0 (unknown) gives 1 GiB.
func MaxTrialLineBytes(p int) int {
	if !knownParams(p) {
		return maxTrialLineBytes
	}
	return lineSlack + trialVectors*p*floatBytes
}

// lineBound describes MaxTrialLineBytes(p) for messages.
func lineBound(p int) string {
	if !knownParams(p) {
		return fmt.Sprintf("longer than %d bytes, more than any trial line", maxTrialLineBytes)
	}
	return fmt.Sprintf("longer than %d bytes, the most a trial line of a model of %d parameters holds", MaxTrialLineBytes(p), p)
}

// knownParams reports whether p is a model dimension the line bound can use.
func knownParams(p int) bool { return p > 0 && int64(p) <= maxParams }

// WriteCheckpoints writes every subject's merged trials into trialDir, one checkpoint
// file per subject under the name its shards used, as a one-machine run would have left
// them: a run resuming from trialDir (Engine.ResumeOnly) then checks and reports exactly
// what it would have. Each file is written whole or not at all. With a Folder, trialDir
// is a folder's name inside it (slash-separated), and the files are written beneath it,
// following no link; with nil, trialDir is a path.
func (ss *ShardSet) WriteCheckpoints(out atomicfile.Folder, trialDir string) error {
	for _, subj := range ss.Manifest().Subjects {
		hdr, ok := ss.header[subj.Name]
		if !ok {
			return fmt.Errorf("write merged trials of %s: no shard had its file", subj.Name)
		}
		name, trials := subj.Name, ss.Trials[subj.Name]
		write := atomicfile.WriteAtomic
		file := filepath.Join(trialDir, filepath.Base(subj.File))
		if out != nil {
			write, file = out.WriteAtomic, path.Join(trialDir, path.Base(subj.File))
		}
		err := write(file, func(w io.Writer) error {
			// one line per value, as the engine writes them
			b, err := encodeLine(ss.key, headerDomain, nil, hdr)
			if err != nil {
				return err
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
			for _, t := range trials {
				b, err := encodeTrial(ss.key, hdr, t)
				if err != nil {
					return err
				}
				if _, err := w.Write(b); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("write merged trials of %s: %w", name, err)
		}
	}
	return nil
}
