// Code generated for the move of the shared checks to audit/checks; DO NOT EDIT. These aliases keep old names compiling while callers move to package checks, and go when they have.

package audit

import "github.com/unlearnaudit/unlearnaudit/audit/checks"

type (
	EmpiricalRelease  = checks.EmpiricalRelease
	FamilyGame        = checks.FamilyGame
	GaussianRelease   = checks.GaussianRelease
	MembershipRelease = checks.MembershipRelease
	NonFiniteError    = checks.NonFiniteError
	RankCheck         = checks.RankCheck
	RankPlan          = checks.RankPlan
	References        = checks.References
	ReleaseScaler     = checks.ReleaseScaler
	Resolution        = checks.Resolution
	ScoreKind         = checks.ScoreKind
)

const (
	ConfidenceScores   = checks.ConfidenceScores
	LossScores         = checks.LossScores
	MinEmpiricalTrials = checks.MinEmpiricalTrials
)

var (
	AtPrecision           = checks.AtPrecision
	CheckHoldout          = checks.CheckHoldout
	DistanceCheck         = checks.DistanceCheck
	ExactEps              = checks.ExactEps
	GamePowerSpec         = checks.GamePowerSpec
	GradientStatistic     = checks.GradientStatistic
	HoldoutMembership     = checks.HoldoutMembership
	HoldoutQuantileLevels = checks.HoldoutQuantileLevels
	LeastTrue             = checks.LeastTrue
	LinearScores          = checks.LinearScores
	LoadReferences        = checks.LoadReferences
	ModelResolution       = checks.ModelResolution
	ParameterStatistics   = checks.ParameterStatistics
	PlanRanks             = checks.PlanRanks
	PowerOf               = checks.PowerOf
	PrecisionWarning      = checks.PrecisionWarning
	RecordStatistics      = checks.RecordStatistics
	Spacing               = checks.Spacing
	TrialResolution       = checks.TrialResolution
	ULiRAFinding          = checks.ULiRAFinding
	ULiRAStatistic        = checks.ULiRAStatistic
	Unrealisable          = checks.Unrealisable
	VarianceInterval      = checks.VarianceInterval
	VarianceRatio         = checks.VarianceRatio
)
