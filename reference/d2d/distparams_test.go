package d2d

import (
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

type distGolden struct {
	Thm45 struct {
		Params   map[string]float64
		BV       float64            `json:"B"`
		KV       float64            `json:"K"`
		AV       float64            `json:"a"`
		TMinReal float64            `json:"t_min_real"`
		TReal    map[string]float64 `json:"t_real"`
		Sigma    float64
		C        int
		Lemma43  float64
	} `json:"thm45"`
}

func TestGoldenTheorem45(t *testing.T) {
	g := testenv.ReadGolden[d2dGolden](t).distGolden
	p := g.Thm45.Params
	n := int(p["n"])
	B, K, a := DistRealSizes(n, p["xi"], p["I"])
	gamma := Contraction(p["M"], p["m"])
	tMin := DistLearnIterationsReal(a, p["diam"], p["m"], B, p["L"], p["delta"], gamma)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"B", B, g.Thm45.BV}, {"K", K, g.Thm45.KV}, {"a", a, g.Thm45.AV}, {"T_min", tMin, g.Thm45.TMinReal},
		{"σ", DistSigma(p["L"], p["m"], p["M"], n, a, p["eps"], p["delta"]), g.Thm45.Sigma},
		{"Lemma 4.3", ReservoirChangedBound(B, n, 1e-6), g.Thm45.Lemma43},
	}
	for k, want := range g.Thm45.TReal {
		i, _ := strconv.Atoi(k)
		checks = append(checks, struct {
			name      string
			got, want float64
		}{"T_" + k, DistUpdateBudget(i, p["I"], n, B, K, p["delta"], gamma), want})
	}
	for _, c := range checks {
		if !relClose(c.got, c.want, printedTol(10)) {
			t.Errorf("%s = %.12g, spec §4.10 gives %.12g", c.name, c.got, c.want)
		}
	}
	if c := DistCopies(p["beta"]); c != g.Thm45.C {
		t.Errorf("C = %d, spec gives %d", c, g.Thm45.C)
	}
	// the integer rules keep B ≥ n and K n² ≥ B², and a = I n^{(4−3ξ)/2} when exact
	Bi, Ki, ai, err := DistSizes(n, p["xi"], p["I"])
	if err != nil || Bi < n || ai < p["I"] || Bi%Ki != 0 {
		t.Errorf("integer sizes B=%d K=%d a=%v: %v", Bi, Ki, ai, err)
	}
	if _, _, _, err := DistSizes(100, 1.5, 1); err == nil || !strings.Contains(err.Error(), "partitions too few: K·n² = ") {
		t.Errorf("ξ = 1.5 > 4/3 makes K n² < B²; DistSizes must refuse it, saying so: %v", err)
	}
}
