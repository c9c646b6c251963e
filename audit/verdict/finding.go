package verdict

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/unlearnaudit/unlearnaudit/audit/epsilon"
	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
	"github.com/unlearnaudit/unlearnaudit/internal/floatsort"
)

// Verdict is the outcome of one check.
type Verdict string

const (
	// Pass: the evidence is consistent with the claim, and the check could have shown a
	// violation: a deterministic check by construction, an empirical one with power at
	// least PowerTarget against its named alternative (Finding.Power).
	Pass Verdict = "PASS"
	// Fail: a violation shown at the stated confidence (an empirical lower bound above the
	// certified upper bound, or a deterministic inequality broken).
	Fail Verdict = "FAIL"
	// Inconclusive: too little evidence to decide; the finding says how many trials would.
	Inconclusive Verdict = "INCONCLUSIVE"
)

// Kind groups checks by the question they answer.
type Kind string

const (
	// Certificate checks recompute the claim's arithmetic and test its assumptions on the data.
	Certificate Kind = "certificate"
	// Implementation checks compare the method's runs with what its proof assumes.
	Implementation Kind = "implementation"
	// Release checks measure how far the published laws are apart.
	Release Kind = "release"
	// Empirical checks attack the published models with no knowledge of the method's
	// internals: the ε lower bound of a distinguishing game.
	Empirical Kind = "empirical"
	// Measurement findings measure without bounding ε (one model's membership AUC against
	// held-out records): reported beside a claim's findings, never required by one, so
	// they never decide a verdict.
	Measurement Kind = "measurement"
)

// Interval is a confidence interval.
type Interval struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// A Finding is the result of one check.
type Finding struct {
	Check    string    `json:"check"` // stable identifier, e.g. "d2d/release/renyi"
	Title    string    `json:"title"`
	Kind     Kind      `json:"kind"`
	Verdict  Verdict   `json:"verdict"`
	Measured float64   `json:"measured"`
	Interval *Interval `json:"interval,omitempty"` // confidence interval of Measured
	// Bound is what Measured is compared with; Comparison says how ("≤" or "≥").
	Bound      float64 `json:"bound"`
	Comparison string  `json:"comparison"`
	// Confidence is the probability that a FAIL is not a false alarm; 1 for deterministic
	// checks.
	Confidence   float64 `json:"confidence"`
	Trials       int     `json:"trials,omitempty"`
	TrialsNeeded int     `json:"trials_needed,omitempty"` // set on INCONCLUSIVE
	Detail       string  `json:"detail,omitempty"`
	// Power, on an empirical finding, says what the check could have caught.
	Power *Power `json:"power,omitempty"`
	// Estimates are reported beside the measurement and never decide the verdict.
	Estimates []Estimate `json:"estimates,omitempty"`
	// Scores, on a game's finding, summarise the attack score of both sides for plots.
	Scores *ScoreSummary `json:"scores,omitempty"`
	// HeldOut, on a split game's finding, is the rule that decided and its held-out counts.
	HeldOut *HeldOut `json:"held_out,omitempty"`
	// Traces follow the finding's quantity request by request, for plots against the
	// number of requests.
	Traces []Trace `json:"traces,omitempty"`
	// Membership, on a membership measurement on one model (HoldoutMembership), holds its
	// ROC, its TPRs at low FPR and each deleted record's score, for reports.
	Membership *MembershipSummary `json:"membership,omitempty"`
}

// A Trace follows a quantity request by request — what a method certifies, or what a check
// measured, after the 1st, 2nd, … deletion request — beside the bound or claim it is held
// to at that request. Reports plot it against the number of requests served.
type Trace struct {
	Name string `json:"name"` // what Values are, e.g. "ε certified after request i"
	// Requests are the 1-based numbers of the requests Values follow (every request, or an
	// even selection of a long sequence, always with the last).
	Requests  []int     `json:"requests"`
	Values    []float64 `json:"values"`
	BoundName string    `json:"bound_name"`
	Bound     []float64 `json:"bound"` // as long as Values
	// Lower, when set, is the least each value is known to be (as long as Values): the
	// value less what its check cannot resolve, such as an oracle's certified error or
	// float64's spacing at the models. A request fails its finding only when its lower
	// end is past the bound: a value within rounding of its bound is no evidence.
	Lower []float64 `json:"lower,omitempty"`
}

