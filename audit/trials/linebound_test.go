package trials

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"pgregory.net/rapid"
)

// floatBytes holds any float64 as encoding/json writes it, with its comma: the bound's
// per-number figure is what the encoder can print, not a guess. The longest texts are
// 17 significant digits just above 1e-6 (printed 'f') and in 'e' form near the smallest
// normal numbers.
func TestFloatBytesHoldsAnyFloat(t *testing.T) {
	for _, x := range []float64{-1.2345678901234567e-6, -1.0000000000000002e-6, -2.2250738585072014e-308,
		-math.MaxFloat64, -math.SmallestNonzeroFloat64, -9.999999999999998e20, -1.2345678901234567e-300} {
		b, _ := json.Marshal(x)
		if len(b)+1 > floatBytes {
			t.Errorf("%v is %d bytes as JSON (%s), more than floatBytes %d with its comma", x, len(b), b, floatBytes)
		}
	}
	b, _ := json.Marshal(-1.2345678901234567e-6)
	if len(b) != 25 {
		t.Errorf("the longest text measured %d bytes (%s), the comment says 25", len(b), b)
	}
	rapid.Check(t, func(t *rapid.T) {
		x := math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return // not encodable: no trial line holds one
		}
		b, err := json.Marshal(x)
		if err != nil || len(b)+1 > floatBytes {
			t.Fatalf("%v is %d bytes as JSON (%s, %v)", x, len(b), b, err)
		}
	})
}

// A real run's lines are well under the bound of its dimension: a model of 2,000
// parameters (published and secret, both releases) writes lines of about a fifth of it.
func TestTrialLinesUnderTheirBound(t *testing.T) {
	const p = 2000
	g := gausstest.New(p, 0.1, 1)
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	if _, err := (Engine{Checkpoint: path}).Run(context.Background(), g, 3, 4); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	bound, lines := MaxTrialLineBytes(p), 0
	for sc.Scan() {
		if lines++; lines == 1 {
			continue // the header
		}
		if ratio := float64(len(sc.Bytes())+1) / float64(bound); ratio > 0.5 {
			t.Errorf("line %d is %d bytes, %.2f of the bound %d", lines, len(sc.Bytes())+1, ratio, bound)
		} else if lines == 2 {
			t.Logf("a line of p = %d: %d bytes, %.2f of the bound %d", p, len(sc.Bytes())+1, ratio, bound)
		}
	}
	if lines != 5 || sc.Err() != nil {
		t.Fatalf("%d lines (%v), want a header and 4 trials", lines, sc.Err())
	}
}

// A subject whose releases are longer than its Params says writes no line the bound would
// refuse on resuming: the run fails, naming the file and trial.
func TestEngineRefusesLineOverItsBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trials.jsonl")
	_, err := (Engine{Checkpoint: path}).Run(context.Background(), understated{gausstest.New(4000, 0.1, 1)}, 3, 2)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "more than the 84736 a model of 100 parameters needs") {
		t.Fatalf("%v; want the long line refused by file and bound", err)
	}
}

// understated says its models have 100 parameters; they have more.
type understated struct{ gausstest.Subject }

func (understated) Params() int { return 100 }

// writeLongLine appends to path a line of n bytes: zeros and a newline, in a sparse
// file, so a test of a 210 MB line writes no 210 MB.
func writeLongLine(t *testing.T, path string, n int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("\n"), st.Size()+n-1); err != nil {
		t.Fatal(err)
	}
}

// A line just over the bound of the subject's dimension is refused, naming file, line and
// bound; one of exactly the bound is read (and refused as no trial line, not for its
// length). Resuming and merging alike.
func TestCheckpointLineBound(t *testing.T) {
	ctx := context.Background()
	sub := gausstest.NewCounting(-1) // 4 parameters
	bound := MaxTrialLineBytes(4)
	if bound != 64<<10+6*4*32 {
		t.Fatalf("MaxTrialLineBytes(4) = %d", bound)
	}
	for _, c := range []struct {
		n    int
		want string
	}{
		{bound + 1, fmt.Sprintf(":3: line longer than %d bytes, the most a trial line of a model of 4 parameters holds", bound)},
		{bound, ":3: not a trial line"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "trials.jsonl")
		if _, err := (Engine{Checkpoint: path}).Run(ctx, sub, 7, 1); err != nil {
			t.Fatal(err)
		}
		line := strings.Repeat("x", c.n-1) + "\n"
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(line)
		f.Close()
		_, err := (Engine{Checkpoint: path}).Run(ctx, sub, 7, 2)
		if err == nil || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("resume, line of %d bytes: %v; want %q", c.n, err, path+c.want)
		}
		_, _, err = readCheckpointFile(context.Background(), path, nil, 4)
		if err == nil || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("merge, line of %d bytes: %v; want %q", c.n, err, path+c.want)
		}
	}
}

// One hostile 210 MB line in a shard's checkpoint cost 3.7 GB in merge before it was
// refused: bounded by the subject's dimension (from the manifest), it costs about the
// bound. Resuming from it likewise.
func TestHostileLongLineMemory(t *testing.T) {
	dir := t.TempDir()
	dirs := keyedShards(t, dir, nil)
	m, err := ReadShardManifest(filepath.Join(dirs[1], ShardManifestFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dirs[1], m.Subjects[0].File)
	writeLongLine(t, path, 210<<20)
	var merr error
	got := testenv.Allocated(func() { _, merr = MergeShards(context.Background(), dirs, nil) })
	t.Logf("merge with a 210 MB line allocated %d bytes", got)
	if got > 64<<20 {
		t.Errorf("merge with a 210 MB line allocated %d bytes, more than 64 MB", got)
	}
	var me *MergeError
	if !errors.As(merr, &me) || !strings.Contains(merr.Error(), path+":5: line longer than 66304 bytes") {
		t.Fatalf("merge: %v; want the line refused by file, line and bound", merr)
	}
	var rerr error
	got = testenv.Allocated(func() {
		_, rerr = (Engine{Checkpoint: path, Shard: Shard{1, 2}}).Run(context.Background(), gausstest.NewCounting(-1), 7, 6)
	})
	if got > 64<<20 {
		t.Errorf("resuming with a 210 MB line allocated %d bytes, more than 64 MB", got)
	}
	if !strings.Contains(fmt.Sprint(rerr), path+":5: line longer than 66304 bytes") {
		t.Fatalf("resume: %v; want the line refused by its bound", rerr)
	}
}
