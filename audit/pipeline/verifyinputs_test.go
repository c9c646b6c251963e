package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
)

func ptr[T any](v T) *T { return &v }

// The settings given over a spec: each changes the spec only when given, a half claim the
// flags do not complete is the spec's error (naming its file), and an empty name or an
// unknown p-value is refused naming its flag.
func TestSpecSettingsApplyTo(t *testing.T) {
	half := func() *spec.Spec {
		s, err := spec.ParseSpec(strings.NewReader(`{"claim": {"epsilon": 2}}`), "half.json")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := spec.DefaultSpec()
	if err := (SpecSettings{}).ApplyTo(s, ""); err != nil || s.Claimed || s.RandomisedRank || s.Name != "" {
		t.Fatalf("nothing given: %v; the spec changed (claimed %t, randomised %t, name %q)", err, s.Claimed, s.RandomisedRank, s.Name)
	}
	if err := (SpecSettings{Epsilon: ptr(1.5), Delta: ptr(1e-3), Name: ptr("my-sgd"), RankP: ptr("randomised")}).ApplyTo(s, ""); err != nil ||
		!s.Claimed || s.Epsilon != 1.5 || s.Delta != 1e-3 || s.Name != "my-sgd" || !s.RandomisedRank {
		t.Fatalf("all given: %v; got claimed %t (%g, %g), name %q, randomised %t", err, s.Claimed, s.Epsilon, s.Delta, s.Name, s.RandomisedRank)
	}
	if err := (SpecSettings{Delta: ptr(1e-3)}).ApplyTo(half(), "half.json"); err != nil {
		t.Errorf("a half claim completed by --delta: %v", err)
	}
	var se *audit.SpecError
	if err := (SpecSettings{}).ApplyTo(half(), "half.json"); !errors.As(err, &se) || !strings.HasPrefix(err.Error(), "half.json") {
		t.Errorf("a half claim left half: %v; want the spec's error, naming half.json", err)
	}
	for _, c := range []struct {
		st   SpecSettings
		want string
	}{
		{SpecSettings{Epsilon: ptr(1.0)}, "verify: --epsilon"},
		{SpecSettings{Name: ptr(" ")}, "verify: --name"},
		{SpecSettings{RankP: ptr("exact")}, "verify: --rank-p: "},
	} {
		if err := c.st.ApplyTo(spec.DefaultSpec(), ""); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v; want an error beginning %q", c.st, err, c.want)
		}
	}
}

// Inputs lists every file verify reads, by the flag or field naming it, so that --out can
// replace none of them.
func TestVerifyInputsInputs(t *testing.T) {
	s := spec.DefaultSpec()
	s.Data.File, s.Data.Labels = "d.idx", "l.idx"
	in := VerifyInputs{Spec: s, SpecPath: "s.json", Unlearned: "u", Retrained: "r", References: "ref.npz", Holdout: "h.npy", OneRun: "c.json",
		PrenoiseUnlearned: "pu", PrenoiseRetrained: "pr", Utility: "ut.npz"}
	want := map[string]string{"--spec": "s.json", "--unlearned": "u", "--retrained": "r", "--references": "ref.npz", "--holdout": "h.npy", "--one-run": "c.json",
		"--prenoise-unlearned": "pu", "--prenoise-retrained": "pr", "--utility": "ut.npz", "data.file": "d.idx", "data.labels": "l.idx"}
	got := in.Inputs()
	if len(got) != len(want) {
		t.Errorf("Inputs lists %d files, want %d", len(got), len(want))
	}
	for _, i := range got {
		if want[i.Flag] != i.Path {
			t.Errorf("Inputs: %s is %q, want %q", i.Flag, i.Path, want[i.Flag])
		}
		delete(want, i.Flag)
	}
	if len(want) > 0 {
		t.Errorf("Inputs leaves out %v", want)
	}
}