// TraceRequests are the request numbers a trace of k requests follows: every one up to
// MaxTracePoints, else an even selection that keeps the first and the last.
func TraceRequests(k int) []int {
	if k <= MaxTracePoints {
		out := make([]int, k)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	out := make([]int, MaxTracePoints)
	for j := range out { // 1 + round(j·(k−1)/(P−1)): distinct, since the step exceeds 1
		out[j] = 1 + int(math.Round(float64(j)*float64(k-1)/float64(MaxTracePoints-1)))
	}
	return out
}

// MaxTracePoints bounds the requests a trace follows: each may cost a retrain.
const MaxTracePoints = 64

// AddTrace attaches t to a deterministic "≤" finding and holds every traced value to its
// bound as the finding holds its measurement: a request whose value (its lower end, where
// t has one) is past its bound fails the finding, which then reports that request's
// value and bound and is titled by what they are, the trace's quantity at that request.
// Any other finding only carries t.
func (f *Finding) AddTrace(t Trace) error {
	if err := t.Check(); err != nil {
		return err
	}
	f.Traces = append(f.Traces, t)
	if f.Comparison != "≤" || f.Confidence != 1 || f.Verdict == Fail {
		return nil
	}
	for i, v := range t.Values {
		known := v
		if t.Lower != nil {
			known = t.Lower[i]
		}
		if !FloatTolerance(known, t.Bound[i]) || math.IsNaN(known) {
			detail := fmt.Sprintf("after request %d: %s = %.6g > %.6g", t.Requests[i], t.Name, v, t.Bound[i])
			if known != v {
				detail += fmt.Sprintf(" (at least %.6g, less what the check cannot resolve)", known)
			}
			detail += fmt.Sprintf("; the finding on the last request, %s: %.6g against %.6g, %s", f.Title, f.Measured, f.Bound, f.Verdict)
			if f.Detail != "" {
				detail += " (" + f.Detail + ")"
			}
			f.Detail = detail
			f.Title = fmt.Sprintf("%s, after request %d, against %s", t.Name, t.Requests[i], t.BoundName)
			f.Verdict, f.Measured, f.Bound = Fail, v, t.Bound[i]
			return nil
		}
	}
	return nil
}

// Check reports a trace whose bound does not pair with its values.
func (t Trace) Check() error {
	if len(t.Values) == 0 || len(t.Bound) != len(t.Values) || len(t.Requests) != len(t.Values) {
		return fmt.Errorf("trace %q: %d requests, %d values and %d bounds; want as many, at least one", t.Name, len(t.Requests), len(t.Values), len(t.Bound))
	}
	if t.Lower != nil && len(t.Lower) != len(t.Values) {
		return fmt.Errorf("trace %q: %d lower ends for %d values; want as many, or none", t.Name, len(t.Lower), len(t.Values))
	}
	for i, r := range t.Requests {
		if r < 1 || (i > 0 && r <= t.Requests[i-1]) {
			return fmt.Errorf("trace %q: request numbers must rise from 1; got %v", t.Name, t.Requests)
		}
	}
	return nil
}

// ScoreSummary is what a report plots of an attack score: a histogram of each side on
// shared bins, and the ROC curve of the threshold attack (the false- and true-positive
// rates of "unlearned" over every threshold), both of every trial.
type ScoreSummary struct {
	Name      string     `json:"name"`
	Edges     []float64  `json:"edges"`     // len(bins)+1 bin edges
	Unlearned []int      `json:"unlearned"` // counts per bin
	Retrained []int      `json:"retrained"`
	ROC       []ROCPoint `json:"roc"`
}

// ROCPoint is one threshold of the ROC curve.
type ROCPoint struct {
	FPR float64 `json:"fpr"`
	TPR float64 `json:"tpr"`
}

// scoreBins is the histogram's bin count; rocPoints bounds the ROC curve's thresholds.
const (
	scoreBins = 30
	rocPoints = 200
)

// SummarizeScores bins both sides' scores on [min, max] and traces the ROC of the rule
// "score ≥ t means unlearned" (with the sides swapped when that rule is worse than chance,
// so the curve shows the better direction), at up to 200 thresholds.
func SummarizeScores(name string, unlearned, retrained []float64) *ScoreSummary {
	return summarizeScores(name, unlearned, retrained, 0)
}

// SummarizeScoresOriented is SummarizeScores with the ROC traced in a given direction,
// never swapped: of "score ≥ t means unlearned" when above is set, else of "score ≤ t", the
// direction of the rule that decided (or the pre-registered one), so that the curve shows
// that rule's direction even where it is worse than chance.
func SummarizeScoresOriented(name string, unlearned, retrained []float64, above bool) *ScoreSummary {
	if above {
		return summarizeScores(name, unlearned, retrained, 1)
	}
	return summarizeScores(name, unlearned, retrained, -1)
}

// summarizeScores is SummarizeScores with the ROC's direction: ≥ t (dir > 0), ≤ t (dir <
// 0), or whichever separates (0).
func summarizeScores(name string, unlearned, retrained []float64, dir int) *ScoreSummary {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range append(append([]float64(nil), unlearned...), retrained...) {
		if !math.IsInf(v, 0) && !math.IsNaN(v) { // the range of the finite scores; the others go to the end bins
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi { // no finite score
		lo, hi = 0, 1
	}
	if !(hi > lo) {
		hi = lo + 1
		if !(hi > lo) { // |lo| ≥ 2⁵³: +1 is lost; the range from lo to half of it instead
			lo, hi = min(lo, lo/2), max(lo, lo/2)
		}
	}
	// at is the point a share i/n of the way from lo to hi. (hi − lo)·i overflows when the
	// scores span more than MaxFloat64/n (−1e308 to 1e308): then it is taken in halves.
	half := hi/2 - lo/2
	wide := !(hi-lo <= math.MaxFloat64/rocPoints)
	at := func(i, n int) float64 {
		if !wide {
			return lo + (hi-lo)*float64(i)/float64(n)
		}
		f := float64(i) / float64(n)
		return min(hi, lo+f*half+f*half)
	}
	s := &ScoreSummary{Name: name, Edges: make([]float64, scoreBins+1), Unlearned: make([]int, scoreBins), Retrained: make([]int, scoreBins)}
	for i := range s.Edges {
		s.Edges[i] = at(i, scoreBins)
	}
	bin := func(v float64) int {
		f := (v - lo) / (hi - lo) * scoreBins
		if wide {
			f = (v/2 - lo/2) / half * scoreBins // the same ratio, in halves
		}
		if !(f >= 0) { // below lo, or NaN
			return 0
		}
		return int(min(scoreBins-1, f)) // f ≥ 0 and at most scoreBins − 1: int cannot overflow
	}
	for _, v := range unlearned {
		s.Unlearned[bin(v)]++
	}
	for _, v := range retrained {
		s.Retrained[bin(v)]++
	}
	pos, neg := slices.Clone(unlearned), slices.Clone(retrained)
	floatsort.Sort(pos) // as slices.Sort
	floatsort.Sort(neg)
	above := func(xs []float64, t float64) float64 { // fraction ≥ t
		return float64(len(xs)-sort.SearchFloat64s(xs, t)) / float64(len(xs))
	}
	auc := 0.0
	for k := range rocPoints + 1 {
		t := at(k, rocPoints)
		p := ROCPoint{FPR: above(neg, t), TPR: above(pos, t)}
		s.ROC = append(s.ROC, p)
		auc += p.TPR - p.FPR
	}
	if dir < 0 || dir == 0 && auc < 0 { // the other direction separates (or decided): plot it
		for i := range s.ROC {
			s.ROC[i] = ROCPoint{FPR: 1 - s.ROC[i].FPR, TPR: 1 - s.ROC[i].TPR}
		}
		slices.Reverse(s.ROC)
	}
	// the thresholds below every score and above every score, where ties at the ends leave
	// the curve short of its corners
	if s.ROC[0] != (ROCPoint{1, 1}) {
		s.ROC = append([]ROCPoint{{1, 1}}, s.ROC...)
	}
	if s.ROC[len(s.ROC)-1] != (ROCPoint{}) {
		s.ROC = append(s.ROC, ROCPoint{})
	}
	return s
}

// PowerTarget is the probability with which an empirical PASS must have been able to catch
// the named violation.
const PowerTarget = 0.8

// DefaultPowerAgainst is the named violation an empirical check must be able to catch by
// default: a Gaussian-mechanism pair whose exact ε is twice the claimed ε.
const DefaultPowerAgainst = 2.0

// Power is what an empirical check could have caught, against a named alternative: the
// Gaussian-mechanism pair whose exact ε at the claim's δ is Against × the claimed ε.
type Power struct {
	Against float64 `json:"against_factor"`
	// Power is the probability that the check, with the trials it used, shows the claim
	// violated when the truth is that alternative; StdErr is its simulation error.
	Power  float64 `json:"power"`
	StdErr float64 `json:"power_stderr"`
	// SmallestFactor is the least F whose F× alternative the check catches with
	// probability PowerTarget at these trials (+Inf: none, the trials cannot resolve the
	// claim at all).
	SmallestFactor float64 `json:"smallest_detectable_factor"`
	// TrialsNeeded is the trials per side that reach PowerTarget against the Against×
	// alternative (epsilon.TrialsToDetect for Question, the planner's own answer); 0 when
	// these trials already do.
	TrialsNeeded int `json:"trials_needed,omitempty"`
	// Question, set on the distinguishing games' power, is the question Power and
	// TrialsNeeded answer, so that a report says what its count counts and `audit plan`
	// can ask the same (Question.PlanCommand).
	Question *Question `json:"question,omitempty"`
	// Unit, when set, says that Against and SmallestFactor are not factors of the claim
	// but amounts of this quantity (e.g. "excess AUC" for a test of "excess ≤ 0", which
	// has no claimed value to multiply): see ExcessPower.
	Unit string `json:"unit,omitempty"`
	// Counts, when set, is what the finding's trials and TrialsNeeded count when they are
	// not trials per side: "deleted records" for a membership attack on one model.
	Counts string `json:"counts,omitempty"`
	// What the game's trials support (PowerOf and decide set them; Supports words them),
	// in ε at the claim's δ and in the Gaussian-DP μ of the Gaussian pair with that ε
	// (epsilon.GDPMu): SmallestEpsilon is the smallest leak caught with PowerTarget power
	// (SmallestFactor × the claimed ε; +Inf: none), MaxEpsilon the largest ε these trials
	// can show at all (epsilon.MaxCertifiable, split, at the question's confidence).
	// TrialsToShow is the fewest trials per side that can show the claim violated at all
	// (epsilon.TrialsForResolution; 0: none up to 10⁹), TrialsToPass the fewest with the
	// power a PASS needs (epsilon.TrialsToDetect; 0 on a PASS, whose trials have it, or
	// beyond epsilon.MaxPlanTrials). `audit plan` prints the same four for the question.
	SmallestEpsilon float64 `json:"smallest_detectable_epsilon,omitempty"`
	SmallestMu      float64 `json:"smallest_detectable_mu,omitempty"`
	MaxEpsilon      float64 `json:"max_showable_epsilon,omitempty"`
	MaxMu           float64 `json:"max_showable_mu,omitempty"`
	TrialsToShow    int     `json:"trials_to_show_violation,omitempty"`
	TrialsToPass    int     `json:"trials_to_pass,omitempty"`
}

// Supports words what the trials support, for a finding's first line: the smallest leak
// caught with 80 % power and the largest ε the trials can show, each in ε and μ, and the
// trials per side that would (a) be able to show the claim violated and (b) PASS it. ""
// for a power without a question (an excess test's).
func (p *Power) Supports(verdict Verdict) string {
	if p == nil || p.Question == nil || p.Unit != "" {
		return ""
	}
	q := p.Question
	per := p.per()
	caught := fmt.Sprintf("with %.0f %% power they show ε = %g violated when the true leak is ε ≥ %.3g (μ ≥ %.3g)", 100*PowerTarget, q.Epsilon, p.SmallestEpsilon, p.SmallestMu)
	if math.IsInf(p.SmallestEpsilon, 1) {
		caught = fmt.Sprintf("no leak, however large, is caught with %.0f %% power", 100*PowerTarget)
	}
	show := fmt.Sprintf("a violation of ε = %g can be shown from %d %s", q.Epsilon, p.TrialsToShow, per)
	switch {
	case p.TrialsToShow == 0:
		show = fmt.Sprintf("no count up to 10⁹ %s can show ε = %g violated", per, q.Epsilon)
	case q.Trials < p.TrialsToShow:
		show += " (these cannot show it at all)"
	}
	pass := fmt.Sprintf("a PASS (%.0f %% power against %g×) needs about %d", 100*PowerTarget, p.Against, p.TrialsToPass)
	switch {
	case verdict == Pass:
		pass = fmt.Sprintf("these have the power a PASS needs (%.0f %% against %g×)", 100*PowerTarget, p.Against)
	case p.TrialsToPass == 0:
		pass = fmt.Sprintf("a PASS (%.0f %% power against %g×) needs more than %d", 100*PowerTarget, p.Against, epsilon.MaxPlanTrials)
	}
	return fmt.Sprintf("What %d %s support: %s; the most they can show is ε = %.3g (μ = %.3g) at δ = %.3g; %s; %s",
		q.Trials, per, caught, p.MaxEpsilon, p.MaxMu, q.Delta, show, pass)
}

// per is what the power's counts count: Counts, or trials per side.
func (p *Power) per() string {
	if p.Counts != "" {
		return p.Counts
	}
	return "trials per side"
}

// A Question is what a distinguishing game's power and trials-needed answer: with Trials
// per side (or how many), does a game played as Route, each test at Confidence, show the
// claim (Epsilon, Delta) violated with probability Power when the truth is a Gaussian leak
// of Power.Against × Epsilon. Every route asks epsilon.TrialsToDetect, so one question has
// one count wherever it is asked.
type Question struct {
	Route      string  `json:"route"`         // e.g. "split game, best of 2 score families"
	Epsilon    float64 `json:"claim_epsilon"` // the claimed ε
	Delta      float64 `json:"delta"`
	Confidence float64 `json:"confidence"` // each test's, after the route's multiplicity correction
	Power      float64 `json:"power"`      // the target probability of catching the violation
	Trials     int     `json:"trials"`     // the trials per side the check had
}

// PowerSpec is the planner's form of the question against the factor× alternative.
func (q *Question) PowerSpec(factor float64) epsilon.PowerSpec {
	return epsilon.PowerSpec{Claim: q.Epsilon, Factor: factor, Power: q.Power, Delta: q.Delta, Conf: q.Confidence}
}

// PlanCommand is the `audit plan` command that asks q of the factor× alternative; it
// prints the same trials-needed. Numbers are written in their shortest exact form, so the
// planner reads back the very same question.
func (q *Question) PlanCommand(factor float64) string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return fmt.Sprintf("audit plan --trials %d --delta %s --epsilon %s --power-against %s --power %s --confidence %s",
		q.Trials, g(q.Delta), g(q.Epsilon), g(factor), g(q.Power), g(q.Confidence))
}

// Sufficient reports that the check had the power PASS needs.
func (p *Power) Sufficient() bool { return p != nil && p.Power >= PowerTarget }

// Summary is the power in words, for reports.
func (p *Power) Summary() string {
	if p == nil {
		return ""
	}
	if p.Unit != "" {
		catches := fmt.Sprintf("would catch an %s of %g with probability %.2f; catches an %s ≥ %.3g with %.0f %% power", p.Unit, p.Against, p.Power, p.Unit, RoundUp3(p.SmallestFactor), 100*PowerTarget)
		if p.TrialsNeeded > 0 {
			catches += fmt.Sprintf("; about %d %s would catch %g with %.0f %% power", p.TrialsNeeded, p.per(), p.Against, 100*PowerTarget)
		}
		return catches
	}
	catches := fmt.Sprintf("would catch a %g× violation with probability %.2f", p.Against, p.Power)
	switch {
	case math.IsInf(p.SmallestFactor, 1):
		catches += "; these trials cannot show the claim violated at any size"
	default:
		catches += fmt.Sprintf("; catches ≥ %.3g× violations with %.0f %% power", RoundUp3(p.SmallestFactor), 100*PowerTarget)
	}
	if p.TrialsNeeded > 0 {
		catches += fmt.Sprintf("; about %d %s would catch %g× with %.0f %% power", p.TrialsNeeded, p.per(), p.Against, 100*PowerTarget)
	}
	if q := p.Question; q != nil {
		catches += fmt.Sprintf(" (the question: %s, each test at %.4g %% confidence, a Gaussian leak; `%s` asks it)", q.Route, 100*q.Confidence, q.PlanCommand(p.Against))
	}
	return catches
}

// An Estimate is a reported quantity that is not a bound: a point estimate, with an
// interval when it has one (a bootstrap interval, itself an estimate).
type Estimate struct {
	Name     string    `json:"name"`
	Value    float64   `json:"value"`
	Interval *Interval `json:"interval,omitempty"`
	Note     string    `json:"note,omitempty"`
}

// DecideUpper applies the verdict rule to a quantity that must not exceed bound, given a
// confidence interval for it: FAIL when the lower end exceeds the bound, PASS when the upper
// end does not, INCONCLUSIVE otherwise.
func DecideUpper(iv Interval, bound float64) Verdict {
	switch {
	case iv.Lower > bound:
		return Fail
	case iv.Upper <= bound:
		return Pass
	}
	return Inconclusive
}

// FloatTolerance is the slack a deterministic inequality lhs ≤ rhs is given for rounding:
// lhs ≤ rhs·(1 + 1e-9) + 1e-12 (spec d2d §4.1).
func FloatTolerance(lhs, rhs float64) bool { return lhs <= rhs*(1+1e-9)+1e-12 }

// Decide is a subject's verdict: the worst verdict of the findings the claim requires
// (Claim.Required; every finding when it names none). The other findings are supporting
// evidence, reported with their own verdicts and power: one that lacks power does not
// hold the verdict back, but one that shows a violation (FAIL) fails the subject, since a
// violation shown is shown whichever check found it.
func Decide(c Claim, fs []Finding) Verdict {
	var req []Finding
	for _, f := range fs {
		if f.Verdict == Fail {
			return Fail
		}
		if c.Requires(f.Kind) {
			req = append(req, f)
		}
	}
	return Worst(req)
}

// Consistent returns nil when f is what a sound method's audit under claim c should show:
// a required finding PASSes; a supporting one does not FAIL; and an empirical finding's
// verdict agrees with its stated power (PASS only with power, INCONCLUSIVE only without
// it and with the trials that would decide). Otherwise it says what is wrong.
func Consistent(c Claim, f Finding) error {
	switch {
	case c.Requires(f.Kind) && f.Verdict != Pass:
		return fmt.Errorf("required finding %s: %s, want PASS (%s)", f.Check, f.Verdict, f.Detail)
	case f.Verdict == Fail:
		return fmt.Errorf("supporting finding %s: FAIL (%s)", f.Check, f.Detail)
	case f.Kind == Empirical && f.Power == nil:
		return fmt.Errorf("empirical finding %s states no power", f.Check)
	case f.Power != nil && f.Verdict == Pass && !f.Power.Sufficient():
		return fmt.Errorf("finding %s: PASS with power %.3f < %.1f", f.Check, f.Power.Power, PowerTarget)
	case f.Power != nil && f.Verdict == Inconclusive && (f.Power.Sufficient() || f.TrialsNeeded <= 0):
		return fmt.Errorf("finding %s: INCONCLUSIVE with power %.3f and %d trials needed", f.Check, f.Power.Power, f.TrialsNeeded)
	}
	return nil
}

// Worst combines verdicts: FAIL if any failed, else INCONCLUSIVE if any was, else PASS.
// No findings at all is INCONCLUSIVE: nothing was shown.
func Worst(fs []Finding) Verdict {
	if len(fs) == 0 {
		return Inconclusive
	}
	v := Pass
	for _, f := range fs {
		switch f.Verdict {
		case Fail:
			return Fail
		case Inconclusive:
			v = Inconclusive
		}
	}
	return v
}

// Tally is a count of verdicts, the one every summary of findings is made from.
type Tally struct {
	Pass, Fail, Inconclusive int
}

// Add counts one verdict: PASS and FAIL as themselves, anything else as inconclusive.
func (t *Tally) Add(v Verdict) {
	switch v {
	case Pass:
		t.Pass++
	case Fail:
		t.Fail++
	default:
		t.Inconclusive++
	}
}

// Count tallies verdicts.
func Count(fs []Finding) (pass, fail, inconclusive int) {
	var t Tally
	for _, f := range fs {
		t.Add(f.Verdict)
	}
	return t.Pass, t.Fail, t.Inconclusive
}

// Deterministic builds the finding of a deterministic check measured ≤ bound (with the
// rounding slack of FloatTolerance).
func Deterministic(check, title string, kind Kind, measured, bound float64, trials int, detail string) Finding {
	v := Pass
	if !FloatTolerance(measured, bound) || math.IsNaN(measured) {
		v = Fail
	}
	return Finding{Check: check, Title: title, Kind: kind, Verdict: v, Measured: measured, Bound: bound,
		Comparison: "≤", Confidence: 1, Trials: trials, Detail: detail}
}

func (f Finding) String() string {
	return fmt.Sprintf("%-12s %s: %.6g %s %.6g", f.Verdict, f.Title, f.Measured, f.Comparison, f.Bound)
}

// RoundUp3 is v rounded up to three significant figures, for printing beside "catches ≥":
// the smallest violation a check catches, printed to nearest, can claim more than it
// catches (1.5506 read "≥ 1.55×" in a finding and "≥ 1.56×" in its report's table).
func RoundUp3(v float64) float64 {
	if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	// to nearest, then up a unit if below v (math.Ceil(v·100) would take 1.55, whose product
	// rounds to 155.00000000000003, up to 1.56); by an exact power of ten either way, so
	// the result is the double nearest its three-figure decimal
	e := math.Floor(math.Log10(v)) - 2
	if e >= 0 {
		unit := fexp.Pow(10, e)
		r := math.Round(v / unit)
		if r*unit < v {
			r++
		}
		return r * unit
	}
	scale := fexp.Pow(10, -e)
	r := math.Round(v * scale)
	if r/scale < v {
		r++
	}
	return r / scale
}
