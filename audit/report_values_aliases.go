// Code generated for the move of the report values to audit/verdict; DO NOT EDIT. These aliases keep old names compiling while callers move to package verdict, and go when they have.

package audit

import "github.com/unlearnaudit/unlearnaudit/audit/verdict"

type (
	Reproduced = verdict.Reproduced
	Row        = verdict.Row
	Utility    = verdict.Utility
	UtilityRow = verdict.UtilityRow
)

var (
	OutputFormats = verdict.OutputFormats
)
