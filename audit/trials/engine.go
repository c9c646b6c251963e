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
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"path/filepath"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/internal/atomicfile"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// TrialResult is one trial: the unlearned and the retrained release.
type TrialResult struct {
	Index     int               `json:"index"`
	Unlearned reference.Release `json:"unlearned"`
	Retrained reference.Release `json:"retrained"`
}

// A Fingerprinter is a Subject that can say what its configuration is beyond its claim
// (the data, the update sequence), so a checkpoint written for one configuration is never
// resumed by another.
type Fingerprinter interface {
	Fingerprint() string
}

// MaxTrials is the most trials per subject the front ends accept: above the ~450,000 per
// side the planner asks for to catch a 2× violation of ε = 1 at δ = 1e-6, and small enough
// that the trials' results (a model each) fit in memory.
const MaxTrials = 1_000_000

// Engine runs trials of a Subject on a pool of workers.
//
// Trial i draws all its randomness from reference.Streams{Seed, Trial: i}, so a trial's
// result does not depend on which worker runs it or when: any number of workers gives the
// same results. With a Checkpoint path, every finished trial is appended to that file as
// one JSON line as soon as it finishes; a later Run with the same subject, seed and path
// reads the finished trials back and runs only the missing ones, so an interrupted audit
// resumes without redoing work and without losing any.
type Engine struct {
	Workers    int    // 0 means GOMAXPROCS
	Checkpoint string // JSON-lines file of finished trials; "" keeps them in memory only
	// Folder, if set, is the output folder Checkpoint is a name inside (slash-separated):
	// the file is opened beneath it, following no symbolic link on the way.
	Folder atomicfile.Folder
	// Progress, if set, is told how many of the trials are done: once before any runs
	// (counting those resumed from the checkpoint) and after each finished trial, always
	// from the goroutine that called Run.
	Progress func(subject string, done, total int)
	// Shard, unless whole, restricts Run to the shard's trials: they are appended to the
	// Checkpoint (which a sharded Run requires), for MergeShards to gather, and Run returns
	// no results.
	Shard Shard
	// ResumeOnly makes Run read every trial from the Checkpoint and run none: a missing
	// trial is an error naming it (what merging shards relies on: a gap is never filled
	// silently by the merging machine).
	ResumeOnly bool
	// Key, if set, authenticates the checkpoint: every line written carries an HMAC-SHA256
	// tag under it, and every line read back must carry a valid one, checked before the line
	// is decoded (a line forged or edited by someone without the key is refused, naming the
	// file and line). A checkpoint written with a key is refused without one, and the
	// other way round. Without a key the lines carry only checksums: they catch accidents,
	// not someone who can write the file.
	Key *evidence.Key
}

const checkpointSchema = "unlearnaudit/trials/v2"

// checkpointHeader is a checkpoint's first line: what the trials are of. Claim is kept in
// clear so that a refusal can name the settings that differ.
type checkpointHeader struct {
	Schema      string `json:"schema"`
	Subject     string `json:"subject"`
	Seed        uint64 `json:"seed"`
	Epsilon     string `json:"epsilon"` // %g: the claim may be +Inf, which JSON cannot encode
	Delta       string `json:"delta"`
	Claim       string `json:"claim"`
	Fingerprint string `json:"fingerprint"`
	// Noise names the generator of the trials' noise (a NoiseStreamer's NoiseStream);
	// absent for subjects that name none, and in checkpoints written before streams were
	// named.
	Noise string `json:"noise,omitempty"`
	// unnamedNoise is what the subject says an unnamed stream was, for the refusal of a
	// checkpoint that names none; never written, never compared.
	unnamedNoise string
}

// sameAudit reports whether the header read, got, is the one the audit expects.
func (want checkpointHeader) sameAudit(got checkpointHeader) bool {
	got.unnamedNoise = want.unnamedNoise
	return got == want
}

// trialLine is a checkpoint's trial line: the result and a checksum of the configuration's
// fingerprint and the result's own JSON, so that a line edited by accident, or copied from
// another configuration's file, is caught rather than read into a report. The checksum
// keeps no secret: only an evidence key's tag (Engine.Key) stops someone who can write the
// file.
type trialLine struct {
	TrialResult
	Sum string `json:"sum"`
}

