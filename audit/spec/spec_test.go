package spec_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/checks"

	_ "github.com/unlearnaudit/unlearnaudit/audit/methods" // specs name the registered methods

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
)

// A full spec reads into the settings it names; left-out fields take the declared defaults.
func TestParseSpecReadsEveryField(t *testing.T) {
	in := `{
	  "schema": "unlearnaudit/spec/v1",
	  "data": {"file": "rows.csv", "format": "csv", "label_column": 0, "header": true, "classes": "1,0", "preprocessing": "standardize,unit-ball"},
	  "model": {"loss": "logistic", "lambda": 0.1, "intercept": true},
	  "method": {"name": "sglu", "variants": ["sglu"], "params": {"sglu-sigma": 0.2, "sglu-batch": 16}},
	  "deletes": [17, 42],
	  "claim": {"epsilon": 2, "delta": 1e-5},
	  "trials": 64,
	  "power": {"against": 3},
	  "confidence": 0.9,
	  "seed": 7,
	  "attacks": ["membership"],
	  "outputs": {"dir": "out", "formats": ["html", "pdf"]}
	}`
	s, err := spec.ParseSpec(strings.NewReader(in), "a.json")
	if err != nil {
		t.Fatal(err)
	}
	sigma, _ := s.Params.Float("sglu-sigma")
	batch, _ := s.Params.Int("sglu-batch")
	if s.Method.Name() != "sglu" || !slices.Equal(s.Variants, []string{"sglu"}) || sigma != 0.2 || batch != 16 || !s.Params.Given("sglu-sigma") || s.Params.Given("sglu-epochs") {
		t.Errorf("method %s %v, σ %v, b %v", s.Method.Name(), s.Variants, sigma, batch)
	}
	want := spec.SpecData{File: "rows.csv", Format: "csv", LabelColumn: 0, Header: true, Classes: "1,0", Preprocessing: "standardize,unit-ball"}
	if !s.Intercept || !slices.Equal(s.Attacks, audit.Attacks{"membership"}) || s.Attacks.Has(audit.GameAttack) || s.Outputs.Dir != "out" || !slices.Equal(s.Outputs.Formats, []string{"html", "pdf"}) {
		t.Errorf("intercept %v, attacks %v, outputs %+v", s.Intercept, s.Attacks, s.Outputs)
	}
	if s.Data != want || s.Lambda != 0.1 || !slices.Equal(s.Deletes, []int64{17, 42}) || s.Epsilon != 2 || s.Delta != 1e-5 ||
		s.Trials != 64 || s.PowerAgainst != 3 || s.Confidence != 0.9 || s.Seed != 7 {
		t.Errorf("spec %+v", s)
	}
	min, err := spec.ParseSpec(strings.NewReader(`{"method": {"name": "d2d"}}`), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	if min.Trials != 200 || min.Epsilon != 1 || min.Delta != 1e-6 || min.Lambda != 0.05 || min.Seed != 1 || min.Data.LabelColumn != -1 || len(min.Variants) != 5 ||
		min.Data.Preprocessing != "auto" || min.Intercept || min.Attacks != nil || !min.Attacks.Has(audit.GameAttack) || !min.Attacks.Has(audit.MembershipAttack) ||
		min.Outputs.Dir != "" || !slices.Equal(min.Outputs.Formats, []string{"md"}) {
		t.Errorf("defaults: %+v", min)
	}
}

// Every bad field is refused with the file and the field's path, unknown fields included
// (a misspelt setting must not fall back to its default).
func TestParseSpecRefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[1]`, "s.json: not a JSON object"},
		{`{"method": {"name": "d2d"}, "trails": 10}`, "s.json: trails: unknown field; want one of attacks, claim, confidence, data, deletes, method, model, noise, outputs, power, rank_p, schema, scores, seed, trials"},
		{`{"method": {"name": "d2d"}, "attacks": ["game", "lira"]}`, `s.json: attacks[1]: "lira": want one of game, membership`},
		{`{"method": {"name": "d2d"}, "attacks": ["game", "game"]}`, `s.json: attacks[1]: "game" named twice`},
		{`{"method": {"name": "d2d"}, "attacks": []}`, `s.json: attacks: want a non-empty list of names among game, membership`},
		{`{"method": {"name": "d2d"}, "outputs": {"formats": ["docx"]}}`, `s.json: outputs.formats[0]: "docx": want one of json, md, html, pdf`},
		{`{"method": {"name": "d2d"}, "outputs": {"folder": "x"}}`, `s.json: outputs.folder: unknown field; want one of dir, formats`},
		{`{"method": {"name": "d2d"}, "outputs": {"dir": ""}}`, `s.json: outputs.dir: want a folder name`},
		{`{"method": {"name": "d2d"}, "outputs": {"dir": "/home/someone/.ssh"}}`, `s.json: outputs.dir: "/home/someone/.ssh": want a folder inside the spec's own folder (a relative path, no ..); give --out to write elsewhere`},
		{`{"method": {"name": "d2d"}, "outputs": {"dir": "../elsewhere"}}`, `s.json: outputs.dir: "../elsewhere": want a folder inside the spec's own folder`},
		{`{"method": {"name": "d2d"}, "outputs": {"dir": "a/../../b"}}`, `s.json: outputs.dir: "a/../../b": want a folder inside`},
		{`{"method": {"name": "d2d"}, "model": {"intercept": 1}}`, `s.json: model.intercept: want true or false`},
		{`{"method": {"name": "d2d"}, "data": {"file": "x.csv", "preprocessing": "standardise"}}`, `s.json: data.preprocessing: preprocessing step "standardise": want none or a comma-separated list of standardize, max-abs, pixels, unit-ball, unit-rows`},
		{`{"method": {"name": "d2d"}, "data": {"preprocessing": "none"}}`, `s.json: data.file: missing; format, classes, labels and preprocessing describe a file`},
		{`{"method": {"name": "sglu", "params": {"sglu-sigma": -1}}}`, "s.json: method.params.sglu-sigma: -1: want a number in (0, inf)"},
		{`{"method": {"name": "sglu", "params": {"sigma": 1}}}`, "s.json: method.params.sigma: unknown field; want one of sglu-batch, sglu-epochs, sglu-lockstep, sglu-precision, sglu-sigma"},
		// a name the toolkit does not run, given variants or params: the name is what is
		// wrong (an example spec's method mistyped), with the nearest method if one is near
		{`{"method": {"name": "newton", "variants": ["x"]}}`, `s.json: method.name: "newton" is not a method the toolkit implements (one of d2d, hf, olu, safe, sglu); a method of your own, for audit verify, is a name alone, without variants`},
		{`{"method": {"name": "d2dd", "variants": ["perfect"], "params": {"iterations": 10}}}`, `s.json: method.name: "d2dd" is not a method the toolkit implements (one of d2d, hf, olu, safe, sglu) (did you mean "d2d"?); a method of your own, for audit verify, is a name alone, without params or variants`},
		{`{"method": {"name": "SGLU", "params": {"sglu-sigma": 1}}}`, `s.json: method.name: "SGLU" is not a method the toolkit implements (one of d2d, hf, olu, safe, sglu) (did you mean "sglu"?)`},
		{`{"method": {"name": ""}}`, `s.json: method.name: missing; want a name`},
		{`{"method": {"name": "sgd <script>"}}`, `s.json: method.name: "<" at byte 4: a name is letters, digits`},
		{`{"method": {"name": "a|b"}}`, `s.json: method.name: "|" at byte 1`},
		{`{"method": {"name": "x\n# PASS"}}`, `s.json: method.name: "\n" at byte 1`},
		{`{"method": {"name": "x\u001b[31m"}}`, `s.json: method.name: "\x1b" at byte 1`},
		{`{"method": {"name": "d2d"}, "scores": "probability"}`, `s.json: scores: "probability": want "loss" or "confidence"`},
		{`{"method": {"name": "d2d", "variants": ["sglu"]}}`, `s.json: method.variants[0]: "sglu" is not a variant of d2d`},
		{`{"method": {"name": "d2d"}, "claim": {"delta": 1}}`, "s.json: claim.delta: 1: want a number in (0, 1)"},
		{`{"method": {"name": "d2d"}, "trials": 7}`, "s.json: trials: 7: want an integer in [8, 1000000]"},
		{`{"method": {"name": "d2d"}, "trials": "many"}`, `s.json: trials: "many": want a JSON integer, not a string`},
		// issue 29: a number written as a string, an empty deletes (which meant the defaults), a variant twice
		{`{"method": {"name": "d2d"}, "trials": "8"}`, `s.json: trials: "8": want a JSON integer, not a string`},
		{`{"method": {"name": "d2d"}, "claim": {"epsilon": "1"}}`, `s.json: claim.epsilon: "1": want a JSON number, not a string`},
		{`{"method": {"name": "d2d"}, "seed": true}`, `s.json: seed: true: want a JSON integer`},
		{`{"method": {"name": "d2d", "params": {"iterations": "10"}}}`, `s.json: method.params.iterations: "10": want a JSON integer, not a string`},
		{`{"method": {"name": "d2d", "params": {"schedule": 1}}}`, `s.json: method.params.schedule: 1: want a string: fixed or paper`},
		{`{"method": {"name": "d2d"}, "deletes": []}`, `s.json: deletes: an empty list`},
		{`{"method": {"name": "d2d"}, "claim": {"epsilon": 1e400}}`, `s.json: claim.epsilon: 1e400: overflows float64`},
		{`{"method": {"name": "d2d", "variants": ["perfect", "perfect"]}}`, `s.json: method.variants[1]: "perfect" named twice`},
		{`{"method": {"name": "d2d"}, "deletes": [1, 1]}`, "s.json: deletes[1]: record ID 1 named twice"},
		{`{"method": {"name": "d2d"}, "data": {"format": "parquet"}}`, `s.json: data.format: "parquet": want one of csv, libsvm, idx, sklearn-csv`},
		{`{"method": {"name": "d2d"}, "data": {"format": "csv"}}`, "s.json: data.file: missing"},
		{`{"method": {"name": "d2d"}, "model": {"loss": "hinge"}}`, `s.json: model.loss: want "logistic"`},
		{`{"method": {"name": "d2d"}, "schema": "v0"}`, `s.json: schema: want "unlearnaudit/spec/v1"`},
		{`{"method": {"name": "d2d"}, "seed": -1}`, "s.json: seed: -1: want a non-negative integer"},
		{`{"method": {"name": "d2d"}, "trials": 10, "trials": 20}`, "s.json: trials: given twice"},
		{`{"method": {"name": "d2d"}} {}`, "s.json: text after the object"},
		// malformed JSON is placed by line and column in the file, wherever it is
		{"{\n  \"method\": {\"name\": \"d2d\"},\n  \"trials\": 10,\n}\n", "s.json: malformed JSON at line 4, column 1: invalid character '}' looking for beginning of object key string"},
		{"{\n  \"method\": {\"name\": \"d2d\" \"x\": 1}\n}", `s.json: method: malformed JSON at line 2, column 28: invalid character '"' after object key:value pair`},
		{"{\"a\": 1,\n \"b\": [1, 2,, 3]}", "s.json: b: malformed JSON at line 2, column 13: invalid character ','"},
		{"{\n\"method\": {\"name\": \"d2", "s.json: method: malformed JSON: the file ends at line 2, column 22, inside a value"},
	} {
		_, err := spec.ParseSpec(strings.NewReader(c.in), "s.json")
		var se *audit.SpecError
		if err == nil || !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s…", c.in, err, c.want)
		}
	}
}

