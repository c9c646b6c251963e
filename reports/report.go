package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/reports/table"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/jsonerr"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/internal/shell"
)

// Schema is the identifier of the JSON report format this package writes. v2: a subject's
// verdict comes from the findings its claim requires (Claim.Required, Finding.Required),
// and empirical findings state their power. v3: a game's power names its question
// (power.question). ReadJSON reads v2 reports too (they lack only the question).
const Schema = "unlearnaudit/report/v3"

// schemaV2 is the previous format, still read.
const schemaV2 = "unlearnaudit/report/v2"

// Report is a complete audit report. Everything in it is a function of the inputs, the
// seed and its Date, so the same inputs, seed and date give byte-identical JSON: there are
// no times of day and no host names.
type Report struct {
	Schema  string `json:"schema"`
	Tool    Tool   `json:"tool"`
	Command string `json:"command"`
	// Date is the day the audit ran, as DateLayout (AuditDate: --date, SOURCE_DATE_EPOCH or
	// the clock); empty in a report written before it was recorded.
	Date string `json:"date,omitempty"`
	// CommandLine is the command that decides the report, program name first, its flags
	// in name order (those that only place or show the output left out): with the tool
	// version, the seed and the inputs' digests, what it takes to reproduce the report.
	CommandLine []string     `json:"command_line,omitempty"`
	Seed        uint64       `json:"seed"`
	Trials      int          `json:"trials"`
	Confidence  table.Number `json:"confidence"`
	// TrialEvidence says whether the trials behind the findings were authenticated
	// (TrialsAuthenticated: written and read back under an evidence key) or not
	// (TrialsUnauthenticated); empty for a report that runs no trials.
	TrialEvidence string    `json:"trial_evidence,omitempty"`
	Inputs        []Input   `json:"inputs"`
	Data          Data      `json:"data"`
	Subjects      []Subject `json:"subjects"`
	// Controls are the negative controls run beside the subjects (--controls): they do not
	// enter the summary, which is about the method as it is.
	Controls []Control `json:"controls,omitempty"`
	Summary  Summary   `json:"summary"`
}

// Control is a negative control's outcome: a mutant of Subject with a known Bug, audited
// by the subject's own checks. Caught says the audit FAILed it; CaughtBy names the checks
// that did. A control not caught is a limit of the audit at these trials.
type Control struct {
	Subject  string   `json:"subject"`
	Name     string   `json:"name"`
	Bug      string   `json:"bug"`
	Verdict  string   `json:"verdict"`
	Caught   bool     `json:"caught"`
	CaughtBy []string `json:"caught_by,omitempty"`
	// Closest, on a control not caught, is the check on its runs (certificate checks read
	// only declared constants) that came nearest to failing it, with
	// its measurement and bound: far inside the bound means the bug does not break the
	// claim on this data (no sound audit could fail it), near it that more trials might.
	Closest string `json:"closest,omitempty"`
	// Checks are the verdicts of every check on the control, in the order the subject's
	// check returns them: a row of the detection matrix.
	Checks []ControlCheck `json:"checks,omitempty"`
}

// ControlCheck is one check's verdict on a negative control and the trials (or runs) it
// used: a cell of the detection matrix.
type ControlCheck struct {
	Check   string `json:"check"`
	Verdict string `json:"verdict"`
	Trials  int    `json:"trials,omitempty"`
}

// DetectionMatrix is the controls of one subject against the checks that ran on them.
type DetectionMatrix struct {
	Subject string
	Checks  []string   // the columns, in first-seen order
	Rows    []Control  // the subject's controls
	Cells   [][]string // Cells[i][j]: "FAIL (n)", "pass", "inconclusive" or "—" (not run)
}