// trialSum is the checksum a trial line of the given configuration carries.
func trialSum(fingerprint string, r TrialResult) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	io.WriteString(h, fingerprint+"\n")
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// A CheckpointError is a checkpoint file that cannot be resumed from: the file, the line
// (0 for the whole file) and why. Starting over (removing the file, the CLI's --fresh)
// is the remedy.
type CheckpointError struct {
	Path string
	Line int
	Msg  string
}

func (e *CheckpointError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("checkpoint %s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("checkpoint %s: %s", e.Path, e.Msg)
}

// Fingerprint identifies a subject's configuration: its name, its claim and, if it has
// one, its own fingerprint.
func Fingerprint(s Subject) string {
	h := sha256.New()
	// %+v rather than JSON: a claim may hold ±Inf, which JSON cannot encode
	fmt.Fprintf(h, "%s\n%+v\n", s.Name(), s.Claim())
	if f, ok := s.(Fingerprinter); ok {
		io.WriteString(h, f.Fingerprint())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ConfigFingerprint hashes what identifies a subject's configuration beyond its claim,
// for a Fingerprinter: a header naming its settings, the data it learns on, the requests
// it serves and any records it brings in (SGLU's replacements).
func ConfigFingerprint(header string, data *reference.Dataset, updates []reference.Update, records []reference.Record) string {
	h := sha256.New()
	io.WriteString(h, header+"\n")
	data.HashInto(h)
	for _, u := range updates {
		fmt.Fprintf(h, "%s|%v|%v\n", u, u.Record.X, u.Record.Y)
	}
	reference.HashRecords(h, records...)
	return hex.EncodeToString(h.Sum(nil))
}

// CheckpointPath is where, under dir, the trials of s with the given seed are kept: one
// file per subject, seed and configuration fingerprint, so rerunning with the same
// configuration resumes and rerunning with another starts a file of its own; trials of
// two configurations are never mixed.
func CheckpointPath(dir string, s Subject, seed uint64) string {
	return filepath.Join(dir, checkpointStem(s, seed)+Fingerprint(s)[:fingerprintChars]+".jsonl")
}

// fingerprintChars is how much of the fingerprint a checkpoint's name carries.
const fingerprintChars = 12

// checkpointStem is a checkpoint's name up to its fingerprint: the subject's name (made a
// file name) and the seed.
func checkpointStem(s Subject, seed uint64) string {
	name := strings.NewReplacer("/", "-", "=", "", " ", "_").Replace(s.Name())
	return fmt.Sprintf("%s-seed%d-", name, seed)
}

// OtherCheckpoints is, among names (slash-separated files, as an output folder lists
// them), the checkpoints of s at seed under another fingerprint than CheckpointPath(dir,
// s, seed)'s: s's trials kept by a run of another configuration (other settings, data or
// claim, another engine, an earlier version), which a run of this one neither reads nor
// removes. A subject whose name begins like s's is not taken for it: what follows the
// stem must be a fingerprint's hex digits and ".jsonl", nothing else.
func OtherCheckpoints(dir string, s Subject, seed uint64, names []string) []string {
	stem := filepath.ToSlash(filepath.Join(dir, checkpointStem(s, seed)))
	own := filepath.ToSlash(CheckpointPath(dir, s, seed))
	var others []string
	for _, name := range names {
		fp, ok := strings.CutPrefix(name, stem)
		if !ok || name == own {
			continue
		}
		fp, ok = strings.CutSuffix(fp, ".jsonl")
		if ok && len(fp) == fingerprintChars && strings.Trim(fp, "0123456789abcdef") == "" {
			others = append(others, name)
		}
	}
	return others
}

// CheckTrialCapacity refuses, before any work, an audit of the given trials whose kept
// models would exceed lim's cap (reference.Limits.MaxValues): each trial keeps two releases (unlearned and
// retrained), each with up to three models of dim parameters (published, secret and
// coupled; reference.Release).
func CheckTrialCapacity(trials, dim int, lim reference.Limits) error {
	if err := lim.CheckValues("models kept by the audit (up to 6 per trial)", 6*trials, dim); err != nil {
		return fmt.Errorf("%w; or lower --trials", err)
	}
	return nil
}

// Run returns trials 0..n−1 of s in index order (with a Shard, runs the shard's trials
// into the checkpoint and returns none).
func (e Engine) Run(ctx context.Context, s Subject, seed uint64, n int) ([]TrialResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("run %s: %d trials; want at least 1", s.Name(), n)
	}
	if !e.Shard.Whole() && e.Checkpoint == "" {
		return nil, fmt.Errorf("run %s: shard %s without a checkpoint file: its trials would be lost", s.Name(), e.Shard)
	}
	results := make([]TrialResult, n)
	done := make([]bool, n)
	var sink *checkpoint
	if e.Checkpoint != "" {
		cl := s.Claim()
		hdr := checkpointHeader{Schema: checkpointSchema, Subject: s.Name(), Seed: seed, Epsilon: fmt.Sprintf("%g", cl.Epsilon),
			Delta: fmt.Sprintf("%g", cl.Delta), Claim: fmt.Sprintf("%+v", cl), Fingerprint: Fingerprint(s)}
		hdr.Noise, hdr.unnamedNoise = NoiseStreamOf(s)
		var err error
		sink, err = openCheckpoint(e.checkpointFile(), hdr, e.Key, ParamsOf(s), func(r TrialResult) {
			if r.Index < n { // trials beyond n (an earlier, longer run) are kept, not used
				results[r.Index], done[r.Index] = r, true
			}
		})
		if err != nil {
			return nil, err
		}
		defer sink.Close()
	}
	var todo []int
	for i, ok := range done {
		if !ok && e.Shard.Owns(i) {
			todo = append(todo, i)
		}
	}
	total := e.Shard.Trials(n)
	finished := total - len(todo)
	report := func() {
		if e.Progress != nil {
			e.Progress(s.Name(), finished, total)
		}
	}
	report()
	if e.ResumeOnly && len(todo) > 0 {
		return nil, fmt.Errorf("run %s: %d of %d trials missing from %s (%s), and this run may not run any", s.Name(), len(todo), n, e.checkpointFile().path, listIndices(todo, 8))
	}
	if len(todo) == 0 {
		if !e.Shard.Whole() {
			return nil, nil
		}
		return results, nil
	}
	// batches of the trials to do, aligned on multiples of the batch size, so a trial's
	// companions do not depend on what was resumed
	k := batchSize(s)
	var batches [][]int
	for _, i := range todo {
		if n := len(batches); n > 0 && batches[n-1][0]/k == i/k {
			batches[n-1] = append(batches[n-1], i)
			continue
		}
		batches = append(batches, []int{i})
	}
	workers := e.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(batches))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan []int)
	out := make(chan TrialResult)
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range jobs {
				rs, err := runTrials(ctx, s, seed, batch)
				if err != nil {
					fail(err)
					return
				}
				for _, r := range rs {
					select {
					case out <- r:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, batch := range batches {
			select {
			case jobs <- batch:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()
	for r := range out {
		if sink != nil {
			if err := sink.Append(r); err != nil {
				fail(err)
				continue
			}
		}
		results[r.Index], done[r.Index] = r, true
		finished++
		report()
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("run %s: %w", s.Name(), err)
	}
	for i, ok := range done {
		if !ok && e.Shard.Owns(i) {
			return nil, fmt.Errorf("run %s: trial %d did not finish", s.Name(), i)
		}
	}
	if !e.Shard.Whole() {
		return nil, nil
	}
	return results, nil
}

// listIndices names up to max indices: "trials 3, 7, 11, … (250 in all)".
func listIndices(idx []int, max int) string {
	if len(idx) == 1 {
		return fmt.Sprintf("trial %d", idx[0])
	}
	parts := make([]string, 0, max+1)
	for k, i := range idx {
		if k == max {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, strconv.Itoa(i))
	}
	out := "trials " + strings.Join(parts, ", ")
	if len(idx) > max {
		out += fmt.Sprintf(" (%d in all)", len(idx))
	}
	return out
}

// A BatchSubject can run several trials at once — in lockstep, each step one pass over the
// data for all of them. Trial i's result must be the same bits whichever trials share its
// batch (and as Unlearned and Retrained give alone): then batching is a matter of speed,
// and the engine's determinism (any workers, any resume) holds for batches too.
type BatchSubject interface {
	Subject
	// BatchSize is the most trials it runs together; below 1 the engine runs them one by
	// one through Unlearned and Retrained.
	BatchSize() int
	// RunTrials runs the given trials, returning each one's unlearned and retrained release
	// in the order given.
	RunTrials(ctx context.Context, seed uint64, indices []int) ([]TrialResult, error)
}

// batchSize is how many trials of s the engine runs together.
func batchSize(s Subject) int {
	if bs, ok := s.(BatchSubject); ok {
		return max(1, bs.BatchSize())
	}
	return 1
}

// runTrials runs the trials of one batch: with RunTrials for a BatchSubject, else one by one.
func runTrials(ctx context.Context, s Subject, seed uint64, batch []int) ([]TrialResult, error) {
	bs, ok := s.(BatchSubject)
	if !ok || bs.BatchSize() < 1 {
		out := make([]TrialResult, len(batch))
		for k, i := range batch {
			r, err := RunTrial(ctx, s, seed, i)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	out, err := bs.RunTrials(ctx, seed, batch)
	if err != nil {
		return nil, fmt.Errorf("%s trials %s: %w", s.Name(), listIndices(batch, 4), err)
	}
	if len(out) != len(batch) {
		return nil, fmt.Errorf("%s: %d results for %d trials", s.Name(), len(out), len(batch))
	}
	for k, r := range out {
		if r.Index != batch[k] {
			return nil, fmt.Errorf("%s: result %d is trial %d, want %d", s.Name(), k, r.Index, batch[k])
		}
		if err := checkFinite(s, r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkFinite refuses a trial with a non-finite model coordinate.
func checkFinite(s Subject, r TrialResult) error {
	for _, v := range [][]float64{r.Unlearned.Published, r.Unlearned.Secret, r.Retrained.Published, r.Retrained.Secret} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s trial %d produced a non-finite model coordinate %v", s.Name(), r.Index, x)
			}
		}
	}
	return nil
}

// RunTrial runs trial i of s: the unlearned and the retrained release with the streams of
// (seed, i). Non-finite outputs are errors.
func RunTrial(ctx context.Context, s Subject, seed uint64, i int) (TrialResult, error) {
	st := reference.Streams{Seed: seed, Trial: i}
	u, err := s.Unlearned(ctx, st)
	if err != nil {
		return TrialResult{}, fmt.Errorf("%s trial %d, unlearned run: %w", s.Name(), i, err)
	}
	r, err := s.Retrained(ctx, st)
	if err != nil {
		return TrialResult{}, fmt.Errorf("%s trial %d, retrain: %w", s.Name(), i, err)
	}
	res := TrialResult{Index: i, Unlearned: u, Retrained: r}
	if err := checkFinite(s, res); err != nil {
		return TrialResult{}, err
	}
	return res, nil
}

// checkpoint is an append-only JSON-lines file of finished trials.
type checkpoint struct {
	path   string
	open   func(flag int, perm os.FileMode) (*os.File, error) // the file, by checkpointFile
	hdr    checkpointHeader
	key    *evidence.Key // tags every line; nil: checksums only
	f      *os.File      // nil until the first trial when the file did not exist
	w      *bufio.Writer
	headed bool // the header line is written
	params int  // the subject's Params: no line longer than MaxTrialLineBytes(params) is written
}

// Domains of the evidence tags (evidence.Key.Tag): a tag made for one kind of line never
// verifies as another.
const (
	headerDomain   = "unlearnaudit/checkpoint-header/v1"
	trialDomain    = "unlearnaudit/trial/v1"
	manifestDomain = "unlearnaudit/shard-manifest/v1"
)

// trialContext is what a trial line's tag is bound to: its checkpoint's header, so a tagged
// line copied from another subject's, seed's or configuration's file does not verify.
// Without a key there is no tag and no context: nil, and no encoding per line.
func trialContext(key *evidence.Key, hdr checkpointHeader) []byte {
	if key == nil {
		return nil
	}
	b, _ := json.Marshal(hdr) // a header of strings and a number always encodes
	return b
}

// encodeLine is one checkpoint line: v's JSON and, with a key, its tag in front.
func encodeLine(key *evidence.Key, domain string, context []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if key != nil {
		b = key.Seal(domain, context, b, ' ')
	}
	return append(b, '\n'), nil
}

// openLine returns line number k's JSON: with a key, once its tag is checked; without one,
// the line as it is, unless it is tagged (written with a key: refused, not misread).
func openLine(k int, line []byte, key *evidence.Key, domain string, context []byte) ([]byte, *CheckpointError) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	what := "trial line"
	if k == 1 {
		what = "header"
	}
	if key == nil {
		if evidence.Tagged(line, ' ') {
			if k == 1 {
				return nil, &CheckpointError{Line: k, Msg: "written with an evidence key (its lines are tagged): give the key (--evidence-key FILE or " + evidence.KeyEnv + ") to read it"}
			}
			return nil, &CheckpointError{Line: k, Msg: "tagged " + what + " in a file written without an evidence key (edited)"}
		}
		return line, nil
	}
	body, err := key.Open(domain, context, line, ' ')
	switch {
	case errors.Is(err, evidence.ErrUntagged) && k == 1:
		return nil, &CheckpointError{Line: k, Msg: "written without an evidence key (its trials are unauthenticated), but this run has one: rerun it under the key, or read it without one"}
	case errors.Is(err, evidence.ErrUntagged):
		return nil, &CheckpointError{Line: k, Msg: "untagged trial line in a file written with an evidence key: forged or edited"}
	case err != nil:
		return nil, &CheckpointError{Line: k, Msg: what + "'s tag does not match its content under the evidence key: forged or edited, or written under another key"}
	}
	return body, nil
}

// readHeader reads a checkpoint's first line: false if it is not a header of
// checkpointSchema.
func readHeader(line []byte, key *evidence.Key) (checkpointHeader, *CheckpointError) {
	body, ce := openLine(1, line, key, headerDomain, nil)
	if ce != nil {
		return checkpointHeader{}, ce
	}
	h, ok := decodeHeader(body)
	if !ok {
		return checkpointHeader{}, &CheckpointError{Line: 1, Msg: "not a trials file of schema " + checkpointSchema}
	}
	return h, nil
}

// checkLine reads line number k of a checkpoint: the header must be hdr; a trial line must
// carry a valid tag under key (if there is a key; checked before anything else), be well
// formed, carry its checksum, and hold an index in range that no earlier line (recorded in
// seen) holds. The error's Path is left to the caller.
func checkLine(k int, line []byte, hdr checkpointHeader, key *evidence.Key, seen map[int]int, load func(TrialResult)) *CheckpointError {
	fail := func(format string, args ...any) *CheckpointError {
		return &CheckpointError{Line: k, Msg: fmt.Sprintf(format, args...)}
	}
	if k == 1 {
		got, ce := readHeader(line, key)
		if ce != nil {
			return ce
		}
		if got.Noise != hdr.Noise {
			return &CheckpointError{Msg: noiseMismatch(got, hdr)}
		}
		if !hdr.sameAudit(got) {
			return &CheckpointError{Msg: "written for another audit: " + headerDiff(got, hdr)}
		}
		return nil
	}
	body, ce := openLine(k, line, key, trialDomain, trialContext(key, hdr))
	if ce != nil {
		return ce
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var t trialLine
	if err := dec.Decode(&t); err != nil {
		return fail("not a trial line: %v", err)
	}
	if t.Sum == "" {
		return fail("trial line without its checksum")
	}
	if want, err := trialSum(hdr.Fingerprint, t.TrialResult); err != nil || want != t.Sum {
		return fail("checksum does not match the line's content and this configuration (edited, or copied from another audit's file)")
	}
	switch first, dup := seen[t.Index]; {
	case t.Index < 0 || t.Index >= MaxTrials:
		return fail("trial index %d out of range [0, %d)", t.Index, MaxTrials)
	case dup:
		return fail("trial %d again (first at line %d)", t.Index, first)
	}
	seen[t.Index] = k
	load(t.TrialResult)
	return nil
}

// decodeHeader reads a checkpoint's first line, strictly: false if it is not a header of
// checkpointSchema.
func decodeHeader(line []byte) (checkpointHeader, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var h checkpointHeader
	if err := dec.Decode(&h); err != nil || h.Schema != checkpointSchema {
		return checkpointHeader{}, false
	}
	return h, true
}

// noiseMismatch says why a checkpoint whose trials drew their noise from another stream
// than this version's cannot be resumed, naming both.
func noiseMismatch(got, want checkpointHeader) string {
	name := func(h checkpointHeader, unnamed string) string {
		switch {
		case h.Noise != "":
			return clip.Quote(h.Noise)
		case unnamed != "":
			return "an unnamed stream (" + unnamed + ")"
		}
		return "no named stream"
	}
	return fmt.Sprintf("its trials drew their noise from %s, this version's from %s: they cannot be mixed with this version's trials, nor re-run by it; start this configuration's trials over", name(got, want.unnamedNoise), name(want, ""))
}

// headerDiff names what differs between a checkpoint's header and the audit resuming it.
func headerDiff(got, want checkpointHeader) string {
	var diffs []string
	if got.Subject != want.Subject {
		diffs = append(diffs, fmt.Sprintf("subject %s, not %s", clip.Quote(got.Subject), clip.Quote(want.Subject)))
	}
	if got.Seed != want.Seed {
		diffs = append(diffs, fmt.Sprintf("seed %d, not %d", got.Seed, want.Seed))
	}
	if got.Epsilon != want.Epsilon {
		diffs = append(diffs, fmt.Sprintf("ε %s, not %s", got.Epsilon, want.Epsilon))
	}
	if got.Delta != want.Delta {
		diffs = append(diffs, fmt.Sprintf("δ %s, not %s", got.Delta, want.Delta))
	}
	if len(diffs) == 0 && got.Claim != want.Claim {
		diffs = append(diffs, "the claim's constants or derivation (the same ε and δ)")
	}
	if len(diffs) == 0 {
		diffs = append(diffs, fmt.Sprintf("the same subject, seed and claim, but another configuration of its data, requests or method settings (fingerprint %.12s…, not %.12s…)", got.Fingerprint, want.Fingerprint))
	}
	return strings.Join(diffs, "; ")
}

// checkpointFile is the engine's checkpoint: its path, and how it is opened (beneath the
// Folder, if any).
func (e Engine) checkpointFile() checkpointFile {
	if e.Folder == nil {
		return checkpointFile{path: e.Checkpoint, open: func(flag int, perm os.FileMode) (*os.File, error) {
			return os.OpenFile(e.Checkpoint, flag, perm)
		}}
	}
	return checkpointFile{path: e.Folder.Join(e.Checkpoint), open: func(flag int, perm os.FileMode) (*os.File, error) {
		return e.Folder.OpenFile(e.Checkpoint, flag, perm)
	}}
}

// A checkpointFile is a checkpoint's path, for messages, and its opener.
type checkpointFile struct {
	path string
	open func(flag int, perm os.FileMode) (*os.File, error)
}

// openCheckpoint opens or creates the file, checks its header against hdr, feeds every
// complete trial line to load, and drops an incomplete last line (an interrupted write).
// The file is read streamed, a line at a time, each bounded by MaxTrialLineBytes(params)
// (and lines longer are never written); one that is not a regular file (a FIFO, a
// device) is refused without blocking. With a key, every line is checked and written
// with its tag.
func openCheckpoint(file checkpointFile, hdr checkpointHeader, key *evidence.Key, params int, load func(TrialResult)) (*checkpoint, error) {
	path := file.path
	// not followed: a checkpoint planted as a link would have the run append trials to
	// whatever file it names, outside the folder the tool owns
	f, err := file.open(os.O_RDWR|syscall.O_NONBLOCK|regular.NoFollow, 0)
	if os.IsNotExist(err) {
		// created with the first finished trial: a run that finishes none leaves no file
		return &checkpoint{path: path, open: file.open, hdr: hdr, key: key, params: params}, nil
	}
	if errors.Is(err, regular.ErrLink) {
		return nil, &CheckpointError{Path: path, Msg: err.Error()}
	}
	if regular.IsLinkRefusal(err, path) {
		if f != nil {
			f.Close()
		}
		return nil, &CheckpointError{Path: path, Msg: "a symbolic link, not followed: the run writes only files of its own"}
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	fail := func(err error) (*checkpoint, error) {
		f.Close()
		return nil, err
	}
	if st, err := f.Stat(); err != nil {
		return fail(fmt.Errorf("checkpoint %s: %w", path, err))
	} else if !st.Mode().IsRegular() {
		return fail(&CheckpointError{Path: path, Msg: fmt.Sprintf("not a regular file (%v)", st.Mode().Type())})
	}
	r := bufio.NewReaderSize(f, 1<<16)
	keep := int64(0)      // bytes of complete, valid lines
	seen := map[int]int{} // trial index → its line
	for k := 1; ; k++ {
		line, err := readLine(r, MaxTrialLineBytes(params))
		if errors.Is(err, errLineTooLong) {
			return fail(&CheckpointError{Path: path, Line: k, Msg: "line " + lineBound(params)})
		}
		if len(line) == 0 || line[len(line)-1] != '\n' {
			if err != nil && !errors.Is(err, io.EOF) {
				return fail(fmt.Errorf("checkpoint %s: %w", path, err))
			}
			break // the end, or an interrupted write: dropped
		}
		if ce := checkLine(k, line, hdr, key, seen, load); ce != nil {
			ce.Path = path
			return fail(ce)
		}
		keep += int64(len(line))
	}
	if err := f.Truncate(keep); err != nil {
		return fail(fmt.Errorf("checkpoint %s: %w", path, err))
	}
	if _, err := f.Seek(keep, io.SeekStart); err != nil {
		return fail(fmt.Errorf("checkpoint %s: %w", path, err))
	}
	c := &checkpoint{path: path, open: file.open, hdr: hdr, key: key, params: params, f: f, w: bufio.NewWriter(f)}
	c.headed = keep > 0
	return c, nil
}

func (c *checkpoint) writeLine(b []byte) error {
	if _, err := c.w.Write(b); err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	return nil
}

// Append records one finished trial with its checksum (and, with a key, its tag).
func (c *checkpoint) Append(r TrialResult) error {
	if c.f == nil {
		f, err := c.open(os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", c.path, err)
		}
		c.f, c.w = f, bufio.NewWriter(f)
	}
	if !c.headed {
		b, err := encodeLine(c.key, headerDomain, nil, c.hdr)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", c.path, err)
		}
		if err := c.writeLine(b); err != nil {
			return err
		}
		c.headed = true
	}
	b, err := encodeTrial(c.key, c.hdr, r)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	// a line the bound would refuse is never written: it could not be resumed or merged
	if max := MaxTrialLineBytes(c.params); len(b) > max {
		return fmt.Errorf("checkpoint %s: trial %d's line is %d bytes, more than the %d a model of %d parameters needs: the subject's Params is less than its releases' length", c.path, r.Index, len(b), max, c.params)
	}
	return c.writeLine(b)
}

// encodeTrial is a trial's checkpoint line under hdr: its JSON with its checksum and, with
// a key, its tag.
func encodeTrial(key *evidence.Key, hdr checkpointHeader, r TrialResult) ([]byte, error) {
	sum, err := trialSum(hdr.Fingerprint, r)
	if err != nil {
		return nil, err
	}
	return encodeLine(key, trialDomain, trialContext(key, hdr), trialLine{TrialResult: r, Sum: sum})
}

func (c *checkpoint) Close() error {
	if c.f == nil {
		return nil
	}
	err := c.w.Flush()
	return errors.Join(err, c.f.Close())
}
