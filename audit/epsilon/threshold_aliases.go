// Code generated for the move of the threshold strategies to audit/threshold; DO NOT EDIT.

package epsilon

import "github.com/unlearnaudit/unlearnaudit/audit/threshold"

type Strategy = threshold.Strategy

var (
	Split         = threshold.Split
	Bonferroni    = threshold.Bonferroni
	ParseStrategy = threshold.Parse
)
