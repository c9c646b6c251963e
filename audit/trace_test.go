package audit_test

import (
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"pgregory.net/rapid"
)

// TraceRequests follows every request up to MaxTracePoints, else an even selection that
// rises strictly from the first request to the last.
func TestTraceRequests(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 1_000_000).Draw(t, "requests")
		got := verdict.TraceRequests(k)
		if len(got) != min(k, verdict.MaxTracePoints) || got[0] != 1 || got[len(got)-1] != k {
			t.Fatalf("%d requests: %d traced, from %d to %d", k, len(got), got[0], got[len(got)-1])
		}
		for i := 1; i < len(got); i++ {
			if got[i] <= got[i-1] {
				t.Fatalf("%d requests: traced %v, not rising at %d", k, got, i)
			}
		}
	})
}

// A deterministic finding holds every traced value to its bound: the first request past
// it fails the finding, which reports that request. A statistical finding only carries the
// trace, and a trace that does not pair its values with bounds and requests is refused.
func TestAddTrace(t *testing.T) {
	tr := verdict.Trace{Name: "distance", BoundName: "radius", Requests: []int{1, 2, 5}, Values: []float64{0.1, 0.3, 0.2}, Bound: []float64{0.5, 0.25, 0.25}}
	f := verdict.Deterministic("x/radius", "final distance", verdict.Implementation, 0.2, 0.25, 8, "final request")
	if f.Verdict != verdict.Pass {
		t.Fatalf("final request within its bound: %v", f.Verdict)
	}
	if err := f.AddTrace(tr); err != nil {
		t.Fatal(err)
	}
	if f.Verdict != verdict.Fail || f.Measured != 0.3 || f.Bound != 0.25 || !strings.Contains(f.Detail, "after request 2") || len(f.Traces) != 1 {
		t.Errorf("request 2 past its bound: %v, measured %v against %v, %q", f.Verdict, f.Measured, f.Bound, f.Detail)
	}

	if !strings.Contains(f.Title, "distance, after request 2, against radius") || !strings.Contains(f.Detail, "final distance: 0.2 against 0.25, PASS (final request)") {
		t.Errorf("a trace that decides titles the finding by its own figures and keeps the last request's: %q, %q", f.Title, f.Detail)
	}

	// a value past its bound only by what the check cannot resolve is no evidence; one
	// whose lower end is past it is, and the finding says so
	unresolved := tr
	unresolved.Lower = []float64{0.1, 0.25, 0.2}
	f = verdict.Deterministic("x/radius", "final distance", verdict.Implementation, 0.2, 0.25, 8, "")
	if err := f.AddTrace(unresolved); err != nil || f.Verdict != verdict.Pass || f.Measured != 0.2 {
		t.Errorf("request 2 past its bound by less than the check resolves: %v, %v, measured %v", err, f.Verdict, f.Measured)
	}
	resolved := tr
	resolved.Lower = []float64{0.1, 0.28, 0.2}
	f = verdict.Deterministic("x/radius", "final distance", verdict.Implementation, 0.2, 0.25, 8, "")
	if err := f.AddTrace(resolved); err != nil || f.Verdict != verdict.Fail || f.Measured != 0.3 || !strings.Contains(f.Detail, "at least 0.28") {
		t.Errorf("request 2's lower end past its bound: %v, %v, measured %v, %q", err, f.Verdict, f.Measured, f.Detail)
	}

	within := tr
	within.Values = []float64{0.1, 0.2, 0.2}
	f = verdict.Deterministic("x/radius", "final distance", verdict.Implementation, 0.2, 0.25, 8, "")
	if err := f.AddTrace(within); err != nil || f.Verdict != verdict.Pass || f.Measured != 0.2 {
		t.Errorf("every request within its bound: %v, %v, measured %v", err, f.Verdict, f.Measured)
	}

	stat := verdict.Finding{Check: "x/game", Verdict: verdict.Inconclusive, Comparison: "≤", Confidence: 0.95}
	if err := stat.AddTrace(tr); err != nil || stat.Verdict != verdict.Inconclusive || len(stat.Traces) != 1 {
		t.Errorf("a statistical finding carries the trace unchanged: %v, %v", err, stat.Verdict)
	}

	for _, bad := range []verdict.Trace{
		{Name: "empty"},
		{Name: "short bound", Requests: []int{1, 2}, Values: []float64{1, 2}, Bound: []float64{1}},
		{Name: "no requests", Values: []float64{1}, Bound: []float64{1}},
		{Name: "falling", Requests: []int{2, 1}, Values: []float64{1, 2}, Bound: []float64{1, 2}},
		{Name: "request 0", Requests: []int{0}, Values: []float64{1}, Bound: []float64{1}},
		{Name: "short lower", Requests: []int{1, 2}, Values: []float64{1, 2}, Bound: []float64{1, 2}, Lower: []float64{1}},
	} {
		f := verdict.Deterministic("x", "x", verdict.Implementation, 0, 1, 1, "")
		if err := f.AddTrace(bad); err == nil || !strings.Contains(err.Error(), bad.Name) {
			t.Errorf("trace %q accepted (%v)", bad.Name, err)
		}
	}
}