// DetectionMatrices groups the controls by subject: for every planted bug, which check
// caught it and at how many trials — the evidence that the audit can fail.
func (r *Report) DetectionMatrices() []DetectionMatrix {
	var out []DetectionMatrix
	at := map[string]int{}
	for _, c := range r.Controls {
		i, ok := at[c.Subject]
		if !ok {
			i = len(out)
			at[c.Subject] = i
			out = append(out, DetectionMatrix{Subject: c.Subject})
		}
		m := &out[i]
		for _, cc := range c.Checks {
			if !slices.Contains(m.Checks, cc.Check) {
				m.Checks = append(m.Checks, cc.Check)
			}
		}
		m.Rows = append(m.Rows, c)
	}
	for i := range out {
		m := &out[i]
		for _, c := range m.Rows {
			row := make([]string, len(m.Checks))
			for j := range row {
				row[j] = "—"
			}
			for _, cc := range c.Checks {
				j := slices.Index(m.Checks, cc.Check)
				switch verdict.Verdict(cc.Verdict) {
				case verdict.Fail:
					row[j] = "FAIL"
					if cc.Trials > 0 {
						row[j] = fmt.Sprintf("FAIL (%d)", cc.Trials)
					}
				case verdict.Pass:
					row[j] = "pass"
				default:
					row[j] = "inconclusive"
				}
			}
			m.Cells = append(m.Cells, row)
		}
	}
	return out
}

// GameFinding is the subject's distinguishing game, the first empirical finding with a
// stated power (the membership attack follows it); nil when there is none. Implementation
// checks with a power of their own (SGLU's noise test) are not the game.
func GameFinding(fs []Finding) *Finding {
	for i := range fs {
		if fs[i].Power != nil && fs[i].Kind == string(verdict.Empirical) {
			return &fs[i]
		}
	}
	return nil
}

// NewControl converts a control's findings, decided under the real subject's claim.
func NewControl(subject, name, bug string, c verdict.Claim, fs []verdict.Finding) Control {
	out := Control{Subject: subject, Name: name, Bug: bug, Verdict: string(verdict.Decide(c, fs))}
	for _, f := range fs {
		if f.Verdict == verdict.Fail {
			out.CaughtBy = append(out.CaughtBy, f.Check)
		}
		out.Checks = append(out.Checks, ControlCheck{Check: f.Check, Verdict: string(f.Verdict), Trials: f.Trials})
	}
	out.Caught = out.Verdict == string(verdict.Fail)
	if !out.Caught {
		ratio := -1.0
		for _, f := range fs {
			r := f.Measured / f.Bound
			if f.Kind == verdict.Certificate || f.Comparison != "≤" || !(f.Bound > 0) || math.IsInf(f.Bound, 0) || math.IsNaN(r) || r <= ratio {
				continue
			}
			ratio = r
			out.Closest = fmt.Sprintf("%s measured %.3g against its bound %.3g (%.3g of it)", f.Check, f.Measured, f.Bound, r)
		}
	}
	return out
}

