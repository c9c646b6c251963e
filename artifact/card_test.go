package artifact

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

const goodCard = `{"schema": "unlearnaudit/model-card/v1", "weights": [0.5, -1, 0.25],
 "loss": {"name": "logistic", "lambda": 0.05},
 "recipe": {"method": "d2d", "variant": "strongly-convex", "params": {"iterations": "10"}},
 "seed": 7,
 "dataset": {"file": "d.csv", "sha256": "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9", "rows": 10, "features": 3},
 "deletions": [1, 2], "claim": {"epsilon": 1, "delta": 1e-6}}`

// A model card reads whole, and LoadModel takes its weights; every inconsistent field is
// refused by name.
func TestCard(t *testing.T) {
	c, err := ParseCard(strings.NewReader(goodCard), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Weights, []float64{0.5, -1, 0.25}) || c.Recipe.Params["iterations"] != "10" || c.Claim.Delta != 1e-6 {
		t.Errorf("card %+v", c)
	}
	path := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(path, []byte(goodCard), 0o644)
	params, layout, err := LoadModel(path, reference.Limits{})
	if err != nil || !slices.Equal(params, c.Weights) || len(layout) != 1 {
		t.Errorf("LoadModel: %v %v %v", params, layout, err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"schema": "unlearnaudit/model-card/v1"`, `"schema": "v0"`, "m.json: schema"},
		{`"seed": 7,`, `"seed": 7, "extra": 1,`, `unknown field "extra"`},
		{`"delta": 1e-6`, `"delta": 1`, "m.json: claim.delta"},
		{`"features": 3`, `"features": 4`, "m.json: dataset.features: 4 features for 3 weights"},
		{`"sha256": "5defa0a4`, `"sha256": "zz`, "m.json: dataset.sha256"},
		{`"deletions": [1, 2]`, `"deletions": [1, 1]`, "m.json: deletions[1]: record ID 1 named twice"},
		{`"name": "logistic"`, `"name": "hinge"`, "m.json: loss.name"},
	} {
		in := strings.Replace(goodCard, c.from, c.to, 1)
		if in == goodCard {
			t.Fatalf("case %q changes nothing", c.want)
		}
		if _, err := ParseCard(strings.NewReader(in), "m.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want %q", c.to, err, c.want)
		}
	}
}

func FuzzParseCard(f *testing.F) {
	f.Add(goodCard)
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseCard(strings.NewReader(in), "fuzz.json")
		if err == nil && (len(c.Weights) == 0 || c.Dataset.Features != len(c.Weights)) {
			t.Fatalf("accepted an inconsistent card: %+v", c)
		}
	})
}
