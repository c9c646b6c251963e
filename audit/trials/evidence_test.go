package trials

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

func evidenceKey(t testing.TB, fill byte) *evidence.Key {
	t.Helper()
	k, err := evidence.ParseKey([]byte(strings.Repeat(fmt.Sprintf("%02x", fill), 32)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// forgeLine rewrites a checkpoint's trial line as the forger did: the trial's
// results changed, and its sha256 checksum recomputed from the fingerprint the header
// prints, so the unkeyed checks pass. A tag in front, if any, is kept as it was.
func forgeLine(t *testing.T, hdr checkpointHeader, line []byte, edit func(*TrialResult)) []byte {
	t.Helper()
	line = bytes.TrimSuffix(line, []byte("\n"))
	prefix := []byte{}
	if evidence.Tagged(line, ' ') {
		prefix, line = line[:evidence.TagHexLen+1], line[evidence.TagHexLen+1:]
	}
	var tl trialLine
	if err := json.Unmarshal(line, &tl); err != nil {
		t.Fatal(err)
	}
	edit(&tl.TrialResult)
	b, _ := json.Marshal(tl.TrialResult)
	h := sha256.New() // the checksum as trialSum computes it, from public data only
	h.Write([]byte(hdr.Fingerprint + "\n"))
	h.Write(b)
	tl.Sum = hex.EncodeToString(h.Sum(nil)[:16])
	out, _ := json.Marshal(tl)
	return append(append(prefix, out...), '\n')
}

func readHeaderOf(t *testing.T, path string, key *evidence.Key) checkpointHeader {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, ce := readHeader(bytes.SplitAfter(b, []byte("\n"))[0], key)
	if ce != nil {
		t.Fatal(ce)
	}
	return h
}

// With a key every line is tagged and a resumed run reads them back; without the key,
// with another key, or with a key on a file written without one, the checkpoint is refused
// at its first line with what is wrong. A forged trial line — its checksum recomputed, as
// anyone who can write the file can — passes without a key and is refused with one,
// naming the file and line; so is an untagged line slipped in.
func TestEngineAuthenticatesCheckpoint(t *testing.T) {
	ctx := context.Background()
	key, other := evidenceKey(t, 0x11), evidenceKey(t, 0x22)
	dir := t.TempDir()
	path := filepath.Join(dir, "trials.jsonl")
	want, err := Engine{Checkpoint: path, Key: key}.Run(ctx, gausstest.NewCounting(-1), 5, 6)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(body, []byte("\n"))
	for i, l := range lines[:len(lines)-1] {
		if !evidence.Tagged(l, ' ') {
			t.Fatalf("line %d is not tagged: %.80s", i+1, l)
		}
	}
	again := gausstest.NewCounting(-1)
	got, err := Engine{Checkpoint: path, Key: key}.Run(ctx, again, 5, 6)
	if err != nil || again.Runs.Load() != 0 {
		t.Fatalf("resume under the key: %v, %d trials rerun", err, again.Runs.Load())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("resumed trials differ:\n%s", diff)
	}
	unkeyed := filepath.Join(dir, "unkeyed.jsonl")
	if _, err := (Engine{Checkpoint: unkeyed}).Run(ctx, gausstest.NewCounting(-1), 5, 6); err != nil {
		t.Fatal(err)
	}
	hdr := readHeaderOf(t, path, key)
	write := func(t *testing.T, lines [][]byte) string {
		p := filepath.Join(t.TempDir(), "trials.jsonl")
		if err := os.WriteFile(p, bytes.Join(lines, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	replace := func(k int, l []byte) [][]byte {
		out := append([][]byte{}, lines...)
		out[k-1] = l
		return out
	}
	flip := func(r *TrialResult) { r.Unlearned.Published[0] += 1 }
	unkeyedLines := bytes.SplitAfter(must(os.ReadFile(unkeyed)), []byte("\n"))
	for _, c := range []struct {
		name string
		key  *evidence.Key
		path func(t *testing.T) string
		line int
		want string
	}{
		{"without the key", nil, func(*testing.T) string { return path }, 1, "written with an evidence key"},
		{"another key", other, func(*testing.T) string { return path }, 1, "header's tag does not match"},
		{"written without a key", key, func(*testing.T) string { return unkeyed }, 1, "written without an evidence key (its trials are unauthenticated)"},
		{"forged line, old tag kept", key, func(t *testing.T) string { return write(t, replace(3, forgeLine(t, hdr, lines[2], flip))) }, 3, "tag does not match its content"},
		{"forged line, tag dropped", key, func(t *testing.T) string {
			l := forgeLine(t, hdr, lines[2], flip)
			return write(t, replace(3, l[evidence.TagHexLen+1:]))
		}, 3, "untagged trial line"},
		{"another file's line", key, func(t *testing.T) string {
			// a valid line of the same trial, tagged under the same key, for another seed
			p := filepath.Join(t.TempDir(), "seed6.jsonl")
			if _, err := (Engine{Checkpoint: p, Key: key}).Run(ctx, gausstest.NewCounting(-1), 6, 6); err != nil {
				t.Fatal(err)
			}
			return write(t, replace(3, bytes.SplitAfter(must(os.ReadFile(p)), []byte("\n"))[2]))
		}, 3, "tag does not match"},
		{"tagged line in an untagged file", nil, func(t *testing.T) string {
			l := append([][]byte{}, unkeyedLines...)
			l[2] = lines[2]
			return write(t, l)
		}, 3, "tagged trial line in a file written without an evidence key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.path(t)
			s := gausstest.NewCounting(-1)
			_, err := Engine{Checkpoint: p, Key: c.key}.Run(ctx, s, 5, 6)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s:%d: ", p, c.line)) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v; want an error at %s:%d with %q", err, p, c.line, c.want)
			}
			if s.Runs.Load() != 0 {
				t.Errorf("%d trials ran beside a refused checkpoint", s.Runs.Load())
			}
		})
	}
	// the forgery the key refuses passes without one: the checksum alone stops nothing
	forged := write(t, [][]byte{unkeyedLines[0], unkeyedLines[1], forgeLine(t, hdr, unkeyedLines[2], flip)})
	res, err := Engine{Checkpoint: forged}.Run(ctx, gausstest.NewCounting(-1), 5, 6)
	if err != nil {
		t.Fatalf("without a key the forged line was refused: %v (then the test forges wrong)", err)
	}
	changed := 0
	for i := range res {
		if res[i].Unlearned.Published[0] == want[i].Unlearned.Published[0]+1 {
			changed++
		}
	}
	if changed != 1 {
		t.Errorf("%d forged trials read, want 1", changed)
	}
}

// The tag is checked before the line is decoded: a long or malformed line with a bad tag
// is refused for its tag, allocating next to nothing beside the line.
func TestCheckLineTagBeforeDecode(t *testing.T) {
	key := evidenceKey(t, 0x33)
	hdr := checkpointHeader{Schema: checkpointSchema, Subject: "s", Seed: 1, Epsilon: "1", Delta: "1e-06", Claim: "{}", Fingerprint: "abc"}
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"huge array", append([]byte(`{"index":0,"unlearned":{"published":[`), bytes.Repeat([]byte("1e308,"), 8<<20)...)},
		{"deep nesting", bytes.Repeat([]byte("["), 16<<20)},
		{"not JSON", bytes.Repeat([]byte{0xff}, 1<<20)},
	} {
		line := append(append([]byte(strings.Repeat("0", evidence.TagHexLen)+" "), c.body...), '\n')
		var ce *CheckpointError
		alloc := testenv.Allocated(func() {
			ce = checkLine(2, line, hdr, key, map[int]int{}, func(TrialResult) { t.Error("a line with a bad tag was loaded") })
		})
		if ce == nil || !strings.Contains(ce.Msg, "tag does not match") {
			t.Errorf("%s: %v; want its tag refused", c.name, ce)
		}
		if alloc > 64<<10 {
			t.Errorf("%s: refusing a %d-byte line allocated %d bytes: it was decoded", c.name, len(line), alloc)
		}
	}
}

// keyedShards runs a 2-part audit of counting subjects under key into dir and returns the
// parts' folders.
func keyedShards(t *testing.T, dir string, key *evidence.Key) []string {
	t.Helper()
	ctx := context.Background()
	var dirs []string
	for p := range 2 {
		sub := gausstest.NewCounting(-1)
		d := filepath.Join(dir, Shard{p, 2}.Name())
		os.MkdirAll(filepath.Join(d, "trials"), 0o755)
		file := "trials/" + filepath.Base(CheckpointPath("", sub, 7))
		if _, err := (Engine{Shard: Shard{p, 2}, Checkpoint: filepath.Join(d, file), Key: key}).Run(ctx, sub, 7, 6); err != nil {
			t.Fatal(err)
		}
		subj := []ShardSubject{{Name: sub.Name(), Fingerprint: Fingerprint(sub), File: file, Params: ParamsOf(sub)}}
		m := ShardManifest{Tool: "test", Shard: Shard{p, 2}.String(), Args: []string{"--x=1"}, Seed: 7, Trials: 6, Subjects: subj, Complete: true}
		m.Fingerprint = RunFingerprint(m.Tool, m.Args, "", 7, 6, subj)
		if err := WriteShardManifest(d, m, key); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// Shards run under a key merge under it, and the merged checkpoints are written under it
// too; a manifest edited (even with its fingerprint recomputed), a forged trial line, a
// missing or another key are refused, naming the file.
func TestMergeShardsAuthenticated(t *testing.T) {
	key, other := evidenceKey(t, 0x44), evidenceKey(t, 0x55)
	dir := t.TempDir()
	keyedShards(t, dir, key)
	set, err := MergeShards(context.Background(), []string{dir}, key)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := set.WriteCheckpoints(nil, out); err != nil {
		t.Fatal(err)
	}
	sub := gausstest.NewCounting(-1)
	if _, err := (Engine{ResumeOnly: true, Checkpoint: CheckpointPath(out, sub, 7), Key: key}).Run(context.Background(), sub, 7, 6); err != nil {
		t.Fatalf("the merged checkpoint under the key: %v", err)
	}
	if _, err := (Engine{ResumeOnly: true, Checkpoint: CheckpointPath(out, sub, 7)}).Run(context.Background(), sub, 7, 6); err == nil {
		t.Error("the merged checkpoint was read without the key")
	}
	for _, c := range []struct {
		name  string
		key   *evidence.Key
		spoil func(t *testing.T, d string)
		want  []string
	}{
		{"no key", nil, func(*testing.T, string) {}, []string{ShardManifestFile, "written with an evidence key"}},
		{"another key", other, func(*testing.T, string) {}, []string{ShardManifestFile, "its tag does not match"}},
		{"manifest edited, fingerprint recomputed", key, func(t *testing.T, d string) {
			p := filepath.Join(d, "shard-1-of-2", ShardManifestFile)
			m, err := ReadShardManifest(p, key)
			if err != nil {
				t.Fatal(err)
			}
			m.Args = []string{"--x=2"}
			m.Fingerprint = RunFingerprint(m.Tool, m.Args, m.Checks, m.Seed, m.Trials, m.Subjects)
			b, _ := json.MarshalIndent(m, "", "  ")
			old := must(os.ReadFile(p))
			os.WriteFile(p, append(append(old[:evidence.TagHexLen+1:evidence.TagHexLen+1], b...), '\n'), 0o644)
		}, []string{filepath.Join("shard-1-of-2", ShardManifestFile), "its tag does not match"}},
		{"manifest without its tag", key, func(t *testing.T, d string) {
			p := filepath.Join(d, "shard-1-of-2", ShardManifestFile)
			old := must(os.ReadFile(p))
			os.WriteFile(p, old[evidence.TagHexLen+1:], 0o644)
		}, []string{filepath.Join("shard-1-of-2", ShardManifestFile), "written without an evidence key"}},
		{"forged trial line", key, func(t *testing.T, d string) {
			p := filepath.Join(d, "shard-0-of-2", "trials", filepath.Base(CheckpointPath("", gausstest.NewCounting(-1), 7)))
			ls := bytes.SplitAfter(must(os.ReadFile(p)), []byte("\n"))
			ls[2] = forgeLine(t, readHeaderOf(t, p, key), ls[2], func(r *TrialResult) { r.Retrained.Published[1] = 0 })
			os.WriteFile(p, bytes.Join(ls, nil), 0o644)
		}, []string{filepath.Join("shard-0-of-2", "trials"), ".jsonl:3: ", "tag does not match"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "shards")
			if err := os.CopyFS(d, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			c.spoil(t, d)
			_, err := MergeShards(context.Background(), []string{d}, c.key)
			if err == nil {
				t.Fatal("merged")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v: lacks %q", err, w)
				}
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