// A spec for audit verify needs only a claim: the method is optional, and a name the
// toolkit does not implement is a label (reported as declared by the user). The routes
// that run the method refuse it, naming the field.
func TestSpecMethodOptional(t *testing.T) {
	for _, c := range []struct{ in, name, refusal string }{
		{`{"claim": {"epsilon": 1}}`, "unnamed method", `s.json: method.name: missing; this command runs the method`},
		{`{"method": {"name": "my-sgd"}}`, "my-sgd", `s.json: method.name: "my-sgd" is not a method the toolkit implements (one of d2d, hf, olu, safe, sglu); only`},
		{`{"method": {"name": "Safe"}}`, "Safe", `s.json: method.name: "Safe" is not a method the toolkit implements (one of d2d, hf, olu, safe, sglu) (did you mean "safe"?); only`},
		{`{"method": {"name": "d2d"}}`, "d2d", ""},
	} {
		s, err := spec.ParseSpec(strings.NewReader(c.in), "s.json")
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		err = s.RequireMethod("s.json")
		if s.MethodName() != c.name || (c.refusal == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), c.refusal) {
			t.Errorf("%s: name %q, RequireMethod %v; want %q and %q", c.in, s.MethodName(), err, c.name, c.refusal)
		}
	}
}

// LoadSpec resolves a relative data file and output folder against the spec's folder, so a
// spec travels with its data and says where its report goes wherever it is run from.
func TestLoadSpecResolvesDataBesideIt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.json")
	if err := os.WriteFile(path, []byte(`{"method": {"name": "d2d"}, "data": {"file": "rows.csv", "format": "csv"}, "outputs": {"dir": "out"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Data.File != filepath.Join(dir, "rows.csv") || s.Outputs.Dir != filepath.Join(dir, "out") {
		t.Errorf("data file %q, output folder %q", s.Data.File, s.Outputs.Dir)
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add(`{"method": {"name": "d2d", "params": {"iterations": 5}}, "deletes": [1]}`)
	f.Add(`{"data": {"file": "x", "format": "idx"}, "method": {"name": "sglu"}}`)
	f.Add(`{"method": {"name": "d2d"}, "attacks": ["game"], "outputs": {"dir": "o", "formats": ["pdf"]}, "data": {"file": "x", "preprocessing": "none"}}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := spec.ParseSpec(strings.NewReader(in), "fuzz.json")
		if err == nil && (s.Trials < checks.MinEmpiricalTrials || !(s.Delta > 0 && s.Delta < 1) || len(s.Outputs.Formats) == 0 || (s.Attacks != nil && len(s.Attacks) == 0)) {
			t.Fatalf("accepted an invalid spec: %+v", s)
		}
		var se *audit.SpecError
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("error %v is not a SpecError", err)
		}
		// a malformed file's place is a character of it (a line's column len + 1 is its
		// new line), and where the file ends inside a value, one that is not space
		if err != nil {
			if m := malformedAt.FindStringSubmatch(err.Error()); m != nil {
				line, _ := strconv.Atoi(m[1])
				col, _ := strconv.Atoi(m[2])
				lines := strings.SplitAfter(in, "\n")
				if line < 1 || line > len(lines) || col < 1 || col > len(lines[line-1]) {
					t.Fatalf("%q: %v: no line %d with a column %d (%d lines)", in, err, line, col, len(lines))
				}
				if c := lines[line-1][col-1]; strings.Contains(err.Error(), "file ends") && strings.ContainsRune(" \t\r\n", rune(c)) {
					t.Fatalf("%q: %v: the place is a space (%q)", in, err, c)
				}
			}
		}
	})
}