// Tool names the program that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Input is a file the audit read, with its digest.
type Input struct {
	Role   string `json:"role"` // e.g. "data", "labels"
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// Data describes the dataset after loading and preprocessing.
type Data struct {
	Description   string   `json:"description"`
	Rows          int      `json:"rows"`
	Features      int      `json:"features"`
	Preprocessing []string `json:"preprocessing,omitempty"`
	Requests      []string `json:"requests"`
}

// Subject is one audited method with its claim and findings.
type Subject struct {
	Name     string    `json:"name"`
	Verdict  string    `json:"verdict"`
	Claim    Claim     `json:"claim"`
	Findings []Finding `json:"findings"`
	// Utility, when measured, is how well the models still work: beside the verdict, never
	// part of it (it is no finding).
	Utility *Utility `json:"utility,omitempty"`
	// Noise names the generator the subject's trials drew their noise from, for subjects
	// that name one (trials.NoiseStreamer: SGLU's Langevin noise): a report's figures are
	// re-run bit for bit only with that stream.
	Noise string `json:"noise,omitempty"`
}

// Claim mirrors verdict.Claim.
type Claim struct {
	Method      string        `json:"method"`
	Source      string        `json:"source"`
	Guarantee   string        `json:"guarantee"`
	Epsilon     table.Number  `json:"epsilon"`
	Delta       table.Number  `json:"delta"`
	Rho         *table.Number `json:"rho,omitempty"`
	Relation    string        `json:"relation"`
	Assumptions []string      `json:"assumptions"`
	Constants   []table.Value `json:"constants"`
	Derivation  []Step        `json:"derivation"`
	Notes       []string      `json:"notes,omitempty"`
	// Required are the kinds of finding that decide the subject's verdict; the others are
	// supporting evidence.
	Required []string `json:"required,omitempty"`
}

// Step is a derivation step.
type Step struct {
	Quantity string       `json:"quantity"`
	Formula  string       `json:"formula"`
	Value    table.Number `json:"value"`
}

// Finding mirrors verdict.Finding.
type Finding struct {
	Check        string       `json:"check"`
	Title        string       `json:"title"`
	Kind         string       `json:"kind"`
	Verdict      string       `json:"verdict"`
	Measured     table.Number `json:"measured"`
	Interval     *Interval    `json:"interval,omitempty"`
	Bound        table.Number `json:"bound"`
	Comparison   string       `json:"comparison"`
	Confidence   table.Number `json:"confidence"`
	Trials       int          `json:"trials,omitempty"`
	TrialsNeeded int          `json:"trials_needed,omitempty"`
	Detail       string       `json:"detail,omitempty"`
	// Reported marks a claim under test — a paper's, in a reproduction — measured and
	// reported, not judged: it is shown with its verdict but counts apart (Summary.Reported)
	// and never decides an overall verdict.
	Reported bool `json:"reported,omitempty"`
	// Required says the finding decides its subject's verdict; otherwise it is supporting
	// evidence.
	Required bool `json:"required"`
	// Slack, on a reproduction's "≤" finding that holds with a positive measurement, is
	// Bound ÷ Measured: how far the measurement could grow and still pass (Summarize sets
	// it; 0 when it does not apply). See ReportSlack.
	Slack     table.Number `json:"slack,omitempty"`
	Power     *Power       `json:"power,omitempty"`
	Estimates []Estimate   `json:"estimates,omitempty"`
	// Scores summarise a game's attack score for the HTML report's plots.
	Scores *verdict.ScoreSummary `json:"scores,omitempty"`
	// HeldOut, on a split game's finding, is the rule that decided and its held-out counts,
	// from which the bound, the rule's rates and the game's resolution are recomputed.
	HeldOut *verdict.HeldOut `json:"held_out,omitempty"`
	// Traces follow the finding's quantity request by request, for the plots against the
	// number of requests.
	Traces []Trace `json:"traces,omitempty"`
	// Membership, on a membership measurement on one model, holds its ROC, its TPRs at
	// low FPR and each deleted record's score, for the log–log ROC, the per-record plot
	// and the table.
	Membership *Membership `json:"membership,omitempty"`
}

// Membership mirrors verdict.MembershipSummary.
type Membership struct {
	Forget           int                `json:"forget"`
	Holdout          int                `json:"holdout"`
	Confidence       table.Number       `json:"confidence"`
	AUC              table.Number       `json:"auc"`
	AUCLimits        Interval           `json:"auc_interval"`
	AUCMethod        string             `json:"auc_method"`
	TPR              []MembershipTPR    `json:"tpr_at_fpr"`
	ROC              []verdict.ROCPoint `json:"roc"`
	Records          []RecordScore      `json:"records"`
	HoldoutQuantiles []Quantile         `json:"holdout_quantiles"`
}

// MembershipTPR mirrors verdict.MembershipTPR.
type MembershipTPR struct {
	FPR       table.Number `json:"fpr"`
	TPR       table.Number `json:"tpr"`
	Interval  Interval     `json:"interval"`
	Threshold table.Number `json:"threshold"`
	TP        int          `json:"tp"`
	FP        int          `json:"fp"`
}

// RecordScore mirrors verdict.RecordScore.
type RecordScore struct {
	ID         int64        `json:"id"`
	Score      table.Number `json:"score"`
	Percentile table.Number `json:"percentile"`
}

// Quantile mirrors verdict.Quantile.
type Quantile struct {
	P     table.Number `json:"p"`
	Value table.Number `json:"value"`
}

// Trace mirrors verdict.Trace.
type Trace struct {
	Name      string         `json:"name"`
	Requests  []int          `json:"requests"`
	Values    []table.Number `json:"values"`
	BoundName string         `json:"bound_name"`
	Bound     []table.Number `json:"bound"`
}

// Power mirrors verdict.Power: what an empirical check could have caught.
type Power struct {
	Against        table.Number `json:"against_factor"`
	Power          table.Number `json:"power"`
	StdErr         table.Number `json:"power_stderr"`
	SmallestFactor table.Number `json:"smallest_detectable_factor"`
	TrialsNeeded   int          `json:"trials_needed,omitempty"`
	Unit           string       `json:"unit,omitempty"`   // set: Against and SmallestFactor are amounts of it, not factors
	Counts         string       `json:"counts,omitempty"` // set: what the trials and trials-needed count, when not trials per side
	// What the trials support, as verdict.Power's fields of the same names say (the
	// finding's detail words them first): the smallest leak caught with 80 % power and the
	// largest ε the trials can show, each in ε and in Gaussian-DP μ, and the trials per side
	// that can show the claim violated at all and that would have the power a PASS needs.
	SmallestEpsilon table.Number `json:"smallest_detectable_epsilon,omitempty"`
	SmallestMu      table.Number `json:"smallest_detectable_mu,omitempty"`
	MaxEpsilon      table.Number `json:"max_showable_epsilon,omitempty"`
	MaxMu           table.Number `json:"max_showable_mu,omitempty"`
	TrialsToShow    int          `json:"trials_to_show_violation,omitempty"`
	TrialsToPass    int          `json:"trials_to_pass,omitempty"`
	// Question mirrors verdict.Question: what the power and trials-needed answer.
	Question *Question `json:"question,omitempty"`
	Summary  string    `json:"summary"`
}

// Question mirrors verdict.Question, with Plan the `audit plan` command that asks it.
type Question struct {
	Route      string       `json:"route"`
	Epsilon    table.Number `json:"claim_epsilon"`
	Delta      table.Number `json:"delta"`
	Confidence table.Number `json:"confidence"`
	Power      table.Number `json:"power"`
	Trials     int          `json:"trials"`
	Plan       string       `json:"plan"`
}

// Estimate mirrors verdict.Estimate: reported, never deciding a verdict.
type Estimate struct {
	Name     string       `json:"name"`
	Value    table.Number `json:"value"`
	Interval *Interval    `json:"interval,omitempty"`
	Note     string       `json:"note,omitempty"`
}

// Interval is a confidence interval.
type Interval struct {
	Lower table.Number `json:"lower"`
	Upper table.Number `json:"upper"`
}

// Summary tallies the verdicts of every judged finding and, apart, of the reported ones.
// Its verdict is the worst judged one: in an audit report, "—" when every finding is
// reported (nothing was judged) and INCONCLUSIVE when there are no findings at all; in a
// reproduction, INCONCLUSIVE whenever nothing was judged (Reproduction.Summarize).
type Summary struct {
	Verdict      string `json:"verdict"`
	Pass         int    `json:"pass"`
	Fail         int    `json:"fail"`
	Inconclusive int    `json:"inconclusive"`
	Reported     *Tally `json:"reported,omitempty"`
}

// Tally counts verdicts.
type Tally struct {
	Pass         int `json:"pass"`
	Fail         int `json:"fail"`
	Inconclusive int `json:"inconclusive"`
}

// String is the tally in words.
func (t Tally) String() string {
	return fmt.Sprintf("%d pass, %d fail, %d inconclusive", t.Pass, t.Fail, t.Inconclusive)
}

// NotJudged is the verdict of a summary or curve whose findings are all reported.
const NotJudged = "—"

// MeasurementVerdict stands in the verdict's place for a subject measured without a claim
// (its findings all measurements: audit.AsMeasurements), and for a report of such subjects
// alone: there is no claim to judge, so no PASS, FAIL or INCONCLUSIVE.
const MeasurementVerdict = "MEASUREMENT"

// claimText is a subject's claim as the renderings state it. A subject measured without a
// claim has none: its Claim carries only the δ its ε lower bound was computed at (and
// ε = 0, which a report must not print as a claim of perfect unlearning).
// esc escapes the guarantee's words for the rendering (the numbers need none).
func claimText(s Subject, esc func(string) string) string {
	c := s.Claim
	if s.Verdict == MeasurementVerdict {
		return fmt.Sprintf("%s; the ε lower bound is at δ = %s", esc(c.Guarantee), num(c.Delta))
	}
	return fmt.Sprintf("%s with ε = %s, δ = %s", esc(c.Guarantee), num(c.Epsilon), num(c.Delta))
}

// findingVerdict is a finding's verdict as the renderings print it: a measurement of a
// subject without a claim decides nothing, so it shows MEASUREMENT, not the INCONCLUSIVE
// its record holds.
func findingVerdict(s Subject, f Finding) string {
	if s.Verdict == MeasurementVerdict {
		return MeasurementVerdict
	}
	return f.Verdict
}

// Judged says whether any finding decided the summary's verdict.
func (s Summary) Judged() bool { return s.Pass+s.Fail+s.Inconclusive > 0 }

// Label is the finding's verdict as reports show it, marked when reported, not judged.
func (f Finding) Label() string {
	if f.Reported {
		return f.Verdict + " (reported, not judged)"
	}
	return f.Verdict
}

// CountFindings counts findings by verdict, leaving out measurements (Kind "measurement"), which
// never decide and so are no pass, fail or inconclusive of the subject's.
func CountFindings(fs []Finding) (pass, fail, inconclusive int) {
	var t verdict.Tally
	for _, f := range fs {
		if f.Kind != string(verdict.Measurement) {
			t.Add(verdict.Verdict(f.Verdict))
		}
	}
	return t.Pass, t.Fail, t.Inconclusive
}

// NewSubject converts an audited subject's claim and findings into the report model.
func NewSubject(name string, c verdict.Claim, fs []verdict.Finding) Subject {
	s := Subject{Name: name, Verdict: string(verdict.Decide(c, fs)), Claim: convertClaim(c)}
	if Measured(fs) {
		s.Verdict = MeasurementVerdict // no claim was judged: measurements only (audit.AsMeasurements)
	}
	for _, f := range fs {
		rf := NewFinding(f)
		rf.Required = c.Requires(f.Kind)
		s.Findings = append(s.Findings, rf)
	}
	return s
}

// NewFinding converts an audit finding into the report model.
func NewFinding(f verdict.Finding) Finding {
	rf := Finding{Check: f.Check, Title: f.Title, Kind: string(f.Kind), Verdict: string(f.Verdict),
		Measured: table.Number(f.Measured), Bound: table.Number(f.Bound), Comparison: f.Comparison,
		Confidence: table.Number(f.Confidence), Trials: f.Trials, TrialsNeeded: f.TrialsNeeded, Detail: f.Detail}
	if f.Interval != nil {
		rf.Interval = &Interval{Lower: table.Number(f.Interval.Lower), Upper: table.Number(f.Interval.Upper)}
	}
	if p := f.Power; p != nil {
		rf.Power = &Power{Against: table.Number(p.Against), Power: table.Number(p.Power), StdErr: table.Number(p.StdErr),
			SmallestFactor: table.Number(p.SmallestFactor), TrialsNeeded: p.TrialsNeeded, Unit: p.Unit, Counts: p.Counts, Summary: p.Summary(),
			SmallestEpsilon: table.Number(p.SmallestEpsilon), SmallestMu: table.Number(p.SmallestMu), MaxEpsilon: table.Number(p.MaxEpsilon), MaxMu: table.Number(p.MaxMu),
			TrialsToShow: p.TrialsToShow, TrialsToPass: p.TrialsToPass}
		if q := p.Question; q != nil {
			rf.Power.Question = &Question{Route: q.Route, Epsilon: table.Number(q.Epsilon), Delta: table.Number(q.Delta), Confidence: table.Number(q.Confidence),
				Power: table.Number(q.Power), Trials: q.Trials, Plan: q.PlanCommand(p.Against)}
		}
	}
	for _, e := range f.Estimates {
		re := Estimate{Name: e.Name, Value: table.Number(e.Value), Note: e.Note}
		if e.Interval != nil {
			re.Interval = &Interval{Lower: table.Number(e.Interval.Lower), Upper: table.Number(e.Interval.Upper)}
		}
		rf.Estimates = append(rf.Estimates, re)
	}
	rf.Scores = f.Scores
	rf.HeldOut = f.HeldOut
	for _, t := range f.Traces {
		rt := Trace{Name: t.Name, Requests: t.Requests, BoundName: t.BoundName}
		for i := range t.Values {
			rt.Values = append(rt.Values, table.Number(t.Values[i]))
			rt.Bound = append(rt.Bound, table.Number(t.Bound[i]))
		}
		rf.Traces = append(rf.Traces, rt)
	}
	if m := f.Membership; m != nil {
		rm := &Membership{Forget: m.Forget, Holdout: m.Holdout, Confidence: table.Number(m.Confidence), AUC: table.Number(m.AUC),
			AUCLimits: Interval{Lower: table.Number(m.AUCLimits.Lower), Upper: table.Number(m.AUCLimits.Upper)}, AUCMethod: m.AUCMethod, ROC: m.ROC}
		for _, t := range m.TPR {
			rm.TPR = append(rm.TPR, MembershipTPR{FPR: table.Number(t.FPR), TPR: table.Number(t.TPR),
				Interval: Interval{Lower: table.Number(t.Interval.Lower), Upper: table.Number(t.Interval.Upper)}, Threshold: table.Number(t.Threshold), TP: t.TP, FP: t.FP})
		}
		for _, r := range m.Records {
			rm.Records = append(rm.Records, RecordScore{ID: r.ID, Score: table.Number(r.Score), Percentile: table.Number(r.Percentile)})
		}
		for _, q := range m.HoldoutQuantiles {
			rm.HoldoutQuantiles = append(rm.HoldoutQuantiles, Quantile{P: table.Number(q.P), Value: table.Number(q.Value)})
		}
		rf.Membership = rm
	}
	return rf
}

func convertClaim(c verdict.Claim) Claim {
	out := Claim{Method: c.Method, Source: c.Source, Guarantee: c.Guarantee, Epsilon: table.Number(c.Epsilon), Delta: table.Number(c.Delta),
		Relation: c.Relation, Assumptions: c.Assumptions, Notes: c.Notes}
	for _, k := range c.Required {
		out.Required = append(out.Required, string(k))
	}
	if c.Rho > 0 {
		r := table.Number(c.Rho)
		out.Rho = &r
	}
	for _, v := range c.Constants {
		out.Constants = append(out.Constants, table.Value{Name: v.Name, Value: table.Number(v.Value)})
	}
	for _, s := range c.Derivation {
		out.Derivation = append(out.Derivation, Step{Quantity: s.Quantity, Formula: s.Formula, Value: table.Number(s.Value)})
	}
	return out
}

// Summarize fills in Summary from the subjects' findings.
func (r *Report) Summarize() {
	var all []Finding
	for _, s := range r.Subjects {
		all = append(all, s.Findings...)
	}
	r.Summary = summarize(all)
	// the verdict is the subjects': each decided by the findings its claim requires
	var subjects []verdict.Finding
	for _, s := range r.Subjects {
		if s.Verdict != MeasurementVerdict { // a subject measured without a claim has no verdict
			subjects = append(subjects, verdict.Finding{Verdict: verdict.Verdict(s.Verdict)})
		}
	}
	switch {
	case len(subjects) > 0:
		r.Summary.Verdict = string(verdict.Worst(subjects))
	case len(r.Subjects) > 0:
		r.Summary.Verdict = MeasurementVerdict
	}
}

// Measured says that fs are measurements only (at least one): a subject measured without a
// claim (audit.AsMeasurements), which has no verdict.
func Measured(fs []verdict.Finding) bool {
	for _, f := range fs {
		if f.Kind != verdict.Measurement {
			return false
		}
	}
	return len(fs) > 0
}

// HashFile returns the input record of a file: its SHA-256 and size.
func HashFile(role, path string) (Input, error) {
	f, err := regular.Open(path)
	if err != nil {
		return Input{}, fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Input{}, fmt.Errorf("hash %s: %w", path, err)
	}
	return Input{Role: role, Path: path, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}

// JSON encodes the report, indented, with a final newline.
func (r *Report) JSON() ([]byte, error) { return encodeJSON(r, "report") }

// MaxJSONBytes bounds a report.json read back (audit report --in, check-report): a
// report is settings, findings and at most per-record scores, a demo's 40 KB and a
// membership audit of a hundred thousand records some 10 MB (90 bytes a record); a
// larger file is refused before it is read, not decoded into several times its size.
const MaxJSONBytes = 64 << 20

// ReadJSON decodes a report and checks its schema and its date.
func ReadJSON(r io.Reader, name string) (*Report, error) {
	rep, err := decodeJSON(r, name, "report", []string{Schema, schemaV2}, func(rep *Report) string { return rep.Schema })
	if err != nil {
		return nil, err
	}
	if rep.Date != "" {
		if d, err := ParseDate(rep.Date); err != nil || d != rep.Date {
			return nil, fmt.Errorf("read report %s: field date %s: want a date as YYYY-MM-DD", name, clip.Quote(rep.Date))
		}
	}
	if err := rep.consistent(); err != nil {
		return nil, fmt.Errorf("read report %s: %w: not the report an audit wrote (edited?); rerun the audit, or render the report it wrote", name, err)
	}
	return rep, nil
}

// consistent checks that the report's verdicts are the ones its findings give, as the
// audit that wrote it decided them (verdict.Decide): every verdict one of the words reports
// use, each subject's the worst of the findings it requires, or of all when none is marked
// (FAIL when any finding failed), and the summary the subjects' (Summarize). A report rendered is handed on as evidence: a
// hand-edited "PASS" above a FAIL row must not render as if an audit had written it.
func (r *Report) consistent() error {
	findingWords := []string{string(verdict.Pass), string(verdict.Fail), string(verdict.Inconclusive)}
	for i, s := range r.Subjects {
		var all, required []verdict.Finding
		failed := false
		for k, f := range s.Findings {
			if !slices.Contains(findingWords, f.Verdict) {
				return fmt.Errorf("subjects[%d].findings[%d].verdict %s: want PASS, FAIL or INCONCLUSIVE", i, k, clip.Quote(f.Verdict))
			}
			v := verdict.Finding{Verdict: verdict.Verdict(f.Verdict)}
			all = append(all, v)
			if f.Required {
				required = append(required, v)
			}
			failed = failed || v.Verdict == verdict.Fail // a violation shown fails the subject, whichever check showed it
		}
		if s.Verdict == MeasurementVerdict {
			continue // measured without a claim: no verdict to agree with
		}
		if !slices.Contains(findingWords, s.Verdict) {
			return fmt.Errorf("subjects[%d].verdict %s: want PASS, FAIL, INCONCLUSIVE or MEASUREMENT", i, clip.Quote(s.Verdict))
		}
		want := verdict.Worst(required)
		switch {
		case failed:
			want = verdict.Fail
		case len(required) == 0:
			want = verdict.Worst(all) // none marked required: every finding decides (verdict.Decide)
		}
		if s.Verdict != string(want) {
			return fmt.Errorf("subjects[%d].verdict %s, but its findings give %s", i, s.Verdict, want)
		}
	}
	again := *r
	again.Summarize()
	a, b := again.Summary, r.Summary
	if a.Reported != nil && b.Reported != nil && *a.Reported == *b.Reported {
		a.Reported = b.Reported // the same tally: compare its counts, not where it is held
	}
	if a != b {
		return fmt.Errorf("summary %s (%d pass, %d fail, %d inconclusive), but its subjects give %s (%d, %d, %d)", r.Summary.Verdict, r.Summary.Pass, r.Summary.Fail, r.Summary.Inconclusive,
			again.Summary.Verdict, again.Summary.Pass, again.Summary.Fail, again.Summary.Inconclusive)
	}
	return nil
}

// encodeJSON writes v indented, HTML characters unescaped, with a final newline.
func encodeJSON(v any, what string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	return b.Bytes(), nil
}

// decodeJSON reads a T strictly (unknown fields are errors) and checks that its schema is
// one of want (the first is the current one, named in the error).
func decodeJSON[T any](r io.Reader, name, what string, want []string, schema func(*T) string) (*T, error) {
	var v T
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) && syn.Offset <= 1 { // not JSON at all: a report.md, a PDF
			return nil, fmt.Errorf("read %s %s: not JSON (%w): want the %s.json an audit wrote", what, name, err, what)
		}
		return nil, fmt.Errorf("read %s %s: %s", what, name, jsonerr.Describe(err))
	}
	if got := schema(&v); !slices.Contains(want, got) {
		return nil, fmt.Errorf("read %s %s: schema %s, want %q", what, name, clip.Quote(got), want[0])
	}
	// one object and nothing after it: text appended to a report is not part of it
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("read %s %s: text after the JSON object, at byte %d", what, name, dec.InputOffset())
	}
	if err := nonNegative(reflect.ValueOf(v), ""); err != nil {
		return nil, fmt.Errorf("read %s %s: %w", what, name, err)
	}
	return &v, nil
}

