// Code generated for the move of the verdict vocabulary; DO NOT EDIT. These aliases keep old names compiling while callers move to package verdict, and go when they have.

package audit

import "github.com/unlearnaudit/unlearnaudit/audit/verdict"

type (
	Claim             = verdict.Claim
	Estimate          = verdict.Estimate
	Finding           = verdict.Finding
	HeldOut           = verdict.HeldOut
	Interval          = verdict.Interval
	Kind              = verdict.Kind
	MembershipSummary = verdict.MembershipSummary
	MembershipTPR     = verdict.MembershipTPR
	Power             = verdict.Power
	Quantile          = verdict.Quantile
	Question          = verdict.Question
	ROCPoint          = verdict.ROCPoint
	RecordScore       = verdict.RecordScore
	ScoreSummary      = verdict.ScoreSummary
	Step              = verdict.Step
	Tally             = verdict.Tally
	Trace             = verdict.Trace
	Value             = verdict.Value
	VarianceTest      = verdict.VarianceTest
	Verdict           = verdict.Verdict
)

const (
	Certificate         = verdict.Certificate
	DefaultPowerAgainst = verdict.DefaultPowerAgainst
	Empirical           = verdict.Empirical
	ExcessAgainst       = verdict.ExcessAgainst
	Fail                = verdict.Fail
	Implementation      = verdict.Implementation
	Inconclusive        = verdict.Inconclusive
	MaxTracePoints      = verdict.MaxTracePoints
	Measurement         = verdict.Measurement
	Pass                = verdict.Pass
	PowerTarget         = verdict.PowerTarget
	Release             = verdict.Release
)

var (
	Consistent              = verdict.Consistent
	Count                   = verdict.Count
	Decide                  = verdict.Decide
	DecideUpper             = verdict.DecideUpper
	Deterministic           = verdict.Deterministic
	ExcessPower             = verdict.ExcessPower
	ExcessVerdict           = verdict.ExcessVerdict
	FloatTolerance          = verdict.FloatTolerance
	NewVarianceTest         = verdict.NewVarianceTest
	StateHolding            = verdict.StateHolding
	SummarizeScores         = verdict.SummarizeScores
	SummarizeScoresOriented = verdict.SummarizeScoresOriented
	TraceRequests           = verdict.TraceRequests
	Worst                   = verdict.Worst
)
