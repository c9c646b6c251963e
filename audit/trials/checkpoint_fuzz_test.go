package trials

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// A checkpoint is a file the user may hand back edited, truncated or from elsewhere: every
// line is parsed with allocation in proportion to its bytes, never panics, and is either
// refused or loaded once with a matching checksum.
func FuzzCheckpointLine(f *testing.F) {
	hdr := checkpointHeader{Schema: checkpointSchema, Subject: "s", Seed: 1, Epsilon: "1", Delta: "1e-06", Claim: "{}", Fingerprint: "abc"}
	head, _ := json.Marshal(hdr)
	f.Add(1, append(head, '\n'))
	streamed := hdr
	streamed.Noise = "gen/v1" // a header naming another stream than the audit's (none)
	head, _ = json.Marshal(streamed)
	f.Add(1, append(head, '\n'))
	good := TrialResult{Index: 3, Unlearned: reference.Release{Published: []float64{1, 2}}, Retrained: reference.Release{Published: []float64{1, 2.5}}}
	sum, _ := trialSum(hdr.Fingerprint, good)
	line, _ := json.Marshal(trialLine{TrialResult: good, Sum: sum})
	f.Add(2, append(line, '\n'))
	f.Add(2, []byte("{}\n"))
	f.Add(2, []byte(`{"index":1000000,"sum":"x"}`+"\n"))
	f.Add(2, []byte(`{"index":0,"unlearned":{"published":[1e20,1e20,1e20]},"sum":"x"}`+"\n"))
	f.Fuzz(func(t *testing.T, k int, line []byte) {
		if k < 1 || k > 3 {
			k = 2
		}
		loads := 0
		var err *CheckpointError
		got := testenv.Allocated(func() {
			err = checkLine(k, line, hdr, nil, map[int]int{}, func(TrialResult) { loads++ })
		})
		// JSON numbers of 2 bytes become 8-byte floats, doubled by growth, and the checksum
		// re-encodes them (≤ 6 bytes per input byte for exponents like 1e20): 64 per byte
		if limit := uint64(64*len(line) + 1<<20); got > limit {
			t.Fatalf("a %d-byte line allocated %d bytes (limit %d)", len(line), got, limit)
		}
		switch {
		case err != nil && (err.Line != 0 && err.Line != k):
			t.Fatalf("error names line %d for line %d", err.Line, k)
		case err != nil && loads != 0:
			t.Fatal("a refused line was loaded")
		case err == nil && k > 1 && loads != 1:
			t.Fatalf("an accepted trial line was loaded %d times", loads)
		}
	})
}

// Under an evidence key, a line is loaded only if its tag is the one the key gives its
// content, and a refused line of any content costs no decoding: allocation stays small
// whatever its length.
func FuzzCheckpointLineKeyed(f *testing.F) {
	key := evidenceKey(f, 0x66)
	hdr := checkpointHeader{Schema: checkpointSchema, Subject: "s", Seed: 1, Epsilon: "1", Delta: "1e-06", Claim: "{}", Fingerprint: "abc"}
	good := TrialResult{Index: 3, Unlearned: reference.Release{Published: []float64{1, 2}}, Retrained: reference.Release{Published: []float64{1, 2.5}}}
	line, _ := encodeTrial(key, hdr, good)
	f.Add(line)
	f.Add(line[evidence.TagHexLen+1:])
	f.Add(append([]byte(strings.Repeat("0", evidence.TagHexLen)+" "), line[evidence.TagHexLen+1:]...))
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, line []byte) {
		loads := 0
		var err *CheckpointError
		got := testenv.Allocated(func() {
			err = checkLine(2, line, hdr, key, map[int]int{}, func(TrialResult) { loads++ })
		})
		content := bytes.TrimSuffix(line, []byte("\n"))
		if _, terr := key.Open(trialDomain, trialContext(key, hdr), content, ' '); terr != nil {
			if err == nil || loads != 0 {
				t.Fatalf("a line without a valid tag was accepted (%v)", terr)
			}
			if got > 64<<10 {
				t.Fatalf("refusing a %d-byte line with a bad tag allocated %d bytes", len(line), got)
			}
		}
	})
}