// malformedAt reads the place out of a malformed-JSON refusal.
var malformedAt = regexp.MustCompile(`malformed JSON(?: at|: the file ends at) line (\d+), column (\d+)`)

// The README's example spec is valid, and names the repository's heart_scale.
func TestExampleSpecIsValid(t *testing.T) {
	s, err := spec.LoadSpec(filepath.Join("..", "..", "examples", "heart-scale.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Method.Name() != "d2d" || !slices.Equal(s.Variants, []string{"strongly-convex", "perfect"}) || !strings.HasSuffix(s.Data.File, filepath.Join("datasets", "liblinear", "heart_scale")) {
		t.Errorf("spec %+v", s)
	}
}

// Attacks: nil runs every attack; a list runs those it names, each once.
func TestParseAttacks(t *testing.T) {
	var all audit.Attacks
	if !all.Has(audit.GameAttack) || !all.Has(audit.MembershipAttack) {
		t.Error("nil attacks do not run every attack")
	}
	got, err := audit.ParseAttacks(" membership ")
	if err != nil || !got.Has(audit.MembershipAttack) || got.Has(audit.GameAttack) {
		t.Errorf("ParseAttacks(membership) = %v, %v", got, err)
	}
	for in, want := range map[string]string{"game,game": `attack "game" named twice`, "lira": `attack "lira": want a comma-separated list of game, membership`, "": `attack ""`} {
		if _, err := audit.ParseAttacks(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAttacks(%q) = %v, want %q", in, err, want)
		}
	}
}
