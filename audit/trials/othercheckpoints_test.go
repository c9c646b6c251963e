package trials

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/gausstest"
)

// OtherCheckpoints finds a subject's checkpoints under other fingerprints at the same seed
// and nothing else: not its own, not another seed's (seed 70 beside 7), not a longer or
// upper-case "fingerprint", not a leftover temporary file, not another folder's, not a
// subject whose name merely begins like it. Planted and caught: the own file not excluded,
// the fingerprint's length not checked (the 13-digit and ".tmp" names then pass).
func TestOtherCheckpoints(t *testing.T) {
	sub := gausstest.New(4, 0.1, 1)
	own := filepath.ToSlash(CheckpointPath("trials", sub, 7))
	stem := strings.TrimSuffix(own, Fingerprint(sub)[:fingerprintChars]+".jsonl")
	if stem == own || !strings.HasPrefix(stem, "trials/gauss-seed7-") {
		t.Fatalf("checkpoint %q: want trials/gauss-seed7-<fingerprint>.jsonl", own)
	}
	other, other2 := stem+"0123456789ab.jsonl", stem+"ffffffffffff.jsonl"
	names := []string{
		own, other, other2,
		stem + "0123456789abc.jsonl",             // 13 digits
		stem + "0123456789AB.jsonl",              // not this tool's hex
		stem + "0123456789ab.jsonl.tmp",          // not a checkpoint
		"trials/gauss-seed70-0123456789ab.jsonl", // another seed
		"trials/gauss-x-seed7-0123456789ab.jsonl",
		"elsewhere/gauss-seed7-0123456789ab.jsonl",
	}
	got := OtherCheckpoints("trials", sub, 7, names)
	if want := []string{other, other2}; !slices.Equal(got, want) {
		t.Errorf("OtherCheckpoints = %q; want %q", got, want)
	}
	if got := OtherCheckpoints("trials", sub, 7, []string{own}); len(got) != 0 {
		t.Errorf("the subject's own checkpoint alone: %q; want none", got)
	}
}
