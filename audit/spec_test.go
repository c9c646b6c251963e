package audit_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

// A full spec reads into the settings it names; left-out fields take the declared defaults.
func TestParseSpecReadsEveryField(t *testing.T) {
	in := `{
	  "schema": "unlearnaudit/spec/v1",
	  "data": {"file": "rows.csv", "format": "csv", "label_column": 0, "header": true, "classes": "1,0"},
	  "model": {"loss": "logistic", "lambda": 0.1},
	  "method": {"name": "sglu", "variants": ["sglu"], "params": {"sglu-sigma": 0.2, "sglu-batch": 16}},
	  "deletes": [17, 42],
	  "claim": {"epsilon": 2, "delta": 1e-5},
	  "trials": 64,
	  "power": {"against": 3},
	  "confidence": 0.9,
	  "seed": 7
	}`
	s, err := audit.ParseSpec(strings.NewReader(in), "a.json")
	if err != nil {
		t.Fatal(err)
	}
	sigma, _ := s.Params.Float("sglu-sigma")
	batch, _ := s.Params.Int("sglu-batch")
	if s.Method.Name() != "sglu" || !slices.Equal(s.Variants, []string{"sglu"}) || sigma != 0.2 || batch != 16 || !s.Params.Given("sglu-sigma") || s.Params.Given("sglu-epochs") {
		t.Errorf("method %s %v, σ %v, b %v", s.Method.Name(), s.Variants, sigma, batch)
	}
	want := audit.SpecData{File: "rows.csv", Format: "csv", LabelColumn: 0, Header: true, Classes: "1,0"}
	if s.Data != want || s.Lambda != 0.1 || !slices.Equal(s.Deletes, []int64{17, 42}) || s.Epsilon != 2 || s.Delta != 1e-5 ||
		s.Trials != 64 || s.PowerAgainst != 3 || s.Confidence != 0.9 || s.Seed != 7 {
		t.Errorf("spec %+v", s)
	}
	min, err := audit.ParseSpec(strings.NewReader(`{"method": {"name": "d2d"}}`), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	if min.Trials != 200 || min.Epsilon != 1 || min.Delta != 1e-6 || min.Lambda != 0.05 || min.Seed != 1 || min.Data.LabelColumn != -1 || len(min.Variants) != 5 {
		t.Errorf("defaults: %+v", min)
	}
}

// Every bad field is refused with the file and the field's path, unknown fields included
// (a misspelt setting must not fall back to its default).
func TestParseSpecRefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[1]`, "s.json: not a JSON object"},
		{`{"method": {"name": "d2d"}, "trails": 10}`, "s.json: trails: unknown field; want one of claim, confidence, data, deletes, method, model, power, schema, seed, trials"},
		{`{"method": {"name": "sglu", "params": {"sglu-sigma": -1}}}`, "s.json: method.params.sglu-sigma: want a number in (0, inf)"},
		{`{"method": {"name": "sglu", "params": {"sigma": 1}}}`, "s.json: method.params.sigma: unknown field; want one of sglu-batch, sglu-epochs, sglu-sigma"},
		{`{"method": {"name": "hf"}}`, `s.json: method.name: "hf": want one of d2d, sglu`},
		{`{"method": {"name": "d2d", "variants": ["sglu"]}}`, `s.json: method.variants[0]: "sglu" is not a variant of d2d`},
		{`{}`, "s.json: method: missing"},
		{`{"method": {"name": "d2d"}, "claim": {"delta": 1}}`, "s.json: claim.delta: want a number in (0, 1)"},
		{`{"method": {"name": "d2d"}, "trials": 7}`, "s.json: trials: want an integer in [8, 1000000]"},
		{`{"method": {"name": "d2d"}, "trials": "many"}`, "s.json: trials: want an integer"},
		{`{"method": {"name": "d2d"}, "deletes": [1, 1]}`, "s.json: deletes[1]: record ID 1 named twice"},
		{`{"method": {"name": "d2d"}, "data": {"format": "parquet"}}`, `s.json: data.format: "parquet": want one of csv, libsvm, idx, sklearn-csv`},
		{`{"method": {"name": "d2d"}, "data": {"format": "csv"}}`, "s.json: data.file: missing"},
		{`{"method": {"name": "d2d"}, "model": {"loss": "hinge"}}`, `s.json: model.loss: want "logistic"`},
		{`{"method": {"name": "d2d"}, "schema": "v0"}`, `s.json: schema: want "unlearnaudit/spec/v1"`},
		{`{"method": {"name": "d2d"}, "seed": -1}`, "s.json: seed: want a non-negative integer"},
		{`{"method": {"name": "d2d"}, "trials": 10, "trials": 20}`, "s.json: trials: given twice"},
		{`{"method": {"name": "d2d"}} {}`, "s.json: text after the object"},
	} {
		_, err := audit.ParseSpec(strings.NewReader(c.in), "s.json")
		var se *audit.SpecError
		if err == nil || !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s…", c.in, err, c.want)
		}
	}
}

// LoadSpec resolves a relative data file against the spec's folder, so a spec travels
// with its data.
func TestLoadSpecResolvesDataBesideIt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.json")
	if err := os.WriteFile(path, []byte(`{"method": {"name": "d2d"}, "data": {"file": "rows.csv", "format": "csv"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := audit.LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Data.File != filepath.Join(dir, "rows.csv") {
		t.Errorf("data file %q", s.Data.File)
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add(`{"method": {"name": "d2d", "params": {"iterations": 5}}, "deletes": [1]}`)
	f.Add(`{"data": {"file": "x", "format": "idx"}, "method": {"name": "sglu"}}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := audit.ParseSpec(strings.NewReader(in), "fuzz.json")
		if err == nil && (s.Method == nil || s.Trials < audit.MinEmpiricalTrials || !(s.Delta > 0 && s.Delta < 1)) {
			t.Fatalf("accepted an invalid spec: %+v", s)
		}
		var se *audit.SpecError
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("error %v is not a SpecError", err)
		}
	})
}

// The README's example spec is valid, and names heart_scale beside the checkout.
func TestExampleSpecIsValid(t *testing.T) {
	s, err := audit.LoadSpec(filepath.Join("..", "examples", "heart-scale.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Method.Name() != "d2d" || !slices.Equal(s.Variants, []string{"strongly-convex", "perfect"}) || !strings.HasSuffix(s.Data.File, filepath.Join("shared", "datasets", "liblinear", "heart_scale")) {
		t.Errorf("spec %+v", s)
	}
}
