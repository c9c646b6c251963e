package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/threshold"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// Measurement without a claim. `audit verify` given no claim (a spec without claim.epsilon
// and claim.delta, and no --epsilon) plays the same routes and reports what the models
// show — the ε lower bound at δ with the μ of its Gaussian pair, the largest ε the models
// can show, the deciding statistic's AUC and TPR at low FPR — as measurements: Kind
// Measurement, which no claim requires, so no verdict is given (the report's is
// reports.NotJudged). What claim such models could then state is the user's to choose;
// docs/models-trained-elsewhere.md says how.

// MeasurementClaim is the subject's claim when none was made: nothing certified, nothing
// required, at the δ the game's bound was computed at.
func MeasurementClaim(c verdict.Claim, delta float64) verdict.Claim {
	c.Guarantee = "none: a measurement without a claim (no verdict)"
	c.Epsilon, c.Delta = 0, delta
	c.Required = []verdict.Kind{verdict.Measurement}
	return c
}

// AsMeasurements turns a claimless verify's findings into measurements: each game's or
// rank test's finding keeps its ε lower bound and estimates, loses the power and bound that
// spoke of a claim, and opens with what the models show, in ε and μ; a measurement already
// (the held-out membership) is kept as it is.
func AsMeasurements(fs []verdict.Finding, delta, confidence float64) []verdict.Finding {
	out := make([]verdict.Finding, len(fs))
	for i, f := range fs {
		out[i] = f
		if f.Kind == verdict.Measurement {
			continue
		}
		m := &out[i]
		_, check, _ := strings.Cut(f.Detail, ". The check: ")
		if check == "" {
			check = f.Detail
		}
		switch {
		case f.Power != nil && f.Power.Question != nil: // a distinguishing game
			q := f.Power.Question
			most := epsilon.MaxCertifiable(q.Trials, delta, q.Confidence, threshold.Split)
			m.Detail = fmt.Sprintf("A measurement, no claim, no verdict: %d models a side show ε ≥ %.4g at δ = %.3g with %.4g %% confidence (a Gaussian pair that far apart has μ ≥ %.4g); the most they can show is ε = %.3g (μ = %.3g). The check: %s",
				q.Trials, f.Measured, delta, 100*q.Confidence, epsilon.GDPMu(f.Measured, delta), most, epsilon.GDPMu(most, delta), check)
			m.Estimates = append(m.Estimates, verdict.Estimate{Name: "Gaussian-DP μ lower bound", Value: epsilon.GDPMu(f.Measured, delta),
				Note: fmt.Sprintf("the μ of the Gaussian pair whose ε at δ = %.3g is the ε lower bound: a bound on μ only if the pair is Gaussian-DP", delta)})
		case f.Comparison == ">": // a rank test: Measured is its smallest p-value
			check, _, _ = strings.Cut(check, "; under the claim") // the rest tests the default claim
			k := max(f.Trials, 1)
			shown := math.Log(((1-confidence)/float64(k) - delta) / f.Measured)
			if !(shown > 0) {
				shown = 0
			}
			m.Measured, m.Interval = shown, &verdict.Interval{Lower: shown, Upper: math.Inf(1)}
			m.Detail = fmt.Sprintf("A measurement, no claim, no verdict: the rank p-value %.4g refutes every claim of ε < %.4g at δ = %.3g with %.4g %% confidence (ε = ln(((1 − confidence)/k − δ)/p); a Gaussian pair that far apart has μ ≥ %.4g). The check: %s",
				f.Measured, shown, delta, 100*confidence, epsilon.GDPMu(shown, delta), check)
		}
		m.Kind, m.Verdict = verdict.Measurement, verdict.Inconclusive
		m.Title = "measurement, no claim: " + f.Title
		m.Bound, m.Comparison = math.NaN(), ""
		m.Power, m.TrialsNeeded = nil, 0
	}
	return out
}

// DefaultSpec is the spec of an empty file, for `audit verify` without --spec: every
// default, no method, and no claim (Claimed false) until the command line gives one.
func DefaultSpec() *Spec {
	s, err := ParseSpec(strings.NewReader("{}"), "(no spec)")
	if err != nil {
		panic("audit: the empty spec: " + err.Error()) // the defaults are the package's own
	}
	return s
}

// SetClaim sets the claim from outside the spec (verify --epsilon, --delta; nil: not
// given). ε and δ together make the claim; one of them changes the spec's claim when it
// states one; δ alone, with no claim, is the δ a measurement bounds ε at; ε alone, with no
// claim, is refused (a claim is a pair). Values outside EpsilonParam's and DeltaParam's
// ranges are refused as those flags refuse them.
//
// A spec that states half a claim (PartialClaim) is refused unless the flags complete it:
// verify audits the claim made, and makes none up (file names the spec in the error).
func (s *Spec) SetClaim(file string, eps, delta *float64) error {
	hasEps := s.Claimed || s.PartialClaim == "epsilon" || eps != nil
	hasDelta := s.Claimed || s.PartialClaim == "delta" || delta != nil
	switch {
	case hasEps && hasDelta:
	case s.PartialClaim != "":
		return &audit.SpecError{File: file, Path: "claim", Msg: "want both epsilon and delta (or --epsilon and --delta): verify audits the claim made, and assumes none"}
	case eps != nil:
		return &audit.SettingError{Flag: "epsilon", Index: -1, Msg: "a claim is (ε, δ): give --delta too, or a spec whose claim states δ"}
	}
	for _, v := range []struct {
		p   audit.Param
		v   *float64
		dst *float64
	}{{audit.EpsilonParam, eps, &s.Epsilon}, {audit.DeltaParam, delta, &s.Delta}} {
		if v.v == nil {
			continue
		}
		if err := v.p.Check(strconv.FormatFloat(*v.v, 'g', -1, 64)); err != nil {
			return err // a *ParamError naming the flag
		}
		*v.dst = *v.v
		s.claimFlags = true
	}
	s.Claimed = hasEps && hasDelta
	return nil
}

// SetName names the audited subject (verify --name) in place of the spec's method: letters,
// digits, spaces and - _ . + / ( ) :, at most 200 characters, as a spec's method.name.
func (s *Spec) SetName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return &audit.SettingError{Flag: "name", Index: -1, Msg: "empty; want a name for the report"}
	case len(name) > 200:
		return &audit.SettingError{Flag: "name", Index: -1, Msg: fmt.Sprintf("%d characters; want a name of at most 200", len(name))}
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return !methodLabelRune(r) }); i >= 0 {
		return &audit.SettingError{Flag: "name", Index: -1, Msg: fmt.Sprintf("%q at byte %d: a name is letters, digits, spaces and - _ . + / ( ) : (it goes into every report and the console)", []rune(name[i:])[0], i)}
	}
	s.Name = name
	return nil
}

// SubjectName is what a verify report calls the subject: the --name given, else the
// method's name (MethodName).
func (s *Spec) SubjectName() string {
	if s.Name != "" {
		return s.Name
	}
	return s.MethodName()
}