// nonNegative refuses a negative integer anywhere in v, naming its JSON path: every
// integer of a report or a reproduction is a count, a size, an index or an ID (trials,
// rows, bytes, record IDs), and "trials": -8 is an edited file, not a result.
func nonNegative(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() < 0 {
			return fmt.Errorf("%s is %d; it counts something and is never negative", path, v.Int())
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return nonNegative(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := nonNegative(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if err := nonNegative(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			if err := nonNegative(v.Field(i), p); err != nil {
				return err
			}
		}
	}
	return nil
}

// ShellLine joins a command line for display, quoting (POSIX shell single quotes) each
// word that a shell would split or expand, so that it can be pasted back (shell.Join).
func ShellLine(words []string) string { return shell.Join(words) }

// ReportFormats are the renderings of a report, by file extension: JSON is the source of
// truth, the others are read by people. They are what a spec's outputs.formats may name.
var ReportFormats = verdict.OutputFormats

// Render renders the report in one of ReportFormats.
func (r *Report) Render(format string) ([]byte, error) {
	var b bytes.Buffer
	var err error
	switch format {
	case "json":
		return r.JSON()
	case "md":
		err = r.Markdown(&b)
	case "html":
		err = r.HTML(&b)
	case "pdf":
		err = r.PDF(&b)
	default:
		return nil, fmt.Errorf("render report: format %s; want one of %s", clip.Quote(format), strings.Join(ReportFormats, ", "))
	}
	return b.Bytes(), err
}
