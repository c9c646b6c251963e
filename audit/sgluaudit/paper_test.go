package sgluaudit

import (
	"math"
	"testing"
)

// The paper settings derive the constants the spec's golden file states (§4.5), and
// Table3Paper is the golden file's Table 3.
func TestPaperSettings(t *testing.T) {
	g := readGolden(t)
	for _, s := range PaperSettings {
		for _, b := range []int{128, 0} {
			got, want := s.Problem(b), g.problem(s.Name, b)
			if got.N != want.N || got.Batch != want.Batch || math.Abs(got.StepSize-want.StepSize) > 1e-15*want.StepSize ||
				math.Abs(got.Smoothness-want.Smoothness) > 1e-15 || math.Abs(got.StrongConvexity-want.StrongConvexity) > 1e-15 ||
				got.Lipschitz != want.Lipschitz || got.Radius != want.Radius {
				t.Errorf("%s b=%d: %+v, golden %+v", s.Name, b, got, want)
			}
		}
	}
	if len(Table3Paper) != len(g.Table3.Rows) {
		t.Fatalf("%d rows, golden %d", len(Table3Paper), len(g.Table3.Rows))
	}
	for i, row := range g.Table3.Rows {
		p := Table3Paper[i]
		if p.Dataset != row.Dataset || p.Batch != row.B {
			t.Fatalf("row %d: %s b=%d, golden %s b=%d", i, p.Dataset, p.Batch, row.Dataset, row.B)
		}
		for k := range row.Sigma {
			if p.Sigma[k] != row.Sigma[k] || Table3Targets[k] != g.Table3.Targets[k] {
				t.Errorf("row %d col %d: %s at %v, golden %s at %v", i, k, p.Sigma[k], Table3Targets[k], row.Sigma[k], g.Table3.Targets[k])
			}
		}
	}
}

// Fig. 3d's K-lists against what spec sglu §5.4 reads off the official result files: at
// b = 32 every request needs one epoch at every σ; at b = 512 and σ ≥ 0.05 the first
// request needs at most 7 and the later ones at most 5. And the figure's trends: the total
// is non-increasing in σ and non-decreasing in b.
func TestFig3dEpochs(t *testing.T) {
	for _, s := range PaperSettings {
		totals := map[int][]int{}
		for _, b := range Fig3dBatches {
			for _, sigma := range Fig3dSigmas {
				p := s.Problem(b)
				ks, err := SequentialEpochs(p, Fig3dTarget, 1/float64(p.N), sigma, Fig3dRequests, true, false)
				if err != nil {
					t.Fatal(err)
				}
				total, later := 0, 0
				for i, k := range ks {
					total += k
					if i > 0 {
						later = max(later, k)
					}
				}
				totals[b] = append(totals[b], total)
				switch {
				case b == 32 && total != Fig3dRequests:
					t.Errorf("%s b = 32 σ = %v: %d epochs over %d requests, want one each", s.Name, sigma, total, Fig3dRequests)
				case b == 512 && sigma >= 0.05 && (ks[0] > 7 || later > 5):
					t.Errorf("%s b = 512 σ = %v: first request %d epochs, later up to %d; the official runs need ≤ 7 and ≤ 5", s.Name, sigma, ks[0], later)
				}
			}
		}
		for i, b := range Fig3dBatches {
			for k := 1; k < len(Fig3dSigmas); k++ {
				if totals[b][k] > totals[b][k-1] {
					t.Errorf("%s b = %d: total %d at σ = %v exceeds %d at σ = %v", s.Name, b, totals[b][k], Fig3dSigmas[k], totals[b][k-1], Fig3dSigmas[k-1])
				}
			}
			if i > 0 {
				for k := range Fig3dSigmas {
					if prev := Fig3dBatches[i-1]; totals[b][k] < totals[prev][k] {
						t.Errorf("%s σ = %v: b = %d needs %d epochs, fewer than b = %d's %d", s.Name, Fig3dSigmas[k], b, totals[b][k], prev, totals[prev][k])
					}
				}
			}
		}
	}
}

// The paper's Fig. 3a values line up with Table 3's targets, one per target per method.
func TestFig3aPaper(t *testing.T) {
	for method, vals := range Fig3aPaperAccuracy {
		if len(vals) != len(Table3Targets) {
			t.Errorf("%s: %d values for %d targets", method, len(vals), len(Table3Targets))
		}
	}
	if got := Fig3aPaper("SGLU b=128", 1); got != "0.894" {
		t.Errorf("SGLU b=128 at ϵ̂ = 1: %q, the paper plots 0.894", got)
	}
	if got := Fig3aPaper("SGLU full batch", 0.05); got != "0.556" {
		t.Errorf("full batch at ϵ̂ = 0.05: %q, the paper plots 0.556", got)
	}
	if Fig3aPaper("D2D I=1", 1) != "" || Fig3aPaper("SGLU b=128", 3) != "" {
		t.Error("a value where the paper gives none")
	}
}
