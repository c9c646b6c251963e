package sgluaudit

import (
	"context"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
)

// Each negative control FAILs, and the check that catches it is the one its bug is
// planted against; the honest subject passes the same deterministic and implementation
// checks. Both code paths: the Model and the lockstep ensemble. The noise check's false
// FAIL probability on the honest subject is (1 − 0.95)/20 (seeded: fixed here); the
// coupled replay and the certificate are deterministic.
func TestControlsAreCaught(t *testing.T) {
	ds := breastCancer(t)
	for _, c := range []struct {
		lockstep int
		f32      bool
	}{{0, false}, {8, false}, {8, true}} {
		lockstep := c.lockstep
		st := setup(ds)
		st.Lockstep, st.Float32 = c.lockstep, c.f32
		s, err := New(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		opt := audit.CheckOptions{Seed: 3, Attacks: audit.Attacks{}} // the implementation checks alone
		honest, err := Check(context.Background(), s, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range honest {
			if f.Verdict != verdict.Pass {
				t.Errorf("lockstep %d: honest %s: %s (%s)", lockstep, f.Check, f.Verdict, f.Detail)
			}
		}
		want := map[string]string{"half-noise": "sglu/noise", "no-unlearning": "sglu/coupled-replay",
			"update-skipped": "sglu/coupled-replay", "stale-sigma": "sglu/noise"}
		ctls := Controls(s, opt)
		if len(ctls) < len(want) {
			t.Fatalf("%d controls; want at least %d", len(ctls), len(want))
		}
		for _, c := range ctls {
			fs, err := c.Audited.Check(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var caught []string
			for _, f := range fs {
				if f.Verdict == verdict.Fail {
					caught = append(caught, f.Check)
				}
			}
			w, ok := want[c.Name]
			if c.Name == string(staleEpochs) {
				w, ok = "sglu/certificate", true
			}
			if !ok || !slices.Contains(caught, w) {
				t.Errorf("lockstep %d: control %s: caught by %v; want %s", lockstep, c.Name, caught, w)
			}
			if c.Audited.Subject.Name() == s.Name() || c.Audited.Subject.(*Subject).Fingerprint() == s.Fingerprint() {
				t.Errorf("control %s shares the subject's name or fingerprint: its trials would be mixed with the subject's", c.Name)
			}
		}
	}
}

// The stale-epochs control exists where the accountant at 2σ needs fewer epochs, and its
// certificate then FAILs: a setup with a tight target needs several epochs a request.
func TestStaleEpochsControl(t *testing.T) {
	st := setup(breastCancer(t))
	st.Epsilon = 0.05
	s, err := New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := s.stale()
	if !ok {
		t.Fatalf("K = %v: the accountant at 2σ changes none", s.Needed())
	}
	if f := m.certificateFinding(); f.Verdict != verdict.Fail {
		t.Errorf("stale epochs %v for needed %v: certificate %s (%s)", m.UnlearnEpochs(), s.Needed(), f.Verdict, f.Detail)
	}
}

// The coupled bound is the worst case of the step recursion: with no request differing
// it is zero, it grows with the requests, and the honest pairs sit inside it while the
// bound for one epoch fewer is smaller than the bound for the claimed epochs.
func TestCoupledBound(t *testing.T) {
	s, err := New(context.Background(), setup(breastCancer(t)))
	if err != nil {
		t.Fatal(err)
	}
	b := s.coupledBound()
	if !(b > 0) {
		t.Fatalf("bound %v; want > 0 with requests that differ", b)
	}
	more := *s
	more.ks = slices.Clone(s.ks)
	more.ks[len(more.ks)-1]++
	if !(more.coupledBound() < b) {
		t.Errorf("one more epoch on the last request: bound %v, not below %v", more.coupledBound(), b)
	}
	f, err := s.coupledFinding(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if f.Verdict != verdict.Pass || !(f.Measured > 0) {
		t.Errorf("honest coupled replay: %s, distance %v (bound %v)", f.Verdict, f.Measured, f.Bound)
	}
}
