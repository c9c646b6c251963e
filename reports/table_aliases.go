// Code generated for the move of the table values to reports/table; DO NOT EDIT. These aliases keep old names compiling while callers move to package table, and go when they have.

package reports

import "github.com/unlearnaudit/unlearnaudit/reports/table"

type (
	Cell     = table.Cell
	Number   = table.Number
	TableRow = table.Row
	Value    = table.Value
)

var (
	G10 = table.G10
)
