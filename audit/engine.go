package audit

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
	"sync"

	"github.com/unlearnaudit/unlearnaudit/reference"
	"path/filepath"
	"strings"
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
}

const checkpointSchema = "unlearnaudit/trials/v1"

type checkpointHeader struct {
	Schema      string `json:"schema"`
	Subject     string `json:"subject"`
	Seed        uint64 `json:"seed"`
	Fingerprint string `json:"fingerprint"`
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
	name := strings.NewReplacer("/", "-", "=", "", " ", "_").Replace(s.Name())
	return filepath.Join(dir, fmt.Sprintf("%s-seed%d-%s.jsonl", name, seed, Fingerprint(s)[:12]))
}

// Run returns trials 0..n−1 of s in index order.
func (e Engine) Run(ctx context.Context, s Subject, seed uint64, n int) ([]TrialResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("run %s: %d trials; want at least 1", s.Name(), n)
	}
	results := make([]TrialResult, n)
	done := make([]bool, n)
	var sink *checkpoint
	if e.Checkpoint != "" {
		hdr := checkpointHeader{Schema: checkpointSchema, Subject: s.Name(), Seed: seed, Fingerprint: Fingerprint(s)}
		var err error
		sink, err = openCheckpoint(e.Checkpoint, hdr, func(r TrialResult) {
			if r.Index >= 0 && r.Index < n {
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
		if !ok {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return results, nil
	}
	workers := e.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(todo))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
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
			for i := range jobs {
				r, err := RunTrial(ctx, s, seed, i)
				if err != nil {
					fail(err)
					return
				}
				select {
				case out <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, i := range todo {
			select {
			case jobs <- i:
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
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("run %s: %w", s.Name(), err)
	}
	for i, ok := range done {
		if !ok {
			return nil, fmt.Errorf("run %s: trial %d did not finish", s.Name(), i)
		}
	}
	return results, nil
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
	for _, v := range [][]float64{u.Published, u.Secret, r.Published, r.Secret} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return TrialResult{}, fmt.Errorf("%s trial %d produced a non-finite model coordinate %v", s.Name(), i, x)
			}
		}
	}
	return TrialResult{Index: i, Unlearned: u, Retrained: r}, nil
}

// checkpoint is an append-only JSON-lines file of finished trials.
type checkpoint struct {
	path string
	f    *os.File
	w    *bufio.Writer
}

// openCheckpoint opens or creates the file, checks its header against hdr, feeds every
// complete trial line to load, and drops an incomplete last line (an interrupted write).
func openCheckpoint(path string, hdr checkpointHeader, load func(TrialResult)) (*checkpoint, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	keep := 0 // bytes of complete, valid lines
	if len(data) > 0 {
		lines := bytes.SplitAfter(data, []byte("\n"))
		for k, line := range lines {
			if len(line) == 0 || line[len(line)-1] != '\n' {
				break // an interrupted write: drop it
			}
			if k == 0 {
				var got checkpointHeader
				if err := json.Unmarshal(line, &got); err != nil || got.Schema != checkpointSchema {
					f.Close()
					return nil, fmt.Errorf("checkpoint %s:1: not a trials file of schema %s", path, checkpointSchema)
				}
				if got != hdr {
					f.Close()
					return nil, fmt.Errorf("checkpoint %s was written for another audit (subject %q, seed %d, configuration %.12s…, not %.12s…); remove it, choose another path, or key the path by the configuration (CheckpointPath)",
						path, got.Subject, got.Seed, got.Fingerprint, hdr.Fingerprint)
				}
			} else {
				var r TrialResult
				if err := json.Unmarshal(line, &r); err != nil {
					f.Close()
					return nil, fmt.Errorf("checkpoint %s:%d: %w", path, k+1, err)
				}
				load(r)
			}
			keep += len(line)
		}
	}
	if err := f.Truncate(int64(keep)); err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if _, err := f.Seek(int64(keep), io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	c := &checkpoint{path: path, f: f, w: bufio.NewWriter(f)}
	if keep == 0 {
		if err := c.writeLine(hdr); err != nil {
			f.Close()
			return nil, err
		}
	}
	return c, nil
}

func (c *checkpoint) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	b = append(b, '\n')
	if _, err := c.w.Write(b); err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	return nil
}

// Append records one finished trial.
func (c *checkpoint) Append(r TrialResult) error { return c.writeLine(r) }

func (c *checkpoint) Close() error {
	err := c.w.Flush()
	return errors.Join(err, c.f.Close())
}
