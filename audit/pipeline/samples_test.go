package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/estimate"
)

// writeCSV writes rows of scores into dir/name and returns its path.
func writeCSV(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// estimate and epsilon's files: each refusal names the flag or the files, in the order
// the commands check them, and an ended context drops the answer.
func TestEstimateAndEpsilonFiles(t *testing.T) {
	dir := t.TempDir()
	a := writeCSV(t, dir, "a.csv", "0.1,0.2\n0.3,0.1\n0.2,0.4\n0.5,0.3\n0.1,0.1\n0.4,0.2\n0.3,0.3\n0.2,0.5\n")
	b := writeCSV(t, dir, "b.csv", "0.6,0.7\n0.8,0.6\n0.7,0.9\n0.9,0.8\n0.6,0.6\n0.9,0.7\n0.8,0.8\n0.7,0.9\n")
	three := writeCSV(t, dir, "three.csv", "1,2,3\n4,5,6\n")
	game := epsilon.Game{Delta: 1e-5, Confidence: 0.95}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"no A", second(EpsilonFiles(ctx, EpsilonQuestion{B: b, Strategy: "split", Game: game})), "--a is required"},
		{"no B", second(EstimateFiles(ctx, EstimateQuestion{A: a, Method: "gauss", Covariance: "separate"})), "--b is required"},
		{"bad A", second(EstimateFiles(ctx, EstimateQuestion{A: filepath.Join(dir, "none.csv"), B: b, Method: "gauss", Covariance: "separate"})), "--a: "},
		{"strategy", second(EpsilonFiles(ctx, EpsilonQuestion{A: a, B: b, Strategy: "best", Game: game})), "--strategy: "},
		{"covariance", second(EstimateFiles(ctx, EstimateQuestion{A: a, B: b, Method: "gauss", Covariance: "diagonal"})), "--covariance: "},
		{"examples", second(EpsilonFiles(ctx, EpsilonQuestion{A: a, B: three, Strategy: "split", Game: game})), "epsilon: " + a + " scores 2 examples per model, " + three + " scores 3"},
		{"estimator", second(EstimateFiles(ctx, EstimateQuestion{A: a, B: three, Method: "gauss", Covariance: "separate", Options: estimate.Options{Alpha: 2, Confidence: 0.95}})), "(A is " + a + ", B is " + three + ")"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.name, c.err, c.want)
		}
	}
	if out, err := EpsilonFiles(ctx, EpsilonQuestion{A: a, B: b, Strategy: "split", Game: game}); err != nil || out.Models.A != 8 || len(out.PerExample) != 2 {
		t.Fatalf("EpsilonFiles = %+v, %v; want 8 models a side and 2 examples", out, err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if out, err := EstimateFiles(ended, EstimateQuestion{A: a, B: b, Method: "gauss", Covariance: "separate", Options: estimate.Options{Alpha: 2, Confidence: 0.95}}); !errors.Is(err, context.Canceled) {
		t.Errorf("EstimateFiles after the context ended = %v, %v; want context.Canceled and no answer", out, err)
	}
}

func second[T any](_ T, err error) error { return err }

// ParseCounts takes counts in [MinEmpiricalTrials, MaxTrials] and quotes the first it refuses.
func TestParseCounts(t *testing.T) {
	if got, err := ParseCounts("8, 16,1000000"); err != nil || len(got) != 3 || got[0] != 8 || got[1] != 16 || got[2] != 1_000_000 {
		t.Errorf("ParseCounts = %v, %v; want [8 16 1000000]", got, err)
	}
	for _, c := range []struct{ list, quoted string }{{"8,7", `"7"`}, {"8,1000001", `"1000001"`}, {"8,,16", `""`}, {"x", `"x"`}} {
		_, err := ParseCounts(c.list)
		if err == nil || err.Error() != "--table "+c.list+": "+c.quoted+": want counts of models per side in [8, 1000000], comma-separated" {
			t.Errorf("ParseCounts(%q) = %v, want a refusal quoting %s", c.list, err, c.quoted)
		}
	}
}

// ParseIDs reads a list of IDs, spaces allowed, and quotes the first that is not one.
func TestParseIDs(t *testing.T) {
	if ids, err := ParseIDs(""); ids != nil || err != nil {
		t.Errorf(`ParseIDs("") = %v, %v; want none`, ids, err)
	}
	if ids, err := ParseIDs("5, -9,830"); err != nil || len(ids) != 3 || ids[0] != 5 || ids[1] != -9 || ids[2] != 830 {
		t.Errorf("ParseIDs = %v, %v; want [5 -9 830]", ids, err)
	}
	for _, c := range []struct{ list, quoted string }{{"5,x", `"x"`}, {"5,,6", `""`}, {"1.5", `"1.5"`}} {
		if _, err := ParseIDs(c.list); err == nil || err.Error() != "--delete: "+c.quoted+" is not a record ID" {
			t.Errorf("ParseIDs(%q) = %v, want a refusal quoting %s", c.list, err, c.quoted)
		}
	}
}

// Whatever the list, ParseCounts returns one count a comma-separated item, each in range,
// or an error quoting the list; ParseIDs one ID an item or an error naming --delete.
func FuzzParseLists(f *testing.F) {
	for _, s := range []string{"8,16,32", " 8 ,9", "7", "", ",", "1000001", "5,-9,830", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		counts, err := ParseCounts(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--table "+s+": ") {
				t.Fatalf("ParseCounts(%q): %v; want an error quoting the list", s, err)
			}
		} else {
			if len(counts) != strings.Count(s, ",")+1 {
				t.Fatalf("ParseCounts(%q) = %v: not one count an item", s, counts)
			}
			for _, n := range counts {
				if n < 8 || n > 1_000_000 {
					t.Fatalf("ParseCounts(%q) = %v: %d out of range", s, counts, n)
				}
			}
		}
		ids, err := ParseIDs(s)
		switch {
		case err != nil && !strings.HasPrefix(err.Error(), "--delete: "):
			t.Fatalf("ParseIDs(%q): %v; want an error naming --delete", s, err)
		case err == nil && s != "" && len(ids) != strings.Count(s, ",")+1:
			t.Fatalf("ParseIDs(%q) = %v: not one ID an item", s, ids)
		}
	})
}
